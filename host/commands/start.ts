import type { Logger } from '../log.js';
import { HostRuntime } from '../runtime.js';
import { composeCatalogue } from '../catalogue/compose.js';
import { serveOverStdio } from '../serve/stdio.js';
import { formatTotals } from './catalogue-report.js';

export interface StartOptions {
  configPath?: string;
  cwd: string;
  logger: Logger;
}

/**
 * `mcp-host start`: compose the catalogue (refusing to start on any problem,
 * so a bad deploy fails here and not on a client's first request) and serve
 * it until the client goes away or a signal asks the host to stop.
 */
export async function start(options: StartOptions): Promise<number> {
  const runtime = new HostRuntime(options.logger);
  const { config, generation } = await composeCatalogue({ ...options, events: runtime, id: 1 });
  runtime.swap(generation);
  options.logger.info(`serving ${formatTotals(generation)} from ${config.file} over stdio`);
  const stdio = serveOverStdio(runtime);

  const stopped = new Promise<string>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve(signal));
    void stdio.ended.then(() => resolve('stdin closed'));
  });
  const reason = await stopped;
  options.logger.info(`stopping (${reason}): letting calls in flight finish`);
  await runtime.retire(runtime.current.mounts, runtime.current.config.reload.drainTimeoutMs);
  await stdio.close();
  return 0;
}
