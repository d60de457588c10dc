import { createHash } from 'node:crypto';
import { readdirSync, statSync, type Stats } from 'node:fs';
import { dirname, extname, join, relative, sep } from 'node:path';
import type { PluginSpec } from './types.js';

/** Past this many files a package is not walked: it is imported fresh every time. */
const MAX_FILES = 10_000;
let uncounted = 0;

/**
 * The modification times of the node_modules directories above packages, by
 * path, for one build: its plugins mostly share them, so each is read once.
 */
export type DirectoryStamps = Map<string, number>;

/**
 * The tag a plugin's code is imported under (see fresh-import.ts): a hash of
 * the size and modification time of every file of the package's own (not
 * of packages installed inside it, nor of dot-directories such as .git), and
 * of the node_modules directories its imports resolve from: an import that
 * failed for want of a dependency (Node keeps the failure cached with the
 * module) is tried afresh once `npm install` has changed them.
 *
 * Node never frees a module, so every fresh import of a plugin stays in
 * memory for the life of the host. Tagging by what is on disk rather than by
 * reload means a plugin re-created with the same code (its options changed,
 * it was removed and added back, a refused reload is retried) reuses the
 * modules already loaded, while any change to its files (an npm upgrade, an
 * edit in place) is loaded fresh. Memory then grows with the number of
 * distinct versions of a plugin loaded, not with the number of reloads.
 *
 * Synchronous: a start or reload walks every plugin at once, and a few
 * dozen metadata reads per package cost less done in place than as so many
 * promises through the thread pool (27 ms of a 100-plugin start's profile
 * as promises, 10 ms in place).
 */
export function codeIdentity(spec: PluginSpec, stamps: DirectoryStamps = new Map()): string {
  if (spec.kind !== 'in-process') return spec.fingerprint;
  const files = ownFileStamps(spec.packageDir);
  // Unreadable or huge: fresh every time is always correct, only costlier.
  if (files === undefined) return `unwalked-${++uncounted}`;
  const stamp = (path: string): number => {
    let mtime = stamps.get(path);
    if (mtime === undefined) {
      mtime = statOf(path)?.mtimeMs ?? -1;
      stamps.set(path, mtime);
    }
    return mtime;
  };
  for (let dir = spec.packageDir; dirname(dir) !== dir; dir = dirname(dir)) {
    for (const path of [join(dir, 'node_modules'), join(dir, 'node_modules', '.package-lock.json')]) {
      files.push(`${path}\0${stamp(path)}`);
    }
  }
  return createHash('sha256').update(spec.entryFile).update('\n').update(files.join('\n')).digest('hex').slice(0, 16);
}

/**
 * Whether a package is code its author edits in place: a local path, or a
 * package linked into node_modules (`npm install ../weather`, `npm link`,
 * a workspace), whose real directory lies outside every node_modules. npm
 * replaces an installed package's directory and its package.json with it;
 * an author saves one file of a local or linked one, which only its files'
 * stamps show.
 */
export function isEditedInPlace(realPackageDir: string): boolean {
  return !realPackageDir.split(sep).includes('node_modules');
}

/**
 * A hash of the size and modification time of the package's source files
 * (`sourceFiles`): what changes when its author saves one, `touch`es its
 * package.json, or rebuilds it. Part of the fingerprint of a package edited
 * in place, so that a reload replaces such a plugin, and only such a
 * plugin, once its code changed.
 */
export function sourceStamp(packageDir: string): string {
  const files = sourceFiles(packageDir)?.map(stampOf(packageDir)) ?? [`unwalked-${++uncounted}`];
  return createHash('sha256').update(files.join('\n')).digest('hex').slice(0, 16);
}

/** What a package's code is written in: what Node loads, and TypeScript compiled or stripped into it. */
const SOURCE_EXTENSIONS = new Set(['.js', '.mjs', '.cjs', '.jsx', '.ts', '.mts', '.cts', '.tsx', '.node', '.wasm']);

/**
 * The package's package.json and its own files of code (by extension: not
 * data files, which a plugin may well write into its own directory, where
 * each write would otherwise replace it): what its author edits, and what
 * the host watches of a package edited in place.
 */
export function sourceFiles(packageDir: string): string[] | undefined {
  const manifest = join(packageDir, 'package.json');
  return ownFiles(packageDir)?.filter((file) => file === manifest || SOURCE_EXTENSIONS.has(extname(file)));
}

/**
 * The package's own files, absolute (not those of packages installed inside
 * it, nor of dot-directories such as .git). Undefined when the package
 * cannot be walked or holds more than MAX_FILES.
 */
function ownFiles(packageDir: string): string[] | undefined {
  const files: string[] = [];
  const walk = (dir: string): void => {
    const entries = readdirSync(dir, { withFileTypes: true });
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && !entry.name.startsWith('.')) walk(path);
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        if (files.length >= MAX_FILES) throw new RangeError('too many files');
        files.push(path);
      }
    }
  };
  try {
    walk(packageDir);
  } catch {
    return undefined;
  }
  return files;
}

/** Each own file of the package as `path size mtime`, relative to it. */
function ownFileStamps(packageDir: string): string[] | undefined {
  return ownFiles(packageDir)?.map(stampOf(packageDir));
}

/** A file of the package as `path size mtime`, its path relative to the package. */
function stampOf(packageDir: string): (path: string) => string {
  return (path) => {
    const { size, mtimeMs } = statOf(path) ?? { size: -1, mtimeMs: -1 };
    return `${relative(packageDir, path)}\0${size}\0${mtimeMs}`;
  };
}

/** The file's stats, or undefined when it cannot be read (gone, unreadable): a change either way. */
function statOf(path: string): Stats | undefined {
  try {
    // Most node_modules directories looked for are absent: no error built for each.
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
