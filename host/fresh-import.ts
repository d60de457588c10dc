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
 */
import { realpathSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AS_MODULE_PARAM, isInScope, SCOPE_PARAM, TAG_PARAM } from './fresh-import-hooks.js';

const requireCache = createRequire(import.meta.url).cache;
let hooksRegistered = false;
/** Scopes imported once already: importing one again is when the hook is needed. */
const importedScopes = new Set<string>();

export async function importFresh(
  file: string,
  tag: string,
  scopeDir: string,
  {
    asModule = false,
  }: { /** Load `file` as an ES module whatever its package's "type" says. */ asModule?: boolean } = {},
): Promise<Record<string, unknown>> {
  // Node resolves imports to real paths; the scope must be one too to contain them.
  // Read in place: a start imports every plugin at once, and a promise each through the thread pool cost more.
  const [realFile, realScope] = [realpathSync.native(file), realpathSync.native(scopeDir)];
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
