import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Implementation,
  type ServerCapabilities,
} from '@modelcontextprotocol/server';
import { MODERN_REVISION, isKnownRevision } from '../protocol-versions.js';
import { HostError } from '../errors.js';
import { RpcError } from '../rpc-error.js';
import { pluginWhere, quotedChoices } from '../config/problem-wording.js';
import { HOST_VERSION } from '../version.js';
import { isPlainObject } from '../plain-object.js';
import { APPS_CLIENT_SETTINGS, APPS_EXTENSION } from '../vocabulary/served-uris.js';

/**
 * The capabilities the host declares to every upstream. The host forwards a
 * plugin's mid-call requests to the client that made the call, so it can
 * offer all of them; a client that lacks one answers the plugin with an error.
 */
export const HOST_CLIENT_CAPABILITIES = {
  sampling: {},
  elicitation: { form: {}, url: {} },
  roots: { listChanged: true },
  // MCP Apps: servers offer their UI tools to clients that render apps; the host passes the apps on (served-uris.ts).
  extensions: { [APPS_EXTENSION]: APPS_CLIENT_SETTINGS },
};

export const HOST_CLIENT_INFO: Implementation = { name: 'mcp-host', version: HOST_VERSION };

/** The JSON-RPC code of "unsupported protocol version" (an `initialize` or a 2026-07-28 request outside the server's range). */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/**
 * The revision the host speaks to an upstream over the initialize handshake:
 * the newest 2025-era revision the upstream accepts. Handlers are
 * version-neutral once mounted, so this link revision is the host's business;
 * what clients negotiate with the host is decided by the host's own range.
 */
export function handshakeVersion(accepted?: readonly string[]): string {
  const legacy = [...SUPPORTED_PROTOCOL_VERSIONS].sort().reverse();
  return legacy.find((revision) => !accepted || accepted.includes(revision)) ?? legacy[0]!;
}

/** What the host learns from an upstream's `initialize` or `server/discover` answer. */
export interface Handshake {
  protocolVersion: string;
  capabilities: ServerCapabilities;
  serverInfo: Implementation;
  instructions?: string;
}

/**
 * The per-request `_meta` envelope a 2026-07-28 server requires on every
 * request and notification: it replaces what `initialize` said once per
 * session. For a 2026-07-28 client's request it carries that client's
 * capabilities and log level; otherwise the host's, and a log level that
 * asks for every message: the host filters them per client session
 * (`logging/setLevel`), as it does for a 2025-era upstream that was never
 * sent a level.
 */
export function modernEnvelope(client?: { capabilities?: object; logLevel?: string }): Record<string, unknown> {
  const logLevel = client ? client.logLevel : 'debug';
  return {
    [PROTOCOL_VERSION_META_KEY]: MODERN_REVISION,
    [CLIENT_INFO_META_KEY]: HOST_CLIENT_INFO,
    [CLIENT_CAPABILITIES_META_KEY]: client?.capabilities ?? HOST_CLIENT_CAPABILITIES,
    ...(logLevel === undefined ? {} : { [LOG_LEVEL_META_KEY]: logLevel }),
  };
}

/**
 * The handshake a `server/discover` answer amounts to, when it offers the
 * 2026-07-28 revision; undefined when it does not (the host then falls back
 * to `initialize`, as the SDK's own client does with `versionNegotiation: 'auto'`).
 */
export function discoveredHandshake(result: Record<string, unknown>, fallbackName: string): Handshake | undefined {
  const offered = result.supportedVersions;
  if (!Array.isArray(offered) || !offered.includes(MODERN_REVISION)) return undefined;
  const meta = isPlainObject(result._meta) ? result._meta : {};
  const serverInfo = isPlainObject(meta[SERVER_INFO_META_KEY])
    ? (meta[SERVER_INFO_META_KEY] as unknown as Implementation)
    : { name: fallbackName, version: '' };
  return {
    protocolVersion: MODERN_REVISION,
    capabilities: (isPlainObject(result.capabilities) ? result.capabilities : {}) as ServerCapabilities,
    serverInfo,
    ...(typeof result.instructions === 'string' ? { instructions: result.instructions } : {}),
  };
}

/** The revisions an "unsupported protocol version" error says the server speaks, when it says. */
export function revisionsOffered(data: unknown): string[] | undefined {
  const supported = isPlainObject(data) ? data.supported : undefined;
  return Array.isArray(supported) ? supported.map(String) : undefined;
}

/**
 * An upstream that answered the handshake with "unsupported protocol
 * version" is reachable but unusable as the host is configured: refused
 * once, with what it answered, rather than retried as if it were down.
 */
export function unusableRevision(
  error: unknown,
  spec: { path: string; label: string },
  range: readonly string[],
): HostError | undefined {
  if (!(error instanceof RpcError) || error.code !== UNSUPPORTED_PROTOCOL_VERSION) return undefined;
  const offered = revisionsOffered(error.data);
  const usable = offered?.filter((revision) => isKnownRevision(revision)) ?? [];
  const speaks = offered
    ? `it speaks only ${quotedChoices(offered, 'and')}`
    : 'it did not say which revisions it speaks';
  return new HostError(
    {
      where: pluginWhere(spec.path, spec.label),
      what: `it answered the handshake with error ${error.code} (${JSON.stringify(error.message)}): ${speaks}, and the host's protocolVersions are ${quotedChoices(range, 'and')}.`,
      fix:
        usable.length > 0
          ? `add ${quotedChoices(usable, 'or')} to the host's protocolVersions, or mount a version of the server that speaks one of the host's revisions.`
          : "mount a version of the server that speaks one of the host's revisions.",
    },
    { cause: error },
  );
}
