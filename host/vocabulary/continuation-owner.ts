/**
 * Which replica holds the call a 2026-07-28 `requestState` continues. The
 * host's states name it in the clear, ahead of the signed token, so that
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
