import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';

/** The stateless revision the SDK v2 speaks besides the 2025-era ones. */
export const MODERN_REVISION = '2026-07-28';

/**
 * Every MCP revision the host can speak, oldest first: the SDK's 2025-era
 * list (negotiated by `initialize`) plus the 2026-07-28 revision (negotiated
 * by `server/discover`). The host's default `protocolVersions` range.
 */
export const KNOWN_REVISIONS: readonly string[] = [
  ...new Set([...SUPPORTED_PROTOCOL_VERSIONS, MODERN_REVISION]),
].sort();

export function isKnownRevision(revision: string): boolean {
  return KNOWN_REVISIONS.includes(revision);
}
