import type { ResolvedConfig } from '../config/types.js';
import type { Logger } from '../log.js';
import type { PluginSpec } from '../loader/types.js';
import { startInProcessMount } from './in-process.js';
import { mountName, type Mount, type MountEvents } from './mount.js';
import { RemoteChannel } from './remote.js';
import { ChildChannel } from './stdio-child.js';
import { startSupervisedMount } from './supervisor.js';
import { WorkerChannel } from './worker-channel.js';

/**
 * Start the mount a spec describes, whatever its kind, and drain its lists.
 * An mcp-host plugin that fails is refused; a stdio child or a remote that
 * cannot be reached comes back down, under a supervisor that keeps trying.
 * A plugin in a worker thread is supervised too: its faults end only its
 * worker, which the supervisor replaces.
 */
export async function startMount(
  spec: PluginSpec,
  importTag: string,
  logger: Logger,
  events: MountEvents,
  config: ResolvedConfig,
): Promise<Mount> {
  const mountLogger = logger.child({ plugin: mountName(spec) });
  switch (spec.kind) {
    case 'in-process': {
      if (spec.isolation === 'worker') {
        const open = () => new WorkerChannel(spec, importTag, config, mountLogger);
        return startSupervisedMount(spec, open, config, mountLogger, events);
      }
      const mount = await startInProcessMount(spec, importTag, mountLogger, events, config.upstreams.startTimeoutMs);
      try {
        await mount.refresh();
      } catch (error) {
        await mount.close();
        throw error;
      }
      return mount;
    }
    case 'stdio': {
      return startSupervisedMount(spec, () => new ChildChannel(spec, mountLogger), config, mountLogger, events);
    }
    case 'remote': {
      return startSupervisedMount(spec, () => new RemoteChannel(spec, mountLogger), config, mountLogger, events);
    }
  }
}
