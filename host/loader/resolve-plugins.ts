/**
 * From a validated config to the specs of its plugins: every entry resolved
 * and checked from its package.json (no plugin code runs), then mounted under
 * its prefix or flat. Every problem of every entry is collected, so one
 * broken plugin does not hide another's.
 */
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { problemsOf, type Problem } from '../errors.js';
import { entryLabel, prefixHint } from '../config/entries.js';
import { forwardedHeadersOf } from '../config/forward-headers.js';
import { duplicatePrefixProblem, suggestPrefix } from '../config/prefix.js';
import { configWhere, pluginWhere } from '../config/problem-wording.js';
import type {
  CommandPluginEntry,
  PackagePluginEntry,
  PluginEntry,
  ResolvedConfig,
  UrlPluginEntry,
} from '../config/types.js';
import { checkPackage } from './manifest.js';
import { isEditedInPlace, sourceStamp } from './code-identity.js';
import { grantsOf } from './grants.js';
import { sandboxProblem } from './sandbox-available.js';
import { resolveUpstreamCredentials } from './upstream-credentials.js';
import { resolveEntryFile, resolvePackage, type ResolvedPackage } from './resolve.js';
import type { CurationConfig, InProcessSpec, PluginSpec, RemoteSpec, StdioSpec } from './types.js';
import { stableJson } from '../stable-json.js';

const DEFAULT_TIMEOUT_MS = 60_000;
/** Twice the SDK's request body limit: room for an image or a document, not for a runaway. */
const DEFAULT_MAX_RESULT_BYTES = 8 * 1024 * 1024;
/** Far past any real catalogue (100,000 items at 100 a page), well short of a plugin that paginates forever. */
const DEFAULT_MAX_LIST_PAGES = 1000;
/** Room for a plugin's caches and a large answer or two, far short of the host's own heap. */
const DEFAULT_MEMORY_LIMIT_MB = 512;

/** The fields every spec shares, filled in once the mount is known. */
type MountFields =
  | 'index'
  | 'path'
  | 'label'
  | 'prefix'
  | 'flat'
  | 'timeoutMs'
  | 'maxResultBytes'
  | 'maxListPages'
  | 'forwardHeaders'
  | 'curation'
  | 'fingerprint';
type KindFields = Omit<InProcessSpec, MountFields> | Omit<StdioSpec, MountFields> | Omit<RemoteSpec, MountFields>;

/** An entry after resolution: what it runs, and what its package.json adds. */
interface ResolvedEntry {
  label: string;
  kindFields: KindFields;
  /** The prefix the package's manifest declares, used when the entry names neither prefix nor flat. */
  manifestPrefix?: string;
  /** The package.json hash of a package entry: an upgrade changes the fingerprint. */
  packageJsonHash?: string;
  /** The stamp of a package edited in place (local or linked): saving one of its files changes the fingerprint. */
  sourceStamp?: string;
}

/** An entry resolved, or refused with every problem found. */
type Outcome = { resolved: ResolvedEntry } | { problems: Problem[] };

/** `skip`: indexes of entries already refused by config validation, which are left unresolved. */
export async function resolvePlugins(
  config: ResolvedConfig,
  skip: ReadonlySet<number> = new Set(),
): Promise<{ specs: PluginSpec[]; problems: Problem[] }> {
  const outcomes = await Promise.all(
    config.plugins.map(async (entry, index): Promise<Outcome> => {
      if (skip.has(index)) return { problems: [] };
      const path = `plugins[${index}]`;
      try {
        return await resolveEntry(entry, path, config);
      } catch (error) {
        return { problems: problemsOf(error, configWhere(config.file, path)) };
      }
    }),
  );

  // Mounts are judged in config order, once every manifest prefix is known.
  const specs: PluginSpec[] = [];
  const problems: Problem[] = [];
  const prefixOwners = new Map<string, { path: string; label: string }>();
  outcomes.forEach((outcome, index) => {
    if (skip.has(index)) return; // not even a valid entry: nothing of it to judge
    const entry = config.plugins[index]!;
    const path = `plugins[${index}]`;
    if ('problems' in outcome) {
      problems.push(...outcome.problems);
      // Its manifest is unknown, so its mount cannot be judged; its own prefix still claims the name.
      if (entry.prefix !== undefined && !prefixOwners.has(entry.prefix)) {
        prefixOwners.set(entry.prefix, { path, label: entryLabel(entry) });
      }
      return;
    }
    const { resolved } = outcome;
    const flat = entry.flat === true;
    const prefix = entry.prefix ?? (flat ? undefined : resolved.manifestPrefix);
    const mountProblem = mountProblemOf(entry, path, resolved.label, prefix, flat, config, prefixOwners);
    if (mountProblem) {
      problems.push(mountProblem);
      return;
    }
    if (prefix !== undefined) prefixOwners.set(prefix, { path, label: resolved.label });
    specs.push({
      ...resolved.kindFields,
      index,
      path,
      label: resolved.label,
      ...(prefix !== undefined && { prefix }),
      flat,
      timeoutMs: entry.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxResultBytes: entry.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES,
      maxListPages: entry.maxListPages ?? DEFAULT_MAX_LIST_PAGES,
      forwardHeaders: forwardedHeadersOf('command' in entry ? undefined : entry.forwardHeaders),
      curation: curationOf(entry),
      fingerprint: fingerprintOf(entry, resolved),
    });
  });
  return { specs, problems };
}

async function resolveEntry(entry: PluginEntry, path: string, config: ResolvedConfig): Promise<Outcome> {
  if ('package' in entry) return resolvePackageEntry(entry, path, config);
  const label = entryLabel(entry);
  if ('command' in entry) {
    const { command, args = [], env = {}, cwd = '.' } = entry;
    if (entry.sandbox === true) {
      const missing = sandboxProblem(configWhere(config.file, `${path}.sandbox`));
      if (missing) return { problems: [missing] };
    }
    const sandbox = entry.sandbox === true && { sandbox: grantsOf(entry.allow, config.dir) };
    const kindFields = {
      kind: 'stdio' as const,
      command,
      args,
      env,
      cwd: resolve(config.dir, cwd),
      ...sandbox,
      ...perClientOf(entry),
    };
    return { resolved: { label, kindFields } };
  }
  const remote = { kind: 'remote' as const, url: entry.url, headers: entry.headers ?? {}, ...perClientOf(entry) };
  if (!entry.auth) return { resolved: { label, kindFields: remote } };
  const read = resolveUpstreamCredentials(entry.auth, `${path}.auth`, config);
  if ('problems' in read) return read;
  return { resolved: { label, kindFields: { ...remote, auth: read.credentials } } };
}

/** `sessions: 'per-client'` as a spec carries it; 'shared', the default, is its absence. */
function perClientOf(entry: CommandPluginEntry | UrlPluginEntry): { perClient?: true } {
  return entry.sessions === 'per-client' ? { perClient: true } : {};
}

async function resolvePackageEntry(entry: PackagePluginEntry, path: string, config: ResolvedConfig): Promise<Outcome> {
  const pkg = resolvePackage(entry.package, config.dir, configWhere(config.file, `${path}.package`));
  const { checked, problems } = checkPackage(pkg, entry, path, config);
  if (!checked) return { problems };
  const common = {
    label: pkg.label,
    packageJsonHash: pkg.packageJsonHash,
    ...(isEditedInPlace(pkg.dir) && { sourceStamp: sourceStamp(pkg.dir) }),
  };
  const isolation = entry.isolation ?? config.isolation;
  if (checked.kind === 'plugin' && isolation === 'sandbox') {
    const missing = sandboxProblem(pluginWhere(path, pkg.label));
    if (missing) return { problems: [missing] };
  }
  if (checked.kind === 'server') {
    const { command, args } = checked;
    if (entry.sandbox === true) {
      const missing = sandboxProblem(configWhere(config.file, `${path}.sandbox`));
      if (missing) return { problems: [missing] };
    }
    const sandbox = entry.sandbox === true && { sandbox: grantsOf(entry.allow, config.dir) };
    return {
      resolved: {
        ...common,
        kindFields: {
          kind: 'stdio',
          command,
          args,
          env: entry.env ?? {},
          cwd: config.dir,
          packageDir: pkg.dir,
          ...sandbox,
        },
      },
    };
  }
  return {
    resolved: {
      ...common,
      ...(checked.manifest.prefix !== undefined && { manifestPrefix: checked.manifest.prefix }),
      kindFields: {
        kind: 'in-process',
        packageName: pkg.label,
        version: packageVersion(pkg),
        packageDir: pkg.dir,
        entryFile: resolveEntryFile(pkg, pluginWhere(path, pkg.label)),
        manifest: checked.manifest,
        options: entry.options ?? {},
        isolation,
        memoryLimitMb: entry.memoryLimitMb ?? DEFAULT_MEMORY_LIMIT_MB,
        grants: grantsOf(entry.allow, config.dir),
      },
    },
  };
}

/** Neither prefix nor flat, or a prefix some earlier entry already uses. */
function mountProblemOf(
  entry: PluginEntry,
  path: string,
  label: string,
  prefix: string | undefined,
  flat: boolean,
  config: ResolvedConfig,
  prefixOwners: Map<string, { path: string; label: string }>,
): Problem | undefined {
  if (prefix === undefined && !flat) {
    const suggestion = suggestPrefix(prefixHint(entry), config.separator);
    return {
      where: configWhere(config.file, path),
      what: `"${label}" is mounted neither under a prefix nor flat${'package' in entry ? ', and its package.json declares no prefix' : ''}.`,
      fix: `add prefix: "${suggestion}" (its tools become ${suggestion}${config.separator}<tool>) or flat: true (names unchanged).`,
    };
  }
  const first = prefix !== undefined ? prefixOwners.get(prefix) : undefined;
  if (prefix === undefined || !first) return undefined;
  const declaredByPackage = entry.prefix === undefined;
  return duplicatePrefixProblem(
    configWhere(config.file, declaredByPackage ? path : `${path}.prefix`),
    prefix,
    declaredByPackage,
    first,
  );
}

/** npm requires a version to publish; a local package may have none. */
function packageVersion(pkg: ResolvedPackage): string {
  return typeof pkg.packageJson.version === 'string' ? pkg.packageJson.version : '0.0.0';
}

/**
 * Equal fingerprints mean the same plugin: the same config entry, and the same
 * package.json (name, version, manifest) and entry file, and for a package
 * edited in place the same files. A reload keeps the live instance of a
 * plugin whose fingerprint did not change.
 */
function fingerprintOf(entry: PluginEntry, resolved: ResolvedEntry): string {
  // Curation is applied per generation, never by the plugin: editing it is no reason to re-create the plugin.
  const { tools: _tools, prompts: _prompts, resources: _resources, ...mounted } = entry;
  const identity = stableJson({
    entry: mounted,
    kind: resolved.kindFields,
    packageJson: resolved.packageJsonHash ?? null,
    source: resolved.sourceStamp ?? null,
  });
  return createHash('sha256').update(identity).digest('hex');
}

function curationOf(entry: PluginEntry): CurationConfig {
  return {
    ...(entry.tools && { tools: entry.tools }),
    ...(entry.prompts && { prompts: entry.prompts }),
    ...(entry.resources && { resources: entry.resources }),
  };
}
