/**
 * What a plugin entry's `package` may be: an npm package name, resolved
 * through node_modules, or a path to a package directory. Anything else
 * (`x/../../outside`, a name with spaces) could make the host import code
 * from outside node_modules that nobody installed, so it is refused at
 * `check`, before any lookup.
 */
import type { Problem } from '../errors.js';
import { isAbsolute } from 'node:path';

/**
 * npm's name grammar (validate-npm-package-name): an optional `@scope/`,
 * then a name of URL-safe characters not starting with `.` or `_`, at most
 * 214 characters. Capitals are allowed, as old packages have them.
 */
const NPM_NAME = /^(?:@[a-z0-9-*~][a-z0-9-*._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/i;
const MAX_NAME_LENGTH = 214;

/** A path to a package: relative (`./`, `../`, `.`) or absolute. */
export function isLocalPath(specifier: string): boolean {
  return /^\.\.?([\\/]|$)/.test(specifier) || isAbsolute(specifier);
}

/** Whether `name` is an npm package name: nothing in it can step out of the node_modules it is looked up in. */
export function isNpmName(name: string): boolean {
  return NPM_NAME.test(name) && name.length <= MAX_NAME_LENGTH;
}

/** Why `specifier` is neither an npm name nor a path, placed at `where`; undefined when it is one. */
export function packageSpecifierProblem(specifier: string, where: string): Problem | undefined {
  if (isLocalPath(specifier) || isNpmName(specifier)) return undefined;
  return {
    where,
    what: `${JSON.stringify(specifier)} is neither an npm package name nor a path.`,
    fix: 'name an installed package ("@acme/mcp-weather") or a path starting with ./, ../ or / ("./plugins/clock").',
  };
}
