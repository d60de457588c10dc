/**
 * Importing a module's current content in a long-running process. Node caches
 * every module by URL for the life of the process, so a config edited on disk
 * or a plugin upgraded by `npm install` would otherwise keep running its old
 * code after a reload. Used by the config loader and the plugin loader.
 *
 * - ES modules: the file is imported under a URL with a query naming `tag`;
 *   a resolve hook (`fresh-import-hooks.ts`) passes that query on to the
 *   files it imports from within `scopeDir`, so the whole package is fresh,
 *   not only its entry.
 * - CommonJS: the cjs loader caches by file name whatever the URL says, so
 *   the files of `scopeDir` are dropped from `require.cache` first.
 *
 * The same tag imports the same instances again (the cache is reused), so a
 * caller passes a new tag only when the code may have changed: each fresh
 * import stays in memory, as Node never unloads a module.
 *
 * The first load of an ES module scope, when the caller allows it
 * (`inPlace`), is a `require()` of its plain path instead: nothing is cached
 * for it yet, so it needs no tag, and Node (20.19 and later) links and runs
 * an ES module graph there in one synchronous pass, where `import()` walks
 * the whole graph below the entry (the SDK, zod and its locales) through
 * some 800 promises. Once an AsyncLocalStorage is on (in-process-link.ts)
 * each promise also costs an async-hooks round: 100 plugins took 140 ms to
 * import, 50 ms to require. A module `require()` cannot load (top-level
 * await; an older Node) is imported as above.
 */
import { realpathSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AS_MODULE_PARAM, isInScope, SCOPE_PARAM, TAG_PARAM } from './fresh-import-hooks.js';
import { loadsAsEsModule } from './module-type.js';

const requireModule = createRequire(import.meta.url);
const requireCache = requireModule.cache;
let hooksRegistered = false;
/** Scopes imported once already: importing one again is when the hook is needed. */
const importedScopes = new Set<string>();
/**
 * The tag each scope loaded in place was asked for: its files run at their
 * plain URLs, so their stack frames name no tag, and asking for that tag
 * again gets them from require's cache.
 */
const tagsInPlace = new Map<string, string>();
/** Why `require()` leaves a module to `import()`: top-level await, or a Node without require(esm). */
const IMPORT_ONLY = new Set(['ERR_REQUIRE_ASYNC_MODULE', 'ERR_REQUIRE_ESM']);

/** The tag the code of `scopeDir` (a real path) that runs at its plain URLs was loaded for, if any. */
export function tagLoadedInPlace(scopeDir: string): string | undefined {
  return tagsInPlace.get(scopeDir);
}

export async function importFresh(
  file: string,
  tag: string,
  scopeDir: string,
  {
    asModule = false,
    inPlace = false,
  }: {
    /** Load `file` as an ES module whatever its package's "type" says. */
    asModule?: boolean;
    /** The first load of an ES module scope may be a `require()` (see above). */
    inPlace?: boolean;
  } = {},
): Promise<Record<string, unknown>> {
  // Node resolves imports to real paths; the scope must be one too to contain them.
  // Read in place: a start imports every plugin at once, and a promise each through the thread pool cost more.
  const [realFile, realScope] = [realpathSync.native(file), realpathSync.native(scopeDir)];
  const tagInPlace = tagsInPlace.get(realScope);
  // A CommonJS scope keeps `import()`: its files are fresh by dropping them from require's cache, and the same tag
  // reuses the loader's wrapper of them.
  const firstLoad = tagInPlace === undefined && inPlace && !importedScopes.has(realScope) && loadsAsEsModule(realFile);
  if (tagInPlace === tag || firstLoad) {
    const loaded = requireInPlace(realFile);
    if (loaded) {
      tagsInPlace.set(realScope, tag);
      importedScopes.add(realScope);
      return loaded;
    }
  }
  // The hook runs every later import of the process through a loader thread,
  // which slows start-up noticeably; the first import of a scope finds nothing
  // cached, so it is needed only from the second (a reload) on, or to load a
  // file in a format its package does not say.
  if ((asModule || importedScopes.has(realScope)) && !hooksRegistered) {
    register(new URL('./fresh-import-hooks.js', import.meta.url));
    hooksRegistered = true;
  }
  importedScopes.add(realScope);
  // The prefix test first: the cache holds every CommonJS file of the process, and a start with many plugins scans it for each.
  const scopePrefix = join(realScope, sep);
  for (const cached of Object.keys(requireCache)) {
    if (cached.startsWith(scopePrefix) && isInScope(cached, realScope)) delete requireCache[cached];
  }
  const url = pathToFileURL(realFile);
  url.searchParams.set(TAG_PARAM, tag);
  url.searchParams.set(SCOPE_PARAM, realScope);
  if (asModule) url.searchParams.set(AS_MODULE_PARAM, '1');
  return (await import(url.href)) as Record<string, unknown>;
}

/** The module at `file` loaded by `require()`, or undefined when only `import()` can load it. */
function requireInPlace(file: string): Record<string, unknown> | undefined {
  try {
    return requireModule(file) as Record<string, unknown>;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code !== undefined && IMPORT_ONLY.has(code)) return undefined;
    throw error;
  }
}
