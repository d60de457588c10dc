import { isPlainObject } from '../plain-object.js';

/** A 2026-07-28 result's caching hint: how long a client may reuse it, and whether shared caches may. */
export interface CacheHint {
  ttlMs: number;
  cacheScope: 'public' | 'private';
}

/**
 * What may be promised about an answer that carries no hint (a 2025-era
 * upstream's): nothing. The SDK says the same of a 2026-07-28 result
 * without one.
 */
export const NO_PROMISE: CacheHint = { ttlMs: 0, cacheScope: 'private' };

/**
 * The longest a composed list is promised for, whatever its parts promise:
 * a reload can change any composed list at any time. Clients that follow
 * `list_changed` hear of it at once; this bounds how stale the others get.
 */
export const COMPOSED_TTL_CAP_MS = 60_000;

/** The hint an upstream's result carries, or undefined when it carries none (or a malformed one). */
export function hintOf(result: unknown): CacheHint | undefined {
  if (!isPlainObject(result)) return undefined;
  const { ttlMs, cacheScope } = result;
  if (typeof ttlMs !== 'number' || !Number.isInteger(ttlMs) || ttlMs < 0) return undefined;
  if (cacheScope !== 'public' && cacheScope !== 'private') return undefined;
  return { ttlMs, cacheScope };
}

/**
 * The hint of an answer composed of parts: no longer than its shortest-lived
 * part (nor the cap), and private if any part is. A part without a hint
 * promises nothing, so neither does the whole.
 */
export function composedHint(parts: readonly (CacheHint | undefined)[]): CacheHint {
  let ttlMs = COMPOSED_TTL_CAP_MS;
  let cacheScope: CacheHint['cacheScope'] = 'public';
  for (const part of parts) {
    const hint = part ?? NO_PROMISE;
    ttlMs = Math.min(ttlMs, hint.ttlMs);
    if (hint.cacheScope === 'private') cacheScope = 'private';
  }
  return { ttlMs, cacheScope };
}
