import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';

/** A package.json as read: its text's hash, and its parsed value (or why it did not parse). */
export interface PackageJsonRead {
  hash: string;
  parsed: { value: unknown } | { error: unknown };
}

interface Cached {
  /** The file's identity when read: any write (an `npm install` upgrade, an edit) changes one of these. */
  stamp: string;
  read: PackageJsonRead;
}

/**
 * package.json files by path, kept across reloads. A reload resolves every
 * plugin again, but most packages are untouched: one `stat` tells, where a
 * read, a hash and a parse per plugin made half of a 100-plugin reload.
 * The parsed value is shared, so callers only read it. Read in place: a
 * start resolves every plugin at once, and a stat and a small read each cost
 * less that way than as five promises through the thread pool.
 */
const cache = new Map<string, Cached>();

export function readPackageJson(file: string): PackageJsonRead {
  const { mtimeMs, ctimeMs, size, ino } = statSync(file);
  const stamp = `${mtimeMs}:${ctimeMs}:${size}:${ino}`;
  const cached = cache.get(file);
  if (cached?.stamp === stamp) return cached.read;
  const text = readFileSync(file, 'utf8');
  let parsed: PackageJsonRead['parsed'];
  try {
    parsed = { value: JSON.parse(text) };
  } catch (error) {
    parsed = { error };
  }
  const read = { hash: createHash('sha256').update(text).digest('hex'), parsed };
  cache.set(file, { stamp, read });
  return read;
}
