import type { InProcessSpec } from '../loader/types.js';
import type { PluginServer } from '../plugin.js';
import { loadDefinition } from '../loader/definition.js';
import { HostError } from '../errors.js';
import type { Logger } from '../log.js';
import { createInProcessLink } from './in-process-link.js';
import { asPluginServer, createFailed } from './plugin-server.js';
import { UpstreamPeer } from './upstream-peer.js';
import { Mount, describeMount, mountName, type MountEvents } from './mount.js';
import { HOST_CLIENT_CAPABILITIES, handshakeVersion } from './handshake-version.js';
import { pluginWhere } from '../config/problem-wording.js';

/**
 * Start an mcp-host plugin in this process: import its entry (fresh, tagged
 * with the generation so an upgraded plugin runs its new code), call
 * `create`, and connect the server it returns to the host over an in-process
 * link. Works the same for servers built with SDK v1 and v2.
 */
export async function startInProcessMount(
  spec: InProcessSpec,
  importTag: string,
  pluginLogger: Logger,
  events: MountEvents,
  startTimeoutMs: number,
): Promise<Mount> {
  const definition = await loadDefinition(spec, importTag);
  let created: PluginServer;
  try {
    created = await withinStartTimeout(
      Promise.resolve(definition.create({ options: spec.options, logger: pluginLogger })),
      spec,
      startTimeoutMs,
    );
  } catch (error) {
    if (error instanceof HostError) throw error; // the start timeout's own refusal
    throw createFailed(spec, error);
  }
  const server = asPluginServer(spec, created);
  const { hostSide, pluginSide } = createInProcessLink(describeMount(spec));
  await server.connect(pluginSide as never);
  // The peer exists before the Mount it belongs to; events that arrive in
  // between (none should: the handshake is not done) are dropped.
  const built: { mount?: Mount } = {};
  const peer = new UpstreamPeer(hostSide, {
    label: mountName(spec),
    logger: pluginLogger,
    timeoutMs: spec.timeoutMs,
    forwardHeaders: spec.forwardHeaders,
    onNotification: (notification) => built.mount && events.onNotification(built.mount, notification),
    onClose: () => built.mount && events.onClose(built.mount),
  });
  const handshake = await peer.connect(handshakeVersion(spec.manifest.protocolVersions), HOST_CLIENT_CAPABILITIES);
  built.mount = new Mount(spec, peer, handshake, pluginLogger, async () => {
    await server.close();
  });
  return built.mount;
}

/**
 * A `create()` that never settles would hold start-up (or a reload) forever:
 * it gets `upstreams.startTimeoutMs`, like an upstream's first connection.
 * A server it returns after that is closed, never mounted.
 */
function withinStartTimeout(
  creating: Promise<PluginServer>,
  spec: InProcessSpec,
  timeoutMs: number,
): Promise<PluginServer> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      creating
        .then(
          (server) => server?.close?.(),
          () => {},
        )
        .catch(() => {});
      reject(
        new HostError({
          where: pluginWhere(spec.path, spec.label),
          what: `create() did not return within ${timeoutMs} ms (upstreams.startTimeoutMs).`,
          fix: 'find what create() waits for that never comes (a connection, a promise nobody settles), or raise upstreams.startTimeoutMs in the host config if it is merely slow; the host did not mount it.',
        }),
      );
    }, timeoutMs);
  });
  return Promise.race([creating, late]).finally(() => clearTimeout(timer));
}
