/**
 * Finding a plugin package the way Node would from the config file's
 * directory (DESIGN.md: "`npm install` next to the config is all it takes"):
 * a package name through the node_modules directories Node looks in, or a
 * local path relative to the config. Reads files only; runs no plugin code.
 */
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { closestMatch, endSentence } from '../config/problem-wording.js';
import { isLocalPath } from '../config/package-specifier.js';
import { describeThrown, HostError } from '../errors.js';
import { isPlainObject } from '../plain-object.js';
import { readPackageJson } from './package-json-cache.js';

export interface ResolvedPackage {
  /** The package as the config names it: `@acme/mcp-weather`, `./plugins/clock`. */
  specifier: string;
  /** The real directory holding the package's package.json (symlinks, as npm workspaces make, resolved). */
  dir: string;
  packageJson: Record<string, unknown>;
  /** A hash of the package.json's text: changes when the package is upgraded or edited. */
  packageJsonHash: string;
  /** The name messages use: the package's own name, else the specifier. */
  label: string;
}

/** The conditions Node's ES module loader matches in an `exports` map. */
const IMPORT_CONDITIONS = ['node', 'import', 'default'];

/**
 * Find the package `specifier` names, looking from `configDir`. `where` places
 * the entry in the config for the error a missing package gets.
 */
export function resolvePackage(specifier: string, configDir: string, where: string): ResolvedPackage {
  const dir = isLocalPath(specifier)
    ? findLocalPackage(specifier, configDir, where)
    : findInstalled(specifier, configDir, where);
  const packageJsonFile = join(dir, 'package.json');
  const repair = isLocalPath(specifier) ? 'correct it.' : `reinstall the package: npm install ${specifier}`;
  const { hash, parsed } = readPackageJson(packageJsonFile);
  if ('error' in parsed) {
    throw new HostError({
      where,
      what: `the package.json of "${specifier}" (${packageJsonFile}) is not valid JSON: ${endSentence(describeThrown(parsed.error))}`,
      fix: repair,
    });
  }
  const packageJson = parsed.value;
  if (!isPlainObject(packageJson)) {
    throw new HostError({
      where,
      what: `the package.json of "${specifier}" (${packageJsonFile}) is not a JSON object.`,
      fix: repair,
    });
  }
  const record = packageJson as Record<string, unknown>;
  return {
    specifier,
    dir: realpathSync.native(dir),
    packageJson: record,
    packageJsonHash: hash,
    label: typeof record.name === 'string' ? record.name : specifier,
  };
}

/**
 * The module a plugin package exports to `import`: its `exports` map's "."
 * entry under Node's import conditions, else `main`, else index.js. Throws a
 * HostError (placed at `where`) when there is none or it is not on disk.
 */
export function resolveEntryFile(pkg: ResolvedPackage, where: string): string {
  const exportsField = pkg.packageJson.exports;
  const target = exportsField !== undefined ? pickTarget(rootExport(exportsField)) : legacyMain(pkg);
  const reinstall = isLocalPath(pkg.specifier)
    ? `build the package in ${pkg.dir}, or correct its package.json.`
    : `reinstall it: npm install ${pkg.specifier}`;
  if (target === undefined) {
    throw new HostError({
      where,
      what: `"${pkg.label}" exports no module to import: its package.json has no "exports" entry for ".", no "main", and there is no index.js.`,
      fix: reinstall,
    });
  }
  const file = resolve(pkg.dir, target);
  const field = exportsField !== undefined ? 'exports' : 'main';
  if (liesOutside(pkg.dir, file)) {
    throw new HostError({
      where,
      what: `"${pkg.label}" ${field === 'exports' ? 'exports' : 'has main'} ${target}, which lies outside the package (${file}).`,
      fix: `a package's ${field} must name a file inside its own directory (${pkg.dir}), as Node requires: correct its package.json, or reinstall it.`,
    });
  }
  if (!existsSync(file)) {
    throw new HostError({
      where,
      what: `"${pkg.label}" exports ${target}, which does not exist (${file}).`,
      fix: reinstall,
    });
  }
  return file;
}

/** Whether `file` (absolute) escapes the package directory `dir`, by `..` or by being elsewhere. */
export function liesOutside(dir: string, file: string): boolean {
  const path = relative(dir, file);
  return path === '..' || path.startsWith(`..${sep}`) || isAbsolute(path);
}

/** Without `exports`, Node's ES module loader tries `main` as a file, with .js, as a directory, then index.js. */
function legacyMain(pkg: ResolvedPackage): string | undefined {
  const main = typeof pkg.packageJson.main === 'string' ? pkg.packageJson.main : undefined;
  const candidates = main === undefined ? ['index.js'] : [main, `${main}.js`, join(main, 'index.js'), 'index.js'];
  return candidates.find((candidate) => statSync(join(pkg.dir, candidate), { throwIfNoEntry: false })?.isFile());
}

function findLocalPackage(specifier: string, configDir: string, where: string): string {
  const dir = resolve(configDir, specifier);
  if (!existsSync(join(dir, 'package.json'))) {
    throw new HostError({
      where,
      what: existsSync(dir)
        ? `the local package "${specifier}" has no package.json (${dir}).`
        : `the local package "${specifier}" does not exist (${dir}).`,
      fix: `check the path: a relative path starts from the config's directory, ${configDir}.`,
    });
  }
  return dir;
}

/**
 * Node's own lookup directories for a bare name (each node_modules from the
 * config's directory up, then the global folders), searched for the
 * package's directory. Asking for package.json itself would fail for a
 * package whose `exports` does not list it, so its presence is checked directly.
 */
function findInstalled(name: string, configDir: string, where: string): string {
  // The paths a module in the config's directory would search; that module need not exist.
  const lookupDirs = createRequire(join(configDir, 'mcp-host.config.js')).resolve.paths(name) ?? [];
  const dir = lookupDirs
    .map((nodeModules) => join(nodeModules, name))
    .find((candidate) => existsSync(join(candidate, 'package.json')));
  if (dir === undefined) {
    // A misspelled name is the likelier mistake, and its install command could fetch someone else's package.
    const guess = closestMatch(name, installedNames(lookupDirs));
    const install = `npm install ${name} in ${configDir}`;
    throw new HostError({
      where,
      what: `the package "${name}" is not installed: no ${join('node_modules', name)} in ${configDir} or the directories above it.`,
      fix: guess
        ? `did you mean "${guess}" (installed)? If "${name}" is the package you want, run ${install}.`
        : `run ${install}.`,
    });
  }
  return dir;
}

/** The packages in `lookupDirs` (node_modules directories, nearest first), scoped ones as `@scope/name`. */
function installedNames(lookupDirs: readonly string[]): string[] {
  const entries = (dir: string) => {
    try {
      return readdirSync(dir).filter((entry) => !entry.startsWith('.'));
    } catch {
      return [];
    }
  };
  return lookupDirs.flatMap((nodeModules) =>
    entries(nodeModules).flatMap((entry) =>
      entry.startsWith('@') ? entries(join(nodeModules, entry)).map((scoped) => `${entry}/${scoped}`) : [entry],
    ),
  );
}

/** The "." entry of an `exports` field: a bare target or conditions object stands for "." itself. */
function rootExport(exportsField: unknown): unknown {
  if (isPlainObject(exportsField)) {
    const subpaths = exportsField as Record<string, unknown>;
    return Object.keys(subpaths).some((key) => key.startsWith('.')) ? subpaths['.'] : subpaths;
  }
  return exportsField;
}

/** The file a target selects for `import`: conditions in their written order, the first match of an array. */
function pickTarget(target: unknown): string | undefined {
  if (typeof target === 'string') return target.startsWith('./') ? target : undefined;
  if (Array.isArray(target)) {
    for (const candidate of target) {
      const picked = pickTarget(candidate);
      if (picked !== undefined) return picked;
    }
    return undefined;
  }
  if (typeof target === 'object' && target !== null) {
    for (const [condition, candidate] of Object.entries(target)) {
      if (!IMPORT_CONDITIONS.includes(condition)) continue;
      const picked = pickTarget(candidate);
      if (picked !== undefined) return picked;
    }
  }
  return undefined;
}
