import { createHash } from 'node:crypto';

/** A static bearer token and the name access rules and audit records know it by. */
export interface NamedToken {
  name: string;
  token: string;
}

/** `name:token`: a name of letters, digits, `_`, `.` and `-`, at most 64, before the first colon. */
const NAMED = /^([A-Za-z0-9_.-]{1,64}):(.+)$/s;

/**
 * An `http.auth` token entry as given (`ci:3f9a…`, or the token alone) with
 * its name. An unnamed token is named `token-` and the first 8 hex digits of
 * its SHA-256: stable across restarts and replicas, and telling nothing of
 * the token.
 */
export function namedToken(entry: string): NamedToken {
  const named = NAMED.exec(entry);
  if (named) return { name: named[1]!, token: named[2]! };
  return { name: tokenId(entry), token: entry };
}

/**
 * Which one token it is, as sessions are counted and messages name it:
 * `token-` and the first 8 hex digits of its SHA-256. The name of a token
 * given without one; a named token's, whose name several tokens may share.
 */
export function tokenId(token: string): string {
  return `token-${createHash('sha256').update(token).digest('hex').slice(0, 8)}`;
}

/** The tokens in `text`, separated by commas or line ends (empty entries ignored): a variable's or a tokens file's. */
export function tokensIn(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((token) => token.trim())
    .filter((token) => token.length > 0);
}
