/**
 * The compatibility checks made from a package's package.json alone, before
 * any of its code runs (DESIGN.md, "The plugin package contract"): what kind
 * of package it is, its `peerDependencies["mcp-host"]` range, its
 * `"mcp-host"` manifest, and whether its config entry fits that kind.
 */
import { openSync, readSync, closeSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, resolve } from 'node:path';
import type { Problem } from '../errors.js';
import { isDispatcherLevelKey, misplacedDispatcherKeyProblem } from '../config/dispatcher-keys.js';
import { prefixProblem } from '../config/prefix.js';
import {
  configWhere,
  describeValue,
  pluginWhere,
  quotedChoices,
  unknownKeyProblem,
} from '../config/problem-wording.js';
import { revisionListProblems } from '../config/revisions.js';
import type { PackagePluginEntry, ResolvedConfig } from '../config/types.js';
import { HOST_VERSION } from '../version.js';
import { liesOutside, type ResolvedPackage } from './resolve.js';
import type { PluginManifest } from './types.js';
import { isPlainObject } from '../plain-object.js';

/** What a package turned out to be, once its package.json passed every check. */
export type CheckedPackage =
  | { kind: 'plugin'; manifest: PluginManifest }
  /** An MCP server package: its bin, run over stdio as `command args…`. */
  | { kind: 'server'; command: string; args: string[] };

const MANIFEST_KEYS: readonly (keyof PluginManifest)[] = ['protocolVersions', 'prefix'];
/** Entry keys that only make sense for one kind of package. */
const SERVER_ONLY_ENTRY_KEYS = ['bin', 'args', 'env', 'sandbox'] as const;
const PLUGIN_ONLY_ENTRY_KEYS = ['options', 'isolation', 'memoryLimitMb', 'allow'] as const;

/**
 * Check the package an entry (at `entryPath` in `config`) names. Every
 * problem is returned, not the first; `checked` is set only when there is none.
 */
export function checkPackage(
  pkg: ResolvedPackage,
  entry: PackagePluginEntry,
  entryPath: string,
  config: ResolvedConfig,
): { checked?: CheckedPackage; problems: Problem[] } {
  const plugin = pluginWhere(entryPath, pkg.label);
  const problems = peerRangeProblems(pkg, plugin);
  const manifestField = pkg.packageJson['mcp-host'];
  const entryKeyWhere = (key: string) => configWhere(config.file, `${entryPath}.${key}`);

  if (manifestField !== undefined) {
    const manifest = checkManifest(manifestField, pkg, plugin, config, problems);
    for (const key of SERVER_ONLY_ENTRY_KEYS.filter((k) => entry[k] !== undefined)) {
      problems.push({
        where: entryKeyWhere(key),
        what: `"${key}" is for MCP server packages run over stdio, but "${pkg.label}" is an mcp-host plugin (its package.json has an "mcp-host" field).`,
        fix:
          key === 'sandbox'
            ? 'write isolation: "sandbox" in its place: the plugin then runs in a process of its own inside the OS sandbox.'
            : `remove "${key}"; a plugin takes its settings from options.`,
      });
    }
    return problems.length === 0 ? { checked: { kind: 'plugin', manifest }, problems } : { problems };
  }

  if (pkg.packageJson.bin !== undefined) {
    const command = serverCommand(pkg, entry, entryPath, plugin, config, problems);
    // A sandboxed server is granted what a sandboxed command is.
    const pluginOnly = PLUGIN_ONLY_ENTRY_KEYS.filter(
      (k) => entry[k] !== undefined && !(k === 'allow' && entry.sandbox),
    );
    for (const key of pluginOnly) {
      problems.push({
        where: entryKeyWhere(key),
        what: `"${key}" is for mcp-host plugins, but "${pkg.label}" is an MCP server package run over stdio (its package.json has a "bin" and no "mcp-host" field).`,
        fix: sandboxFix(key, entry) ?? `remove "${key}"; pass the server its settings with args or env.`,
      });
    }
    if (entry.forwardHeaders !== undefined) {
      problems.push({
        where: entryKeyWhere('forwardHeaders'),
        what: `"${pkg.label}" is an MCP server package, run as a stdio child, which gets no per-request headers: a client's headers cannot reach it.`,
        fix: 'remove forwardHeaders and give the server its credentials in env.',
      });
    }
    return problems.length === 0 && command ? { checked: { kind: 'server', ...command }, problems } : { problems };
  }

  problems.push({
    where: plugin,
    what: `"${pkg.label}" is neither an mcp-host plugin (its package.json has no "mcp-host" field) nor an MCP server package (it has no "bin").`,
    fix: `check the package ${entryPath} names; an mcp-host plugin's package.json declares "mcp-host": { "protocolVersions": [ … ] }.`,
  });
  return { problems };
}

/**
 * How a server package's entry asks for what isolation and allow give a
 * plugin: `sandbox: true` runs its bin inside the OS sandbox, granted what
 * `allow` says, as for a command. Undefined when the key asks nothing of it.
 */
function sandboxFix(key: (typeof PLUGIN_ONLY_ENTRY_KEYS)[number], entry: PackagePluginEntry): string | undefined {
  if (key === 'isolation' && (entry.isolation === 'sandbox' || entry.isolation === 'process')) {
    return 'write sandbox: true in its place: the server already runs in a process of its own, and sandbox: true runs it inside the OS sandbox (granted what allow says: read, write, net).';
  }
  if (key === 'allow')
    return 'add sandbox: true to run the server inside the OS sandbox with these grants, or remove allow.';
  return undefined;
}

const require = createRequire(import.meta.url);

/** `peerDependencies["mcp-host"]`, when present, must be a semver range this host's version satisfies. */
function peerRangeProblems(pkg: ResolvedPackage, plugin: string): Problem[] {
  const peers = pkg.packageJson.peerDependencies;
  const range =
    typeof peers === 'object' && peers !== null ? (peers as Record<string, unknown>)['mcp-host'] : undefined;
  if (range === undefined) return [];
  // semver's two functions (twenty files) are loaded here, when a plugin first declares a range: most declare none.
  const validRange = require('semver/ranges/valid.js') as typeof import('semver').validRange;
  const satisfies = require('semver/functions/satisfies.js') as typeof import('semver').satisfies;
  const where = `${plugin}: package.json peerDependencies["mcp-host"]`;
  if (typeof range !== 'string' || validRange(range) === null) {
    return [
      {
        where,
        what: `${describeValue(range)} is not a semver range.`,
        fix: `the plugin's author must correct it; meanwhile install another version of "${pkg.label}".`,
      },
    ];
  }
  if (satisfies(HOST_VERSION, range, { includePrerelease: true })) return [];
  return [
    {
      where,
      what: `the plugin requires mcp-host ${range}, but this host is ${HOST_VERSION}.`,
      fix: `install a version of "${pkg.label}" made for mcp-host ${HOST_VERSION}, or run an mcp-host version in ${range}.`,
    },
  ];
}

/** Check the `"mcp-host"` field, pushing its problems; returns the manifest its valid keys give. */
function checkManifest(
  field: unknown,
  pkg: ResolvedPackage,
  plugin: string,
  config: ResolvedConfig,
  problems: Problem[],
): PluginManifest {
  const at = (path: string) => `${plugin}: package.json "mcp-host"${path}`;
  if (!isPlainObject(field)) {
    problems.push({
      where: at(''),
      what: `expected an object, got ${describeValue(field)}.`,
      fix: `the plugin's author must correct it, e.g. "mcp-host": { "protocolVersions": [ … ], "prefix": "…" }.`,
    });
    return {};
  }
  const manifest: PluginManifest = {};
  for (const [key, value] of Object.entries(field)) {
    if (key === 'protocolVersions') {
      const listProblems = revisionListProblems(value, (index) =>
        at(`.protocolVersions${index === undefined ? '' : `[${index}]`}`),
      );
      problems.push(...listProblems);
      if (listProblems.length > 0) continue;
      manifest.protocolVersions = value as string[];
      const lacking = missingRevisionsProblem(manifest.protocolVersions, at('.protocolVersions'), config);
      if (lacking) problems.push(lacking);
    } else if (key === 'prefix') {
      const problem = prefixProblem(value, config.separator, at('.prefix'), pkg.label);
      if (problem) problems.push(problem);
      else manifest.prefix = value as string;
    } else if (isDispatcherLevelKey(key)) {
      problems.push(misplacedDispatcherKeyProblem(key, at(`.${key}`), `the package.json of "${pkg.label}"`));
    } else {
      problems.push(unknownKeyProblem(at(`.${key}`), key, MANIFEST_KEYS));
    }
  }
  return manifest;
}

/**
 * A mounted plugin's handlers serve every session whatever revision it
 * negotiated with the host, so a plugin must accept each revision in the
 * host's range.
 */
function missingRevisionsProblem(accepted: string[], where: string, config: ResolvedConfig): Problem | undefined {
  const lacking = config.protocolVersions.filter((revision) => !accepted.includes(revision));
  if (lacking.length === 0) return undefined;
  const common = config.protocolVersions.filter((revision) => accepted.includes(revision));
  const list = (revisions: string[]) => `[${revisions.map((revision) => JSON.stringify(revision)).join(', ')}]`;
  const configFile = basename(config.file);
  return {
    where,
    what: `the plugin accepts ${quotedChoices(accepted, 'and')}, and lacks ${quotedChoices(lacking, 'and')} of the host's protocolVersions.`,
    fix:
      common.length > 0
        ? `narrow the host's protocolVersions in ${configFile} to ${list(common)}, or install a version of the plugin that accepts them all.`
        : `the plugin shares no revision with the host: set the host's protocolVersions in ${configFile} to revisions it accepts, e.g. ${list(accepted)}, or install a version of the plugin that accepts the host's.`,
  };
}

/**
 * How to run a server package's bin: the entry's `bin`, else the bin named
 * like the package, else its only bin. A JavaScript bin runs on this Node, so
 * it works without a shell, shebang or execute bit.
 */
function serverCommand(
  pkg: ResolvedPackage,
  entry: PackagePluginEntry,
  entryPath: string,
  plugin: string,
  config: ResolvedConfig,
  problems: Problem[],
): { command: string; args: string[] } | undefined {
  const { bin } = pkg.packageJson;
  const unscopedName = pkg.label.replace(/^@[^/]+\//, '');
  const bins: Record<string, string> =
    typeof bin === 'string'
      ? { [unscopedName]: bin }
      : Object.fromEntries(
          Object.entries(typeof bin === 'object' && bin !== null ? bin : {}).filter(
            (pair): pair is [string, string] => typeof pair[1] === 'string',
          ),
        );
  const names = Object.keys(bins);
  if (names.length === 0) {
    problems.push({
      where: `${plugin}: package.json bin`,
      what: `its "bin" field names no executable, got ${describeValue(bin)}.`,
      fix: `install a working version of "${pkg.label}".`,
    });
    return undefined;
  }

  let name: string;
  if (entry.bin !== undefined) {
    if (!Object.hasOwn(bins, entry.bin)) {
      problems.push({
        where: configWhere(config.file, `${entryPath}.bin`),
        what: `"${entry.bin}" is not a bin of "${pkg.label}", which has ${quotedChoices(names, 'and')}.`,
        fix: `use bin: ${quotedChoices(names)}.`,
      });
      return undefined;
    }
    name = entry.bin;
  } else if (Object.hasOwn(bins, unscopedName) || names.length === 1) {
    name = Object.hasOwn(bins, unscopedName) ? unscopedName : names[0]!;
  } else {
    problems.push({
      where: plugin,
      what: `"${pkg.label}" is an MCP server package with several bins (${quotedChoices(names, 'and')}), none named "${unscopedName}".`,
      fix: `choose one in ${entryPath}, e.g. bin: "${names[0]}".`,
    });
    return undefined;
  }

  const file = resolve(pkg.dir, bins[name]!);
  if (liesOutside(pkg.dir, file)) {
    problems.push({
      where: `${plugin}: package.json bin`,
      what: `its bin "${name}" is ${bins[name]}, which lies outside the package (${file}).`,
      fix: `a package's bin must name a file inside its own directory (${pkg.dir}): correct its package.json, or reinstall it.`,
    });
    return undefined;
  }
  if (!existsSync(file)) {
    problems.push({
      where: `${plugin}: package.json bin`,
      what: `its bin "${name}" is ${bins[name]}, which does not exist (${file}).`,
      fix: `reinstall it: npm install ${pkg.specifier}`,
    });
    return undefined;
  }
  const args = entry.args ?? [];
  return runsOnNode(file) ? { command: process.execPath, args: [file, ...args] } : { command: file, args };
}

/** A .js/.mjs/.cjs file, or one whose shebang names node. */
function runsOnNode(file: string): boolean {
  if (/\.[cm]?js$/.test(file)) return true;
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(128);
    const length = readSync(fd, head, 0, head.length, 0);
    return /^#!.*\bnode\b/.test(head.toString('utf8', 0, length).split('\n')[0]!);
  } finally {
    closeSync(fd);
  }
}
