import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeThrown, HostError } from '../errors.js';

/**
 * Install scripts (`preinstall`, `install`, `postinstall`) are a package's
 * code, run by npm as the operator before anything has checked the package.
 * `mcp-host add` installs with them off and runs them only for a package
 * that passed its check, when asked (`--allow-scripts`); otherwise it says
 * which packages have them and how to run them.
 */

interface LockedPackage {
  name?: string;
  resolved?: string;
  link?: boolean;
  hasInstallScript?: boolean;
}

/** The installed packages npm recorded as having install scripts (package-lock.json's `hasInstallScript`), by name. */
export function packagesWithInstallScripts(dir: string): Set<string> {
  const lockFile = join(dir, 'package-lock.json');
  const names = new Set<string>();
  if (!existsSync(lockFile)) return names;
  const { packages = {} } = JSON.parse(readFileSync(lockFile, 'utf8')) as { packages?: Record<string, LockedPackage> };
  for (const [path, locked] of Object.entries(packages)) {
    if (!locked.hasInstallScript) continue;
    if (path.includes(NODE_MODULES)) {
      names.add(nameAt(path));
      continue;
    }
    // A local directory npm linked: the link, under node_modules, has its name.
    for (const [linkPath, link] of Object.entries(packages)) {
      if (link.link && link.resolved === path) names.add(nameAt(linkPath));
    }
  }
  return names;
}

const NODE_MODULES = 'node_modules/';

/** The package name a lockfile path installs: `node_modules/a/node_modules/@b/c` → `@b/c`. */
function nameAt(path: string): string {
  return path.slice(path.lastIndexOf(NODE_MODULES) + NODE_MODULES.length);
}

/** Run the install scripts of `names` (installed in `dir` with scripts off), as npm would have: `npm rebuild`. */
export function runInstallScripts(names: string[], dir: string): void {
  const run = spawnSync('npm', ['rebuild', ...names], {
    cwd: dir,
    stdio: ['ignore', 2, 2],
    shell: process.platform === 'win32',
  });
  if (run.error || run.status !== 0) {
    throw new HostError({
      where: dir,
      what: `npm rebuild ${names.join(' ')}, which runs their install scripts, failed (${run.error ? describeThrown(run.error) : `exit ${run.status}`}); npm's reason is above. The entry is added.`,
      fix: `correct what npm names and run npm rebuild ${names.join(' ')} in ${dir} again.`,
    });
  }
}
