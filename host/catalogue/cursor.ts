import { ErrorCode, RpcError } from '../rpc-error.js';

/**
 * The host's own list cursors. A cursor only means something to the server
 * that minted it, so the host never hands a client a mount's cursor: it
 * mints its own, naming the generation, the mount being resumed and that
 * mount's own cursor (plus how many items of that mount's page were already
 * served, when the host pages its own output with `pageSize`).
 *
 * A cursor the host did not issue, or one from a generation that a reload
 * replaced, is refused with -32602: restarting from the beginning instead
 * would hand the client duplicates it cannot detect.
 */
export interface CursorState {
  /** Generation id. */
  g: number;
  /** Index of the mount being resumed. */
  m: number;
  /** That mount's own cursor for the page being resumed; absent for its first page. */
  c?: string;
  /** Items of that page already served. */
  o?: number;
}

const TAG = 'mh1.';

export function encodeCursor(state: CursorState): string {
  return TAG + Buffer.from(JSON.stringify(state)).toString('base64url');
}

export function decodeCursor(cursor: string, generation: number, mountCount: number): CursorState {
  const state = parse(cursor);
  if (!state) {
    throw new RpcError(
      ErrorCode.InvalidParams,
      `Invalid cursor "${truncate(cursor)}": mcp-host did not issue it. Fix: pass the nextCursor of the previous page unchanged, or omit cursor to start from the first page.`,
    );
  }
  if (state.g !== generation || state.m >= mountCount) {
    throw new RpcError(
      ErrorCode.InvalidParams,
      'Expired cursor: the catalogue was reloaded since this listing began. Fix: list again from the first page (omit cursor).',
    );
  }
  return state;
}

function parse(cursor: string): CursorState | undefined {
  if (!cursor.startsWith(TAG)) return undefined;
  try {
    const value = JSON.parse(Buffer.from(cursor.slice(TAG.length), 'base64url').toString('utf8')) as CursorState;
    const wellFormed =
      Number.isInteger(value.g) &&
      Number.isInteger(value.m) &&
      value.m >= 0 &&
      (value.c === undefined || typeof value.c === 'string') &&
      (value.o === undefined || (Number.isInteger(value.o) && value.o >= 0));
    return wellFormed ? value : undefined;
  } catch {
    return undefined;
  }
}

function truncate(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
