/**
 * Module resolve hook behind `fresh-import.ts`, registered with
 * `module.register`. A module imported fresh carries a query
 * (`?mcp-host-fresh=<tag>&mcp-host-scope=<dir>`); this hook gives the same
 * query to the files it imports from inside that scope (a plugin's package
 * directory, the config's directory), so they are loaded fresh with it rather
 * than served stale from the module cache. Dependencies outside the scope or
 * under a nested node_modules (the SDK, zod, …) keep their single instance.
 * Its load hook gives one file (a `.js` config written as an ES module in a
 * CommonJS project) the format its syntax needs.
 *
 * It runs on Node's hooks thread: it imports nothing from the host.
 */
import type { LoadHook, ResolveHook } from 'node:module';
import { isAbsolute, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const TAG_PARAM = 'mcp-host-fresh';
export const SCOPE_PARAM = 'mcp-host-scope';
/**
 * Set on one file's URL only (a config file): load it as an ES module
 * whatever its package's "type" says. Never passed on to what it imports.
 */
export const AS_MODULE_PARAM = 'mcp-host-as-module';

/** True when `file` is inside `scopeDir` and not inside a package installed below it. */
export function isInScope(file: string, scopeDir: string): boolean {
  const path = relative(scopeDir, file);
  return path !== '' && !path.startsWith('..') && !isAbsolute(path) && !path.split(sep).includes('node_modules');
}

/** Specifiers that can name a file of the importing package: relative, absolute, `#imports` and file: URLs. */
function mayStayInPackage(specifier: string): boolean {
  return /^(\.|\/|#|file:)/.test(specifier) || isAbsolute(specifier);
}

export const resolve: ResolveHook = async (specifier, context, nextResolve) => {
  const resolved = await nextResolve(specifier, context);
  const parent = context.parentURL;
  if (!parent?.includes(TAG_PARAM) || !mayStayInPackage(specifier)) return resolved;
  const parentUrl = new URL(parent);
  const scope = parentUrl.searchParams.get(SCOPE_PARAM);
  const url = new URL(resolved.url);
  if (scope === null || url.protocol !== 'file:' || url.search !== '' || !isInScope(fileURLToPath(url), scope)) {
    return resolved;
  }
  url.searchParams.set(TAG_PARAM, parentUrl.searchParams.get(TAG_PARAM)!);
  url.searchParams.set(SCOPE_PARAM, scope);
  return { ...resolved, url: url.href };
};

export const load: LoadHook = (url, context, nextLoad) =>
  url.startsWith('file:') && new URL(url).searchParams.has(AS_MODULE_PARAM)
    ? nextLoad(url, { ...context, format: 'module' })
    : nextLoad(url, context);
