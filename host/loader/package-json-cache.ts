import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';

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
 * The parsed value is shared, so callers only read it.
 */
const cache = new Map<string, Cached>();

export async function readPackageJson(file: string): Promise<PackageJsonRead> {
  const { mtimeMs, ctimeMs, size, ino } = await stat(file);
  const stamp = `${mtimeMs}:${ctimeMs}:${size}:${ino}`;
  const cached = cache.get(file);
  if (cached?.stamp === stamp) return cached.read;
  const text = await readFile(file, 'utf8');
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
