import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isPlainObject } from '../../plain-object.js';

/**
 * What a plugin in a process of its own may read: its package, the real
 * directories of the packages it depends on (followed through symlinks, as
 * npm workspaces and pnpm install them, since Node loads a module from its
 * real path), and of the host's own code only what its side of the link
 * runs (process-entry.ts and what that imports). Never the config's
 * directory, the operator's files, or /proc.
 */
export function readablePaths(packageDir: string): string[] {
  const dirs = new Set<string>();
  addWithDependencies(realpathSync.native(packageDir), dirs);
  for (const name of HOST_LINK_PACKAGES) {
    const dir = installedDir(name, HOST_ROOT);
    if (dir) addWithDependencies(dir, dirs);
  }
  // The host's package.json tells Node its code is ES modules.
  return [...dirs, HOST_CODE, join(HOST_ROOT, 'package.json')];
}

/** The host's installed package (where its package.json is) and its built code (dist/host). */
const HOST_CODE = realpathSync.native(fileURLToPath(new URL('../..', import.meta.url)));
const HOST_ROOT = dirname(dirname(HOST_CODE));
/** The packages the plugin's side of the link imports from outside the host's code: the SDK and the logger. */
const HOST_LINK_PACKAGES = ['@modelcontextprotocol/server', 'pino'];
/** The host itself, which plugins name as a peer dependency: only its link code (HOST_CODE) is readable. */
const HOST_PACKAGE = 'mcp-host';

function addWithDependencies(dir: string, dirs: Set<string>): void {
  if (dirs.has(dir)) return;
  dirs.add(dir);
  for (const name of dependencyNames(dir)) {
    const found = name === HOST_PACKAGE ? undefined : installedDir(name, dir);
    if (found) addWithDependencies(found, dirs);
  }
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

/** The real directory of package `name` as Node finds it from `dir`, if installed (an optional one may not be). */
function installedDir(name: string, dir: string): string | undefined {
  const lookupDirs = createRequire(join(dir, 'package.json')).resolve.paths(name) ?? [];
  const found = lookupDirs
    .map((nodeModules) => join(nodeModules, name))
    .find((d) => existsSync(join(d, 'package.json')));
  return found && realpathSync.native(found);
}
