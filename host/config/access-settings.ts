/**
 * Validation of the config's `access` rules (docs/access.md): each rule's
 * `who` (the claims, token name or stdio it matches) and the globs of what
 * it allows, every problem at once, each naming the rule and the key.
 */
import { createRequire } from 'node:module';
import type Picomatch from 'picomatch';
import type { Problem } from '../errors.js';
import { isPlainObject } from '../plain-object.js';
import type { AccessRule, AccessWho } from './types.js';
import { describeValue, unknownKeyProblem } from './problem-wording.js';

const require = createRequire(import.meta.url);

/** The keys of `who`, and what each must be. */
const WHO_KEYS: Record<keyof AccessWho, 'string' | 'strings' | 'true'> = {
  sub: 'string',
  client_id: 'string',
  scope: 'string',
  groups: 'strings',
  roles: 'strings',
  token: 'string',
  stdio: 'true',
};

/** The lists a rule may allow items of. */
export const ACCESS_LISTS = ['tools', 'prompts', 'resources'] as const satisfies readonly (keyof AccessRule)[];

const RULE_EXAMPLE = "{ who: { token: 'ci' }, tools: ['clock.*'] }";

/** Every problem of an `access` value; `where(path)` places one (`access[0].who.sub`). */
export function accessProblems(value: unknown, where: (path: string) => string): Problem[] {
  if (!Array.isArray(value)) {
    return [
      {
        where: where('access'),
        what: `expected an array of access rules, got ${describeValue(value)}.`,
        fix: `e.g. access: [${RULE_EXAMPLE}], or leave access out to let every client see everything.`,
      },
    ];
  }
  return value.flatMap((rule: unknown, index) => ruleProblems(rule, `access[${index}]`, where));
}

function ruleProblems(rule: unknown, path: string, where: (path: string) => string): Problem[] {
  if (!isPlainObject(rule)) {
    return [
      {
        where: where(path),
        what: `expected an access rule object, got ${describeValue(rule)}.`,
        fix: `e.g. ${RULE_EXAMPLE}.`,
      },
    ];
  }
  const problems: Problem[] = [];
  const known = ['who', ...ACCESS_LISTS];
  for (const key of Object.keys(rule)) {
    if (!known.includes(key)) {
      const problem = unknownKeyProblem(where(`${path}.${key}`), key, known);
      problems.push({ ...problem, what: `unknown key "${key}": a rule allows tools, prompts or resources only.` });
    }
  }
  problems.push(...whoProblems(rule.who, `${path}.who`, where));
  for (const list of ACCESS_LISTS) {
    if (rule[list] !== undefined) problems.push(...globProblems(rule[list], `${path}.${list}`, list, where));
  }
  return problems;
}

function whoProblems(who: unknown, path: string, where: (path: string) => string): Problem[] {
  const fix =
    "e.g. who: { sub: 'alice' }, { scope: 'notes' }, { groups: ['admins'] }, { token: 'ci' } or { stdio: true }.";
  if (!isPlainObject(who) || Object.keys(who).length === 0) {
    const got = isPlainObject(who) ? 'an empty one (it would match no one in particular)' : describeValue(who);
    return [{ where: where(path), what: `expected an object naming whom the rule is for, got ${got}.`, fix }];
  }
  const problems: Problem[] = [];
  for (const [key, value] of Object.entries(who)) {
    const kind = Object.hasOwn(WHO_KEYS, key) ? WHO_KEYS[key as keyof AccessWho] : undefined;
    if (kind === undefined) {
      problems.push(unknownKeyProblem(where(`${path}.${key}`), key, Object.keys(WHO_KEYS)));
      continue;
    }
    const ok =
      kind === 'string'
        ? typeof value === 'string' && value !== ''
        : kind === 'true'
          ? value === true
          : Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string' && item !== '');
    if (!ok) {
      const expected =
        kind === 'string' ? 'a non-empty string' : kind === 'true' ? 'true' : 'a non-empty array of non-empty strings';
      problems.push({
        where: where(`${path}.${key}`),
        what: `expected ${expected}, got ${describeValue(value)}.`,
        fix: kind === 'true' ? 'write stdio: true, or leave it out.' : fix,
      });
    }
  }
  return problems;
}

/** The problems of a list of globs at `path`: of composed names, or of URIs for `resources` and `resourceTemplates`. */
export function globProblems(globs: unknown, path: string, list: string, where: (path: string) => string): Problem[] {
  const uris = list.startsWith('resource');
  const example = uris ? "['note://**']" : `['notes.*']`;
  if (!Array.isArray(globs)) {
    return [
      {
        where: where(path),
        what: `expected an array of globs, got ${describeValue(globs)}.`,
        fix: `e.g. ${list}: ${example}.`,
      },
    ];
  }
  const problems: Problem[] = [];
  globs.forEach((glob: unknown, index) => {
    const reason = typeof glob !== 'string' || glob === '' ? `got ${describeValue(glob)}` : unparsable(glob);
    if (reason !== undefined) {
      problems.push({
        where: where(`${path}[${index}]`),
        what: `expected a glob of composed ${uris ? 'URIs' : 'names'}, ${reason}.`,
        fix: `e.g. ${list}: ${example} ('*' matches within a name, '**' across '/').`,
      });
    }
  });
  return problems;
}

/** The problems of `limits.callsPerMinute.perTool`: globs of composed tool names, each to a number of calls. */
export function perToolProblems(value: unknown, where: (path?: string) => string): Problem[] {
  const fix = "e.g. perTool: { 'search.*': 10 } (at most 10 calls a minute to the tools matching search.*).";
  if (!isPlainObject(value))
    return [{ where: where(), what: `expected an object of globs to numbers, got ${describeValue(value)}.`, fix }];
  return Object.entries(value).flatMap(([glob, limit]): Problem[] => {
    const reason = glob === '' ? 'got ""' : unparsable(glob);
    const problems: Problem[] = [];
    if (reason !== undefined)
      problems.push({ where: where(), what: `expected a glob of composed tool names, ${reason}.`, fix });
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
      problems.push({
        where: where(),
        what: `the limit for "${glob}" must be a positive integer, got ${describeValue(limit)}.`,
        fix,
      });
    }
    return problems;
  });
}

/** Why picomatch cannot compile `glob`, or undefined when it can. */
function unparsable(glob: string): string | undefined {
  try {
    (require('picomatch') as typeof Picomatch).makeRe(glob, { dot: true, strictBrackets: true });
    return undefined;
  } catch (error) {
    return `but "${glob}" is not one: ${(error as Error).message}`;
  }
}
