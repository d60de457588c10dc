import type { Server } from '@modelcontextprotocol/server';
import { MODERN_REVISION } from '../protocol-versions.js';

/**
 * Whether a front server speaks the stateless 2026-07-28 era to its client.
 * The era is the instance's (the SDK binds it when the connection opens, or
 * per request over HTTP), so the server's negotiated revision is the one
 * authority: the `_meta` a request carries could claim either. Revisions are
 * ISO dates, so later revisions compare greater.
 */
export function servesModernEra(server: Server): boolean {
  // Deprecated in favour of the per-request envelope, which the client writes; the instance's own
  // revision is what decides how the SDK serves this request.
  const revision = server.getNegotiatedProtocolVersion();
  return revision !== undefined && revision >= MODERN_REVISION;
}
