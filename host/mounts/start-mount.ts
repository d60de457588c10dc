import type { ResolvedConfig } from '../config/types.js';
import { pluginLogger, type Logger } from '../log.js';
import type { PluginSpec } from '../loader/types.js';
import { InProcessChannel } from './isolation/in-process.js';
import { mountName, type Mount, type MountEvents } from './mount.js';
import type { ExplainedChannel } from './supervisor.js';
import { startWithFaces } from './legacy-face.js';

/**
 * Start the mount a spec describes, whatever its kind, and drain its lists,
 * under a supervisor that brings it back when it is lost (a child exits, a
 * remote drops, a plugin faults, a plugin's worker thread ends). An mcp-host plugin that fails to start is
 * refused; a stdio child or a remote that cannot be reached comes back down,
 * while its supervisor keeps trying.
 */
export async function startMount(
  spec: PluginSpec,
  importTag: string,
  logger: Logger,
  events: MountEvents,
  config: ResolvedConfig,
): Promise<Mount> {
  const mountLogger = pluginLogger(logger, mountName(spec));
  switch (spec.kind) {
    case 'in-process': {
      if (spec.isolation === 'process' || spec.isolation === 'sandbox') {
        const { ProcessChannel } = await import('./isolation/process-channel.js');
        const open = () => new ProcessChannel(spec, importTag, config, mountLogger);
        return startWithFaces(spec, open, config, mountLogger, events);
      }
      if (spec.isolation === 'worker') {
        // Loaded, like the kinds below, when a config first mounts one.
        const { WorkerChannel } = await import('./isolation/worker-channel.js');
        const open = () => new WorkerChannel(spec, importTag, config, mountLogger);
        return startWithFaces(spec, open, config, mountLogger, events);
      }
      const { startTimeoutMs } = config.upstreams;
      const open = () => new InProcessChannel(spec, importTag, mountLogger, startTimeoutMs);
      return startWithFaces(spec, open, config, mountLogger, events);
    }
    // The kinds below are loaded when a config first mounts one: a host of in-process plugins loads no HTTP client.
    case 'stdio': {
      const { ChildChannel } = await import('./stdio-child.js');
      const open = (logger: Logger) => new ChildChannel(spec, logger);
      const mount = await startWithFaces(spec, () => open(mountLogger), config, mountLogger, events);
      return spec.perClient ? withSessionPeers(mount, open, config) : mount;
    }
    case 'remote': {
      const [{ RemoteChannel }, { UpstreamAuthorization }, { MirroredParams }] = await Promise.all([
        import('./remote.js'),
        import('./upstream-authorization.js'),
        import('./mirrored-params.js'),
      ]);
      // One authorization per mount: its two faces, its reconnections and its per-client sessions share one token;
      // and what its tools mirror into headers, learnt from the lists of its own connection.
      const authorization = new UpstreamAuthorization(spec);
      const mirrored = new MirroredParams();
      const open = (logger: Logger) => new RemoteChannel(spec, logger, authorization, mirrored);
      const mount = await startWithFaces(spec, () => open(mountLogger), config, mountLogger, events);
      return spec.perClient ? withSessionPeers(mount, open, config) : mount;
    }
  }
}

/**
 * With `sessions: 'per-client'`, each face of the mount (a dual-era
 * upstream's legacy face too) opens an upstream of its own for each
 * long-lived client session it serves (per-client-upstreams.ts).
 */
async function withSessionPeers(
  mount: Mount,
  open: (logger: Logger) => ExplainedChannel,
  config: ResolvedConfig,
): Promise<Mount> {
  // Loaded when a config first asks for it.
  const { PerClientUpstreams } = await import('./per-client-upstreams.js');
  for (const face of [mount, mount.legacyFace]) {
    if (face) face.sessionPeers = new PerClientUpstreams(face, open, config);
  }
  return mount;
}
