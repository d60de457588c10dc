import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * A caller's access token, encrypted (AES-256-GCM) for the replica a
 * request is forwarded to, under a key derived from the cluster secret
 * (peer-auth.ts `deriveKey`). The owner of a session makes the calls, so a
 * mount that exchanges each caller's token (RFC 8693) needs it there; the
 * stamp that carries it is readable by whoever sees the traffic between
 * replicas, so the token goes sealed: only a holder of the cluster secret
 * can read it, and `bound` (the stamp's nonce and target) ties it to the
 * one stamp it was sealed for.
 *
 * The form is base64url of IV, ciphertext, tag.
 */
export class TokenSeal {
  constructor(private readonly key: Buffer) {}

  seal(token: string, bound: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv).setAAD(Buffer.from(bound));
    const sealed = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
  }

  /** The token sealed for `bound`, or undefined when it was not sealed under this key for it. */
  open(sealed: string, bound: string): string | undefined {
    const bytes = Buffer.from(sealed, 'base64url');
    if (bytes.length <= IV_BYTES + TAG_BYTES) return undefined;
    const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES))
      .setAAD(Buffer.from(bound))
      .setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, -TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}
