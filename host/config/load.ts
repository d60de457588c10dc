/**
 * Finding and loading the host config (DESIGN.md, "The config file"): with
 * cosmiconfig under the module name `mcp-host`, searching from the working
 * directory up to the project root (the nearest package.json), or exactly the
 * file `--config` names. Every load reads the file's current content, so a
 * reload sees the config as it is now on disk.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import type { CosmiconfigResult, Loader } from 'cosmiconfig';
import { describeThrown, HostError } from '../errors.js';
import { importFresh } from '../fresh-import.js';
import { isModuleOnlySyntaxError, loadsAsEsModule, nearestPackageType, needsModuleSyntax } from '../module-type.js';
import type { ResolvedConfig } from './types.js';
import { endSentence } from './problem-wording.js';
import { syntaxErrorProblem } from './syntax-error-line.js';
import { loadTypeScriptConfig } from './typescript-config.js';
import { validateConfig } from './validate.js';

export interface LoadConfigOptions {
  /** The file `--config` names, relative to `cwd`; when absent the config is searched for. */
  configPath?: string;
  /** Where the search starts and `configPath` is relative to. Default: the process's working directory. */
  cwd?: string;
}

const MODULE_NAME = 'mcp-host';
const SEARCHED_FOR =
  'mcp-host.config.js (or .mjs, .cjs, .ts, .mts, .cts), .mcp-hostrc (or .json, .yaml, .yml, .js, .cjs, .mjs), .config/mcp-hostrc… and a "mcp-host" key in package.json';

/** Load, validate and fill in the defaults of the host config. Throws a HostError or ProblemsError. */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<ResolvedConfig> {
  const found = await loadConfigExport(options);
  return validateConfig(found.config, found.filepath);
}

/** What the config file exports, not yet validated, and that file. Throws a HostError when it cannot load. */
export async function loadConfigExport(
  options: LoadConfigOptions = {},
): Promise<{ config: unknown; filepath: string }> {
  const cwd = resolve(options.cwd ?? process.cwd());
  if (options.configPath) return loadNamedConfig(resolve(cwd, options.configPath), cwd);
  return searchConfig((await explorerWith(SCRIPT_LOADERS)).search, cwd);
}

/** How the host loads a JavaScript or TypeScript config, in place of cosmiconfig's own loaders. */
const SCRIPT_LOADERS: Record<string, Loader> = {
  '.js': loadJsFresh,
  '.mjs': loadJsFresh,
  '.cjs': loadJsFresh,
  '.ts': loadTypeScriptConfig,
  '.mts': loadTypeScriptConfig,
  '.cts': loadTypeScriptConfig,
};

/**
 * The file `loadConfig` would load, found without running it: `mcp-host
 * reload` names the host to ask by its config file, which may be the very
 * file that no longer loads. Only package.json (and package.yaml) are read,
 * to see whether they hold the "mcp-host" key.
 */
export async function findConfigFile(options: LoadConfigOptions = {}): Promise<string> {
  const cwd = resolve(options.cwd ?? process.cwd());
  if (options.configPath) return resolve(cwd, options.configPath);
  const { defaultLoaders } = await import('cosmiconfig');
  const present: Loader = (file, content) =>
    basename(file, extname(file)) === 'package'
      ? (defaultLoaders as Record<string, Loader>)[extname(file)]!(file, content)
      : {};
  const explorer = await explorerWith(
    Object.fromEntries([...Object.keys(defaultLoaders), '.mts', '.cts'].map((extension) => [extension, present])),
  );
  return (await searchConfig(explorer.search, cwd)).filepath;
}

/**
 * One search for `start`, `check` and `reload` alike, so that `mcp-host
 * reload` asks the host that loaded the very file it finds; only how a
 * found file is read differs. cosmiconfig (and the JSON and YAML parsers it
 * brings: about as much CPU to import as pino) is loaded only to search, or
 * to read a named file that is not JavaScript or TypeScript.
 */
async function explorerWith(loaders: Record<string, Loader>) {
  const { cosmiconfig, getDefaultSearchPlaces } = await import('cosmiconfig');
  return cosmiconfig(MODULE_NAME, {
    searchStrategy: 'project',
    // cosmiconfig's own places, and the TypeScript module kinds it does not look for.
    searchPlaces: [...getDefaultSearchPlaces(MODULE_NAME), `${MODULE_NAME}.config.mts`, `${MODULE_NAME}.config.cts`],
    // A reload must see the file as it is now, never a cached earlier read.
    cache: false,
    // A config file that exports nothing is reported as such, not skipped as if absent.
    ignoreEmptySearchPlaces: false,
    loaders,
  });
}

async function searchConfig(
  search: (from: string) => Promise<CosmiconfigResult>,
  cwd: string,
): Promise<NonNullable<CosmiconfigResult>> {
  const found = await search(cwd).catch(asLoadFailure);
  if (found) return found;
  const top = projectRoot(cwd);
  throw new HostError({
    where: cwd,
    what: `no mcp-host config found: searched ${top === cwd ? cwd : `from ${cwd} up to ${top}`} for ${SEARCHED_FOR}.`,
    fix: `create ${join(cwd, 'mcp-host.config.js')} (export default { plugins: [ … ] }), or name a config file with --config PATH.`,
  });
}

async function loadNamedConfig(file: string, cwd: string): Promise<NonNullable<CosmiconfigResult>> {
  if (!existsSync(file)) {
    throw new HostError({
      where: file,
      what: 'the config file does not exist.',
      fix: `check the path given with --config, as CONFIG (mcp-host start FILE) or in MCP_HOST_CONFIG (a relative path starts from ${cwd}).`,
    });
  }
  const loader = SCRIPT_LOADERS[extname(file)];
  const found = loader
    ? await loadScript(file, loader).catch(asLoadFailure)
    : await (await explorerWith(SCRIPT_LOADERS)).load(file).catch(asLoadFailure);
  if (found) return found;
  // cosmiconfig finds nothing in a named file only when it is a package.json without the key.
  throw new HostError({
    where: file,
    what: 'this package.json has no "mcp-host" key.',
    fix: 'add "mcp-host": { "plugins": [ … ] } to it, or name an mcp-host.config.js with --config.',
  });
}

/**
 * A named JavaScript or TypeScript config, read as cosmiconfig's `load`
 * reads it (an empty file or export is empty, a failure carries the file's
 * path), without loading cosmiconfig. An export with cosmiconfig's `$import`
 * key, which merges other files into it, is left to cosmiconfig.
 */
async function loadScript(file: string, loader: Loader): Promise<CosmiconfigResult> {
  const source = await readFile(file, 'utf8');
  if (source.trim() === '') return { filepath: file, config: undefined, isEmpty: true };
  let config: unknown;
  try {
    config = await loader(file, source);
  } catch (error) {
    if (typeof error === 'object' && error !== null) (error as { filepath?: string }).filepath = file;
    throw error;
  }
  if (typeof config === 'object' && config !== null && Object.hasOwn(config, '$import')) {
    return (await explorerWith(SCRIPT_LOADERS)).load(file);
  }
  return config === undefined ? { filepath: file, config: undefined, isEmpty: true } : { filepath: file, config };
}

/** Where cosmiconfig's 'project' search stops: the first directory up from `cwd` with a package file. */
function projectRoot(cwd: string): string {
  for (let dir = cwd; ; dir = dirname(dir)) {
    const isTop = dirname(dir) === dir;
    if (isTop || existsSync(join(dir, 'package.json')) || existsSync(join(dir, 'package.yaml'))) return dir;
  }
}

let freshLoads = 0;

/**
 * The tag a JS config is imported under: new for each load, as its code or
 * what it imports may have changed; but a config that imports and requires
 * nothing (the usual `export default { … }`) is the same module whenever its
 * text is, so it is tagged by its text. Node never unloads a module: with a
 * new tag for every load, each reload kept one more copy of the config
 * (about 5 KB of heap per reload, nothing on disk having changed). Any
 * mention of `import` or `require`, even in a comment, takes the safe way.
 */
function configTag(source: string): string {
  if (!isSelfContained(source)) return `config-${++freshLoads}`;
  return `config-${createHash('sha256').update(source).digest('hex').slice(0, 16)}`;
}

/** Whether a config's text mentions neither `import` nor `require` (`import.meta` included): it runs the same from anywhere. */
function isSelfContained(source: string): boolean {
  return !/\b(import|require)\b/.test(source);
}

/**
 * cosmiconfig's own JS loader imports by plain URL, which the ES module cache
 * answers with the first content it ever loaded; a reload needs the current one.
 *
 * A `.js` config written as an ES module loads as one even in a CommonJS
 * project (`npm init` writes "type": "commonjs"), where Node 20 would run it
 * as CommonJS and fail at `export`. Its syntax decides, as Node 22 decides
 * for a package with no "type"; only the config file itself is loaded so
 * (by a load hook), never what it imports, and it keeps its own path, so
 * `import.meta.url` and relative imports mean what they say. `source` is the
 * file's text as cosmiconfig read it: it is not read a second time.
 */
async function loadJsFresh(file: string, source: string): Promise<unknown> {
  const asModule = loadsAsModule(file, source);
  // A hook (fresh-import-hooks.ts) is registered for the rest of the process once a scope is imported a second
  // time (a reload) or in a format its package does not say, and every import after it crosses Node's hooks
  // thread (about 10% of a start, and of each reload's). An ES module config that imports nothing needs neither:
  // it is the same module run from its text, at start and at every reload.
  if (isSelfContained(source) && (asModule || loadsAsEsModule(file))) {
    return ((await import(`data:text/javascript,${encodeURIComponent(source)}`)) as { default: unknown }).default;
  }
  const module = await importFresh(file, configTag(source), dirname(file), { asModule });
  return module.default;
}

/** Whether a config is loaded as an ES module though its package says CommonJS: its syntax decides (above). */
function loadsAsModule(file: string, source: string): boolean {
  return extname(file) === '.js' && nearestPackageType(dirname(file)) === 'commonjs' && needsModuleSyntax(source);
}

/** Every failure to read or run the config file, as a HostError naming the file. */
function asLoadFailure(error: unknown): never {
  if (error instanceof HostError) throw error;
  // cosmiconfig marks what it failed to load with the file's path.
  const file = typeof error === 'object' && error !== null ? (error as { filepath?: unknown }).filepath : undefined;
  if (typeof file !== 'string') throw error;
  // ES module syntax in a CommonJS file is no typo to correct: the fix is the file's format.
  const syntax = error instanceof SyntaxError && !isModuleOnlySyntaxError(error) ? locateSyntaxError(file) : undefined;
  if (syntax) {
    throw new HostError(syntaxErrorProblem(file, syntax.source, describeThrown(error), syntax.line, syntax.column), {
      cause: error,
    });
  }
  throw new HostError(
    {
      where: file,
      what: `the config cannot be loaded: ${endSentence(describeThrown(error))}`,
      fix: loadFailureFix(file, error),
    },
    { cause: error },
  );
}

/** The fix for a config Node could not load, from Node's own reason. */
function loadFailureFix(file: string, error: unknown): string {
  const message = describeThrown(error);
  const stem = basename(file, extname(file));
  if (isModuleOnlySyntaxError(error)) {
    return `the file is an ES module, which Node loads only from .mjs (or .js in a "type": "module" package): rename it to ${stem}.mjs, or write module.exports = { … } in place of export default.`;
  }
  if (/\b(module|exports|require) is not defined in ES module scope/.test(message)) {
    return `the file is CommonJS, which Node loads only from .cjs (or .js in a package that is not "type": "module"): rename it to ${stem}.cjs, or write export default { … } in place of module.exports.`;
  }
  const missing = /Cannot find (?:package|module) '([^']+)'/.exec(message)?.[1];
  if (missing && !missing.startsWith('.') && !missing.startsWith('/')) {
    return `install what it imports next to the config (npm install ${missing} in ${dirname(file)}), or correct the import.`;
  }
  return 'correct the config file.';
}

/**
 * The line of a syntax error. An ES module's SyntaxError carries neither file
 * nor line, but `node --check` prints both; it is run only when loading
 * already failed. Undefined when the file itself parses (the error is in a
 * module it imports, and the message says which).
 */
function locateSyntaxError(file: string): { source: string; line: number; column?: number } | undefined {
  // Without NODE_OPTIONS: preloaded modules (a test runner's, say) could print to stderr too.
  const options = { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } } as const;
  const source = readFileSync(file, 'utf8');
  // Checked as what it was loaded as: `--check` of the file itself would parse it as CommonJS, and stop at `export`.
  const check = loadsAsModule(file, source)
    ? spawnSync(process.execPath, ['--input-type=module', '--check'], { ...options, input: source })
    : spawnSync(process.execPath, ['--check', file], options);
  // file:LINE, the line's code, then a caret under the token the parser stopped at.
  const [location = '', , caret = ''] = check.stderr.split('\n');
  const line = /:(\d+)$/.exec(location)?.[1];
  const column = /^ *\^/.test(caret) ? caret.indexOf('^') : undefined;
  return check.status !== 0 && line
    ? { source, line: Number(line), ...(column !== undefined && { column }) }
    : undefined;
}
