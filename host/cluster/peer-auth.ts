import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** How old a forwarded request's stamp may be: forwarding is immediate, a replay is not. */
const MAX_SKEW_MS = 60_000;

/** A key for one use of the cluster secret, so no two uses share a key. */
export function deriveKey(secret: string, cluster: string, use: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, cluster, `mcp-host ${use}`, 32));
}

/** Stamps a forwarded request's PEER_HEADER (sinks/cluster.ts) with the cluster's key, and checks one. */
export class PeerAuth {
  constructor(private readonly key: Buffer) {}

  /** The header value for a request forwarded on behalf of `clientId` (undefined: no bearer auth). */
  stamp(clientId: string | undefined): string {
    const sent = String(Date.now());
    const client = clientId ?? '';
    return `${sent}.${client}.${this.mac(sent, client)}`;
  }

  /** The forwarded request's client, or why the stamp is refused. */
  check(value: string): { clientId: string | undefined } | { refused: string } {
    const [sent = '', client = '', mac = ''] = value.split('.');
    const expected = this.mac(sent, client);
    if (mac.length !== expected.length || !timingSafeEqual(Buffer.from(mac), Buffer.from(expected))) {
      return { refused: 'its signature does not match this cluster’s key (MCP_HOST_CLUSTER_SECRET differs)' };
    }
    if (Math.abs(Date.now() - Number(sent)) > MAX_SKEW_MS) {
      return { refused: `it was stamped more than ${MAX_SKEW_MS / 1000} s away from this replica's clock` };
    }
    return { clientId: client === '' ? undefined : client };
  }

  private mac(sent: string, client: string): string {
    return createHmac('sha256', this.key).update(`${sent}\0${client}`).digest('base64url');
  }
}
