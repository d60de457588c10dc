import { createHmac, timingSafeEqual } from 'node:crypto';
import { deriveKey } from './peer-auth.js';

/**
 * A value a replica puts in Redis for the others to act on (an address, a
 * session's owner, a token's session, a cluster command or its answer),
 * sealed with a MAC under a key derived from the cluster secret. The MAC
 * binds the value to the Redis key (or channel) it was written under and to
 * an expiry, so a sealed value cannot be moved to another key, nor kept
 * alive past its time: whoever can write to Redis but holds no secret can
 * delete or replay a record, never make one (DESIGN.md, "Scale").
 *
 * The form is `EXPIRES.MAC.VALUE`: the value last, so it may hold dots.
 */
export class RecordSeal {
  constructor(private readonly key: Buffer) {}

  /** `value`, sealed for `where` (its Redis key or channel) until `expiresAt` (ms since the epoch). */
  seal(where: string, value: string, expiresAt: number): string {
    const expires = String(expiresAt);
    return `${expires}.${this.mac(where, expires, value)}.${value}`;
  }

  /** The value a record sealed for `where` holds, or why it is not to be followed. */
  open(where: string, record: string): { value: string; expiresAt: number } | { refused: string } {
    const first = record.indexOf('.');
    const second = record.indexOf('.', first + 1);
    if (first < 0 || second < 0) return { refused: 'it is not a sealed record' };
    const expires = record.slice(0, first);
    const mac = Buffer.from(record.slice(first + 1, second));
    const value = record.slice(second + 1);
    const expected = Buffer.from(this.mac(where, expires, value));
    if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) {
      return { refused: 'its signature does not match this cluster’s key for that key name' };
    }
    const expiresAt = Number(expires);
    if (!(expiresAt > Date.now())) return { refused: 'it expired (an old record written again)' };
    return { value, expiresAt };
  }

  private mac(where: string, expires: string, value: string): string {
    return createHmac('sha256', this.key).update(`${where}\n${expires}\n${value}`).digest('base64url');
  }
}

/** The seal of every record the cluster's replicas (and its CLI) put in Redis. */
export function recordSealOf(secret: string, cluster: string): RecordSeal {
  return new RecordSeal(deriveKey(secret, cluster, 'records'));
}
