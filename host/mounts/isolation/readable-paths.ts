import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, isAbsolute, join, relative, sep } from 'node:path';
import { COMPILED_CODE_DIR, PACKAGE_ROOT, RUNNING_CODE_DIR } from '../../code-location.js';
import { isNpmName } from '../../config/package-specifier.js';
import { isPlainObject } from '../../plain-object.js';

import type { Logger } from '../../log.js';

/** A dependency a plugin's package names that it is not let read, and why. */
export interface RefusedDependency {
  /** The name as its package.json gives it. */
  name: string;
  /** The package that names it (its real directory). */
  of: string;
  why: string;
}

/**
 * What a plugin in a process of its own may read: its package, the
 * packages it depends on, and of the host's own code only what its side of
 * the link runs (process-entry.ts and what that imports). Never the
 * config's directory, the operator's files, or /proc.
 *
 * A dependency is a name its package.json lists, and that package.json is
 * the plugin author's to write: a "name" such as `../..`, or one installed
 * as a link to the operator's project (`file:../..`), would hand over the
 * config and what lies beside it. So only npm package names count, found
 * in a node_modules directory (not Node's global folders), and never when
 * the package is the config's directory or one of its ancestors. Each is
 * granted by its link and its real path: Node's permission model checks a
 * path as Node asks for it (the link that pnpm and npm workspaces put in
 * node_modules), then loads the module from its real path. What is
 * refused is reported to `refused` and left unreadable.
 */
export function readablePaths(
  packageDir: string,
  configDir: string,
  refused: (dependency: RefusedDependency) => void,
): string[] {
  const forbidden = realpathSync.native(configDir);
  const dirs = new Set<string>();
  const links = new Set<string>();
  const grant = (name: string, from: string): void => {
    const found = grantedDependency(name, from, forbidden);
    if (typeof found === 'string') {
      refused({ name, of: from, why: found });
    } else if (found) {
      links.add(found.link);
      visit(found.real);
    }
  };
  const visit = (dir: string): void => {
    if (dirs.has(dir)) return;
    dirs.add(dir);
    for (const name of dependencyNames(dir)) if (name !== HOST_PACKAGE) grant(name, dir);
  };
  visit(realpathSync.native(packageDir));
  for (const name of HOST_LINK_PACKAGES) grant(name, HOST_ROOT);
  // The host's package.json tells Node its code is ES modules.
  return [...new Set([...dirs, ...links, ...HOST_CODE]), join(HOST_ROOT, 'package.json')];
}

/**
 * The host's code a plugin's process runs or imports: the build running (its entries and what they import; the
 * bundle, as the bin runs it) and tsc's build, where the package's exports point (`mcp-host/plugin`). Never the
 * package's root: code-location.ts says why a path is not found from this file's own location.
 */
const HOST_CODE = new Set([RUNNING_CODE_DIR, COMPILED_CODE_DIR].map((dir) => realpathSync.native(dir)));
/** The host's installed package, where its package.json is. */
const HOST_ROOT = realpathSync.native(PACKAGE_ROOT);
/** The packages the plugin's side of the link imports from outside the host's code: the SDK and the logger. */
const HOST_LINK_PACKAGES = ['@modelcontextprotocol/server', 'pino'];
/** The host itself, which plugins name as a peer dependency: only its link code (HOST_CODE) is readable. */
const HOST_PACKAGE = 'mcp-host';

/**
 * Where package `name` is, as Node finds it from `dir` (its link and its
 * real directory), if installed (an optional one may not be) and let be
 * read; else why not.
 */
function grantedDependency(
  name: string,
  dir: string,
  forbidden: string,
): { link: string; real: string } | string | undefined {
  if (!isNpmName(name)) return 'it is not an npm package name, so it could name any directory';
  const lookupDirs = createRequire(join(dir, 'package.json')).resolve.paths(name) ?? [];
  const lookupDir = lookupDirs.find((d) => existsSync(join(d, name, 'package.json')));
  if (lookupDir === undefined) return undefined;
  const link = join(lookupDir, name);
  if (basename(lookupDir) !== 'node_modules') return `it was found at ${link}, outside any node_modules directory`;
  const real = realpathSync.native(link);
  if (holds(real, forbidden) || holds(link, forbidden)) {
    return `it resolves to ${real}, which holds the config's directory (${forbidden}) and the operator's files`;
  }
  return { link, real };
}

/** Whether `dir` is `inner` or one of its ancestors. */
function holds(dir: string, inner: string): boolean {
  const path = relative(dir, inner);
  return path === '' || (path !== '..' && !path.startsWith('..' + sep) && !isAbsolute(path));
}

/** Every package `dir`'s package.json names as a dependency, optional or peer: those it may import. */
function dependencyNames(dir: string): string[] {
  let packageJson: unknown;
  try {
    packageJson = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  } catch {
    return [];
  }
  if (!isPlainObject(packageJson)) return [];
  const fields = [packageJson.dependencies, packageJson.optionalDependencies, packageJson.peerDependencies];
  return fields.flatMap((field) => (isPlainObject(field) ? Object.keys(field) : []));
}

/** Tell the operator of a dependency an isolated plugin or server may not read: suspicious, so at warn. */
export function warnOfRefusedDependency(logger: Logger): (dependency: RefusedDependency) => void {
  return ({ name, of, why }) =>
    logger.warn(
      { dependency: name, package: of },
      `its process may not read dependency ${JSON.stringify(name)} of ${of}: ${why}. Fix: install it under its npm name into node_modules (npm install), not as a link to the operator's directories; grant what the plugin must read in the entry's allow.read.`,
    );
}
