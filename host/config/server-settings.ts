/**
 * Validation of the config's `servers` (docs/virtual-servers.md): each
 * virtual server's name (a URL path segment, served at /mcp/NAME), its
 * member globs per list kind, and its own name and instructions. Its
 * `discovery` is checked as the top-level one is (validate.ts).
 */
import type { Problem } from '../errors.js';
import { isPlainObject } from '../plain-object.js';
import { globProblems } from './access-settings.js';
import { describeValue, unknownKeyProblem } from './problem-wording.js';
import type { VirtualServerConfig } from './types.js';

/** The keys naming a virtual server's members, one per list kind. */
export const MEMBER_KINDS = [
  'tools',
  'prompts',
  'resources',
  'resourceTemplates',
  'skills',
] as const satisfies readonly (keyof VirtualServerConfig)[];
const SETTINGS = ['name', 'instructions', 'discovery'] as const satisfies readonly (keyof VirtualServerConfig)[];

/** A name that is one URL path segment as it is written: nothing a URL would escape or normalise away. */
const PATH_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._~-]*$/;

const EXAMPLE = "{ dev: { tools: ['github.*', 'ci.*'], prompts: ['github.*'] } }";

/** Where a server's key sits, as messages name it: `servers.dev`, or `servers["a b"]` for a name that is no identifier. */
export function serverPath(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? `servers.${name}` : `servers[${JSON.stringify(name)}]`;
}

/** Every problem of a `servers` value but its servers' `discovery`; `where(path)` places one (`servers.dev.tools`). */
export function serverProblems(value: unknown, where: (path: string) => string): Problem[] {
  if (!isPlainObject(value)) {
    return [
      {
        where: where('servers'),
        what: `expected an object of virtual servers by name, got ${describeValue(value)}.`,
        fix: `e.g. servers: ${EXAMPLE}, or leave servers out to serve the whole catalogue at /mcp alone.`,
      },
    ];
  }
  return Object.entries(value).flatMap(([name, server]) => [
    ...nameProblems(name, where),
    ...settingsProblems(server, serverPath(name), where),
  ]);
}

function nameProblems(name: string, where: (path: string) => string): Problem[] {
  if (name === '' || name === '.' || name === '..') {
    return [
      {
        where: where(serverPath(name)),
        what: `the server would be served at /mcp/${name}, which a URL resolves to /mcp${name === '..' ? "'s parent" : ' itself'}, the whole catalogue's path.`,
        fix: 'give it a name of its own (e.g. dev), or name it default to change what /mcp serves.',
      },
    ];
  }
  if (PATH_SEGMENT.test(name)) return [];
  return [
    {
      where: where(serverPath(name)),
      what: `"${name}" is not a URL path segment as it stands, and the server is served at /mcp/NAME.`,
      fix: 'use letters, digits, ".", "_", "~" and "-", starting with a letter or digit (e.g. dev, support-eu).',
    },
  ];
}

function settingsProblems(server: unknown, path: string, where: (path: string) => string): Problem[] {
  if (!isPlainObject(server)) {
    return [
      {
        where: where(path),
        what: `expected a virtual server object, got ${describeValue(server)}.`,
        fix: "e.g. { tools: ['github.*'], instructions: 'For the dev team.' }.",
      },
    ];
  }
  const problems: Problem[] = [];
  const known: readonly string[] = [...MEMBER_KINDS, ...SETTINGS];
  for (const key of Object.keys(server)) {
    if (key === 'include') {
      problems.push({
        where: where(`${path}.include`),
        what: 'unknown member kind "include": a server names its members per kind, and include would not say which.',
        fix: `write the globs under tools, prompts, resources, resourceTemplates or skills, e.g. tools: ${JSON.stringify(server.include)}.`,
      });
    } else if (!known.includes(key)) {
      const problem = unknownKeyProblem(where(`${path}.${key}`), key, known);
      problems.push({
        ...problem,
        what: `unknown member kind or setting "${key}": members are tools, prompts, resources, resourceTemplates and skills; settings name, instructions and discovery.`,
      });
    }
  }
  for (const kind of MEMBER_KINDS) {
    if (server[kind] !== undefined) problems.push(...globProblems(server[kind], `${path}.${kind}`, kind, where));
  }
  for (const key of ['name', 'instructions'] as const) {
    const text = server[key];
    if (text !== undefined && (typeof text !== 'string' || (key === 'name' && text === ''))) {
      problems.push({
        where: where(`${path}.${key}`),
        what: `expected a${key === 'name' ? ' non-empty' : ''} string, got ${describeValue(text)}.`,
        fix:
          key === 'name'
            ? 'e.g. name: "dev-tools" (the serverInfo name its clients see).'
            : 'e.g. instructions: "Tools for the dev team."',
      });
    }
  }
  return problems;
}
