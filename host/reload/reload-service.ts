import { describeThrown } from '../errors.js';
import type { Logger } from '../log.js';
import type { HostRuntime } from '../runtime.js';
import { openControlChannel, type ControlChannel } from './control-channel.js';
import { Reloader } from './reloader.js';
import { ReloadTriggers } from './triggers.js';

export interface ReloadService {
  readonly reloader: Reloader;
  /** Stop every trigger and wait for a reload in progress (shutdown). */
  close(): Promise<void>;
}

/**
 * Everything that reloads a serving host: the reloader, its file watch and
 * SIGHUP, and the control channel for `mcp-host reload` (and `status`). A control channel
 * that cannot open is logged, not fatal: the host still serves and the
 * other triggers still work.
 */
export async function startReloading(
  runtime: HostRuntime,
  options: { configFile: string; cwd: string; logger: Logger },
): Promise<ReloadService> {
  const { configFile, cwd, logger } = options;
  const reloader = new Reloader(runtime, { configPath: configFile, cwd, logger });
  const triggers = new ReloadTriggers(runtime, reloader, configFile, logger);
  triggers.start();
  let channel: ControlChannel | undefined;
  try {
    channel = await openControlChannel(configFile, runtime, reloader, logger);
    logger.debug(`mcp-host reload reaches this host at ${channel.path}`);
  } catch (error) {
    logger.error(`mcp-host reload cannot reach this host: ${describeThrown(error)}`);
  }
  return {
    reloader,
    async close() {
      triggers.close();
      await channel?.close();
      await reloader.close();
    },
  };
}
