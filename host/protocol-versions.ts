import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';

/** The stateless revision the SDK v2 speaks besides the 2025-era ones. */
export const MODERN_REVISION = '2026-07-28';

/**
 * The two eras of MCP: `legacy` (the 2025-era revisions, negotiated by
 * `initialize`, with sessions) and `modern` (2026-07-28, stateless). A client
 * is of one; an upstream may speak either or both, and is spoken to in the
 * era of the client that asks (DESIGN.md, "Protocol revisions and the SDK").
 */
export type Era = 'legacy' | 'modern';

export const ERAS: readonly Era[] = ['legacy', 'modern'];

/**
 * Every MCP revision the host can speak, oldest first: the SDK's 2025-era
 * list (negotiated by `initialize`) plus the 2026-07-28 revision (negotiated
 * by `server/discover`). A config or manifest may name any of them.
 */
export const KNOWN_REVISIONS: readonly string[] = [
  ...new Set([...SUPPORTED_PROTOCOL_VERSIONS, MODERN_REVISION]),
].sort();

/**
 * The revisions the MCP specification published as releases. The SDK also
 * speaks pre-release drafts (2024-10-07), which no plugin author lists: were
 * one in the default range, a plugin declaring every published revision
 * would be refused for lacking it.
 */
const PUBLISHED_REVISIONS: readonly string[] = [
  '2024-11-05',
  '2025-03-26',
  '2025-06-18',
  '2025-11-25',
  MODERN_REVISION,
];

/** The host's default `protocolVersions` range: every published revision the SDK speaks. */
export const DEFAULT_REVISIONS: readonly string[] = KNOWN_REVISIONS.filter((revision) =>
  PUBLISHED_REVISIONS.includes(revision),
);

export function isKnownRevision(revision: string): boolean {
  return KNOWN_REVISIONS.includes(revision);
}
