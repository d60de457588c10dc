/**
 * The host's HTTP endpoint served in the test's own process, over the
 * catalogue a config composes: for tests that look at the runtime itself
 * (its sessions), or that would pay for a child process per setting.
 *
 *   const { runtime, service } = await serveInProcess(t, configFile, ws.dir, { host: '127.0.0.1', port: 0 });
 *   await fetch(service.url, …);
 */
import { composeCatalogue } from '../../host/catalogue/compose.js';
import { createLogger, type Logger } from '../../host/log.js';
import { HostRuntime } from '../../host/runtime.js';
import { serveOverHttp, type HttpServeOptions, type HttpService } from '../../host/serve/http.js';
import type { Teardown } from './host.js';

/** Closed, with the runtime, when the test ends; `logger` defaults to a silent one. */
export async function serveInProcess(
  t: Teardown,
  configFile: string,
  cwd: string,
  options: HttpServeOptions,
  logger: Logger = createLogger('silent'),
): Promise<{ runtime: HostRuntime; service: HttpService }> {
  const runtime = new HostRuntime(logger);
  const { generation } = await composeCatalogue({ configPath: configFile, cwd, logger, events: runtime.events, id: 1 });
  runtime.swap(generation);
  t.teardown(() => runtime.close());
  const service = await serveOverHttp(runtime, options);
  t.teardown(() => service.close());
  return { runtime, service };
}
