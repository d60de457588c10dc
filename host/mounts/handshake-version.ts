import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';

/**
 * The capabilities the host declares to every upstream. The host forwards a
 * plugin's mid-call requests to the client that made the call, so it can
 * offer all of them; a client that lacks one answers the plugin with an error.
 */
export const HOST_CLIENT_CAPABILITIES = {
  sampling: {},
  elicitation: { form: {}, url: {} },
  roots: { listChanged: true },
};

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
