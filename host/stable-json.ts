import { isPlainObject } from './plain-object.js';

/**
 * JSON with object keys sorted, so that key order does not change what it
 * hashes to: a config entry's fingerprint, a pinned tool definition.
 */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    isPlainObject(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}
