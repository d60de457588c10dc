import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { PeerStamp, StampedRequest } from '../sinks/cluster.js';
import type { Identity } from '../vocabulary/identity.js';
import { TokenSeal } from './token-seal.js';

/**
 * How far a stamp's time may be from the receiver's clock: forwarding is
 * immediate; replicas' clocks are kept within this of each other (NTP).
 */
export const STAMP_WINDOW_MS = 5_000;
const VERSION = '3';

/** A key for one use of the cluster secret, so no two uses share a key. */
export function deriveKey(secret: string, cluster: string, use: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, cluster, `mcp-host ${use}`, 32));
}

/** The SHA-256 of a request body's text, as a stamp carries it. */
export function bodyDigest(body: string): string {
  return createHash('sha256').update(body).digest('base64url');
}

/** Stamps a forwarded request's PEER_HEADER (sinks/cluster.ts) with the cluster's key, and checks one. */
export class PeerAuth {
  /** The nonces accepted within the window, each with when it may be forgotten (in insertion order: times only grow). */
  private readonly used = new Map<string, number>();

  private readonly tokens: TokenSeal;

  /** `self`: this replica's name, the target a stamp it accepts must name. */
  constructor(
    private readonly key: Buffer,
    private readonly self: string,
  ) {
    // Callers' tokens are sealed under a key of their own, derived from this one: no key serves two uses.
    this.tokens = new TokenSeal(Buffer.from(hkdfSync('sha256', key, '', 'mcp-host callerTokens', 32)));
  }

  /**
   * The header value for `request` (with `body`) forwarded to replica
   * `target` on behalf of `clientId`, who is `identity`: the owner replica
   * serves the request for the same identity this one verified. Its token
   * travels only sealed for the owner (token-seal.ts), which needs it when
   * a mount exchanges each caller's token: never readable on the wire.
   */
  stamp(
    request: StampedRequest,
    body: string,
    target: string,
    clientId: string | undefined,
    identity?: Identity,
  ): string {
    const { token, ...carried } = identity ?? {};
    const nonce = randomBytes(16).toString('base64url');
    const sealed = token === undefined ? [] : [this.tokens.seal(token, `${nonce}.${target}`)];
    const fields = [
      VERSION,
      String(Date.now()),
      nonce,
      this.self,
      target,
      Buffer.from(JSON.stringify(identity ? [clientId ?? '', carried, ...sealed] : [clientId ?? ''])).toString(
        'base64url',
      ),
      bodyDigest(body),
    ];
    return `${fields.join('.')}.${this.mac(fields, request)}`;
  }

  /** What a stamp says, once its MAC, its target and its time check out against `request`; else why it is refused. */
  check(value: string, request: StampedRequest): PeerStamp | { refused: string } {
    const fields = value.split('.');
    const mac = Buffer.from(fields.pop() ?? '');
    if (fields.length !== 7 || fields[0] !== VERSION) return { refused: 'it is not a stamp this version makes' };
    const expected = Buffer.from(this.mac(fields, request));
    if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) {
      return {
        refused:
          'its signature does not match this request (its method, path, session and body) under this cluster’s key (or MCP_HOST_CLUSTER_SECRET differs)',
      };
    }
    const [, sent, nonce, from, target, client, digest] = fields as [string, ...string[]];
    if (target !== this.self) return { refused: 'it was stamped for another replica' };
    const sentAt = Number(sent);
    if (!(Math.abs(Date.now() - sentAt) <= STAMP_WINDOW_MS)) {
      return {
        refused: `it was stamped more than ${STAMP_WINDOW_MS / 1000} s away from this replica's clock (a replay, or clocks out of step)`,
      };
    }
    // Made by a holder of the cluster's key (its MAC checked above): well-formed.
    const [clientId, identity, sealed] = JSON.parse(Buffer.from(client!, 'base64url').toString()) as [
      string,
      Identity?,
      string?,
    ];
    const token = sealed === undefined ? undefined : this.tokens.open(sealed, `${nonce}.${target}`);
    return {
      clientId: clientId === '' ? undefined : clientId,
      ...(identity && { identity: token === undefined ? identity : { ...identity, token } }),
      from: from!,
      nonce: nonce!,
      sentAt,
      bodyDigest: digest!,
    };
  }

  /**
   * Whether `body` is the one the stamp was made for, and the stamp is
   * used for the first time here: undefined if so (it is used now), else
   * why it is refused.
   */
  consume(stamp: PeerStamp, body: string): string | undefined {
    const digest = Buffer.from(bodyDigest(body));
    const stamped = Buffer.from(stamp.bodyDigest);
    if (digest.length !== stamped.length || !timingSafeEqual(digest, stamped)) {
      return 'the body is not the one it was stamped for';
    }
    const now = Date.now();
    for (const [nonce, forgetAt] of this.used) {
      if (forgetAt > now) break;
      this.used.delete(nonce);
    }
    if (this.used.has(stamp.nonce)) return 'it was used already (a replay)';
    // Kept until no clock within the window could take the stamp for fresh.
    this.used.set(stamp.nonce, now + 2 * STAMP_WINDOW_MS);
    return undefined;
  }

  private mac(fields: readonly string[], { method, path, sessionId }: StampedRequest): string {
    return createHmac('sha256', this.key)
      .update(`${fields.join('.')}\n${method}\n${path}\n${sessionId ?? ''}`)
      .digest('base64url');
  }
}
