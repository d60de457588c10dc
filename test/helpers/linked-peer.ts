/**
 * A plugin's server linked in process to the host's JSON-RPC peer, as a
 * mount links it, for tests of what the peer does with a call: real SDK
 * server, real link, real peer, with no mount or client session around it.
 */
import { pino } from 'pino';
import type { McpServer, JSONRPCNotification } from '@modelcontextprotocol/server';
import { createInProcessLink } from '../../host/mounts/isolation/in-process-link.js';
import { UpstreamPeer } from '../../host/mounts/upstream-peer.js';
import { HOST_CLIENT_CAPABILITIES, handshakeVersion } from '../../host/mounts/handshake-version.js';
import type { Teardown } from './host.js';

/** Connect `server` to a peer over an in-process link; `mountWide` collects what reaches no call. */
export async function linkedPeer(t: Teardown, server: McpServer, timeoutMs = 10_000) {
  const { hostSide, pluginSide } = createInProcessLink();
  await server.connect(pluginSide as never);
  const mountWide: JSONRPCNotification[] = [];
  const peer = new UpstreamPeer(hostSide, {
    label: 'test',
    logger: pino({ level: 'silent' }),
    timeoutMs,
    onNotification: (notification) => void mountWide.push(notification),
  });
  await peer.connect(handshakeVersion(), HOST_CLIENT_CAPABILITIES);
  t.teardown(() => peer.close());
  return { peer, mountWide };
}
