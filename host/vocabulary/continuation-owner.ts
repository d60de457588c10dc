import { isPlainObject } from '../plain-object.js';
import { TASK_REQUESTS } from './task-extension.js';

/**
 * Which replica holds the call a 2026-07-28 `requestState` continues, or
 * the task a task ID the host handed out names. The host's states and task
 * IDs name it in the clear, ahead of the signed token, so that
 * any replica can route a retry without verifying it; the signed payload
 * names it again, and the replica that verifies the state checks that it
 * is the one (a forged prefix only sends the retry to a replica that
 * refuses it).
 */
const MARKER = 'mcph.';

/** The key a continuation's state is signed with, and the replica that holds the call. */
export interface StateSigning {
  key: Buffer;
  replica: string;
}

export function withOwner(replica: string, token: string): string {
  return `${MARKER}${replica}.${token}`;
}

/** The replica and the signed token of a host-issued state; undefined for anything else (an upstream's own state). */
export function ownerOf(state: string): { replica: string; token: string } | undefined {
  if (!state.startsWith(MARKER)) return undefined;
  const end = state.indexOf('.', MARKER.length);
  if (end < 0) return undefined;
  return { replica: state.slice(MARKER.length, end), token: state.slice(end + 1) };
}

/**
 * The replica holding what a 2026-07-28 request continues, named in the
 * clear by the host's own IDs: a retry's
 * `requestState` names the replica waiting on its call, a task follow-up's
 * `taskId` (a handle, task-handles.ts) the replica holding the task's
 * binding to its mount. `what` says which, for messages. Undefined for
 * anything else (an upstream's own state, a made-up task ID).
 */
export function holderOf(message: unknown): { replica: string; what: string } | undefined {
  if (!isPlainObject(message) || !isPlainObject(message.params)) return undefined;
  const { requestState, taskId } = message.params;
  if (typeof requestState === 'string') {
    const owner = ownerOf(requestState);
    return owner && { replica: owner.replica, what: 'the call this requestState continues' };
  }
  const method = String(message.method);
  if (!(TASK_REQUESTS as readonly string[]).includes(method) || typeof taskId !== 'string') return undefined;
  // A handle presented to another replica than its own is checked there: its owner, expiry and mount.
  const owner = ownerOf(taskId);
  return owner && { replica: owner.replica, what: `the task this ${method} follows up` };
}
