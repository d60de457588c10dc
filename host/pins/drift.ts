import type { ListItem } from '../vocabulary/list-kinds.js';
import type { Problem } from '../errors.js';
import { stableJson } from '../stable-json.js';
import { DEFINITION_FIELDS, LOCK_FILE_NAME, pin, type Lock, type PinnedKind } from './lock.js';

/** How a served definition differs from the lock. */
export interface Drift {
  kind: PinnedKind;
  /** The name clients see. */
  name: string;
  /** 'changed': pinned under this name with other fields; 'unpinned': not in the lock at all. */
  status: 'changed' | 'unpinned';
  /** The pinned fields that differ (for 'changed'). */
  fields: string[];
}

/** Whether a served item matches what the lock pinned for it on this mount. */
export function judgeDrift(lock: Lock, mountName: string, kind: PinnedKind, item: ListItem): Drift | undefined {
  const name = String(item.name);
  const pinned = lock.mounts[mountName]?.[kind]?.[name];
  const served = pin(kind, item);
  if (!pinned) return { kind, name, status: 'unpinned', fields: [] };
  if (pinned.hash === served.hash) return undefined;
  const fields = DEFINITION_FIELDS[kind].filter(
    (field) => stableJson(pinned.definition[field]) !== stableJson(served.definition[field]),
  );
  return { kind, name, status: 'changed', fields };
}

/** `tool "gh.search" changed since mcp-host.lock.json (description, inputSchema)`. */
export function describeDrift(drift: Drift): string {
  const noun = drift.kind === 'tools' ? 'tool' : 'prompt';
  return drift.status === 'unpinned'
    ? `${noun} "${drift.name}" is not pinned in ${LOCK_FILE_NAME}`
    : `${noun} "${drift.name}" changed since it was pinned in ${LOCK_FILE_NAME} (${drift.fields.join(', ') || 'its definition'})`;
}

/** What to do about drift: look, then pin again. */
export const DRIFT_FIX = 'review the change (mcp-host pin --diff), then run mcp-host pin and reload the host.';

/** A drift as `check`, `reload` and the log report it. */
export function driftProblem(where: string, drift: Drift, withheld: boolean): Problem {
  return {
    where,
    what: `${describeDrift(drift)}; ${withheld ? "withheld from clients (pins: 'refuse')" : "served anyway (pins: 'warn')"}.`,
    fix: DRIFT_FIX,
  };
}

/**
 * How one value became another, as lines `path: before -> after`: a schema
 * is walked down to the properties that changed, so a reviewer sees "a new
 * required argument", not two walls of JSON.
 */
export function valueChanges(path: string, before: unknown, after: unknown): string[] {
  if (stableJson(before) === stableJson(after)) return [];
  if (before === undefined) return [`${path}: added ${show(after)}`];
  if (after === undefined) return [`${path}: removed (was ${show(before)})`];
  const bothObjects = isObjectLike(before) && isObjectLike(after) && Array.isArray(before) === Array.isArray(after);
  if (!bothObjects) return [`${path}: ${show(before)} -> ${show(after)}`];
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return keys.flatMap((key) =>
    valueChanges(
      Array.isArray(before) ? `${path}[${key}]` : `${path}.${key}`,
      (before as Record<string, unknown>)[key],
      (after as Record<string, unknown>)[key],
    ),
  );
}

function isObjectLike(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function show(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}
