import { HostError } from '../errors.js';
import type { Logger } from '../log.js';
import type { PluginSpec } from '../loader/types.js';
import { startInProcessMount } from './in-process.js';
import type { Mount, MountEvents } from './mount.js';

/** Start the mount a spec describes, whatever its kind. */
export async function startMount(
  spec: PluginSpec,
  importTag: string,
  logger: Logger,
  events: MountEvents,
): Promise<Mount> {
  switch (spec.kind) {
    case 'in-process':
      return startInProcessMount(spec, importTag, logger, events);
    default:
      throw new HostError({
        where: `plugin "${spec.label}" (${spec.path})`,
        what: `mounting ${spec.kind === 'stdio' ? 'stdio servers' : 'remote servers'} is not available yet.`,
        fix: 'use an mcp-host plugin package for now.',
      });
  }
}
