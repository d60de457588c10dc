import { setLogFormat, type Logger } from '../log.js';
import type { ResolvedConfig } from '../config/types.js';
import { HostRuntime } from '../runtime.js';
import { retireMounts } from '../mounts/retire.js';
import { exitHost } from '../mounts/fault-attribution.js';
import { composeCatalogue } from '../catalogue/compose.js';
import { serveOverStdio } from '../serve/stdio.js';
import type { HttpServeOptions } from '../serve/http.js';
import { metricsServed } from '../config/admin-settings.js';
import { configWhere } from '../config/problem-wording.js';
import { HostError } from '../errors.js';
import { DEFAULT_HTTP_HOST } from '../config/validate.js';
import type { ListenAddress } from '../serve/listen-address.js';
import { formatTotals } from './catalogue-report.js';
import { startReloading } from '../reload/reload-service.js';
import type { Reloader } from '../reload/reloader.js';
import { recordReload, stopTelemetry } from '../sinks/telemetry.js';
import { startTelemetry } from '../telemetry/start-telemetry.js';
import { installAuditLog, stopAuditLog } from '../sinks/audit.js';
import { installCounterFactory } from '../sinks/call-counters.js';
import type { Cluster } from '../cluster/cluster.js';

export interface StartOptions {
  configPath?: string;
  cwd: string;
  logger: Logger;
  /** `--stdio`: serve over stdio even when the config configures HTTP. */
  stdio?: boolean;
  /** `--http [HOST:]PORT`: serve HTTP there, whatever the config says. */
  http?: ListenAddress;
  /** `--server NAME`: the stdio client is a client of this virtual server. */
  server?: string;
}

/**
 * `mcp-host start`: compose the catalogue (refusing to start on any problem,
 * so a bad deploy fails here and not on a client's first request) and serve
 * it until the client goes away or a signal asks the host to stop.
 */
export async function start(options: StartOptions): Promise<number> {
  const runtime = new HostRuntime(options.logger);
  const { config, generation } = await composeCatalogue({
    ...options,
    events: runtime.events,
    id: 1,
    // On before the first generation starts its mounts: their handshakes and first drains are traced too.
    configLoaded: (loaded) => {
      // Before the first mount starts and logs: every line of this host is in the format the config asks for.
      setLogFormat(loaded.log.format);
      return startTelemetry(loaded.telemetry, runtime, options.logger, !options.stdio && metricsServed(loaded.http));
    },
  }).catch(async (error: unknown) => {
    // A start refused by its plugins still exports the spans of what was tried.
    await stopTelemetry();
    throw error;
  });
  const http = options.stdio || options.server !== undefined ? undefined : httpAddress(config.http, options.http);
  if (options.server !== undefined && !config.servers?.[options.server]) refuseServer(config, options.server);
  // Checked before serving anything: auth that was asked for and has no token refuses to start.
  // Each imported only by a host whose config asks for it: a stdio host's start loads neither.
  const httpOptions = http && (await import('./http-serve-options.js')).httpServeOptions(config, http);
  const clusterOptions =
    config.cluster &&
    (await import('../cluster/cluster-options.js')).clusterOptionsOf(config.cluster, config.file, httpOptions?.host);
  // MCP_HOST_LOG_LEVEL, read before the config could be, still wins over it.
  if (process.env.MCP_HOST_LOG_LEVEL === undefined) options.logger.level = config.log.level;
  runtime.swap(generation);
  if (config.audit) {
    installAuditLog((await import('../audit/audit-log.js')).openAuditLog(config.audit, config.file, options.logger));
    options.logger.info(`audit log on: ${config.audit.file}`);
  }
  // Armed before serving: a client that is connected can rely on reloads.
  const reloading = await startReloading(runtime, {
    configFile: config.file,
    cwd: options.cwd,
    logger: options.logger,
  });
  reloading.reloader.onSettled(recordReload);
  // Imported only here: a host without a cluster never loads the Redis client.
  const cluster: Cluster | undefined =
    clusterOptions && (await (await import('../cluster/cluster.js')).Cluster.join(clusterOptions, options.logger));
  if (cluster) {
    runtime.stateSigning = cluster.stateSigning;
    installCounterFactory((counter) => cluster.counter(counter));
    cluster.answerCommands(runtime, reloading.reloader, config.file);
  }
  // The HTTP server (and the SDK's node adapter) is loaded only by a host that serves HTTP.
  const adminConsole = httpOptions && (await adminConsoleOf(config, runtime, reloading.reloader, httpOptions));
  const service = httpOptions
    ? await (
        await import('../serve/http.js')
      ).serveOverHttp(runtime, { ...httpOptions, ...(cluster && { cluster }), ...(adminConsole && { adminConsole }) })
    : serveOverStdio(runtime, options.server);
  if (cluster && 'url' in service) cluster.announce(service.url);
  runtime.serving = ['url' in service ? service.url : 'stdio'];
  // The URL carries the port actually bound (--http 127.0.0.1:0 picks one).
  const over = 'url' in service ? `HTTP, listening on ${service.url}` : 'stdio';
  // Counting what every mount serves is worth doing only for a log that keeps the line.
  if (options.logger.isLevelEnabled('info')) {
    options.logger.info(`serving ${formatTotals(generation)} from ${config.file} over ${over}`);
  }

  const stopped = new Promise<string>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve(signal));
    if ('ended' in service) void service.ended.then(() => resolve('stdin closed'));
  });
  const reason = await stopped;
  // A second signal while calls drain is the operator (or a client that closed our stdin, then
  // signals, as the SDK's does after 2 s) asking for the end now: exiting runs the hook that kills
  // every stdio child's process group, so none outlives the host as it would once it is SIGKILLed.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      options.logger.warn(`${signal} while stopping: stopping at once, abandoning the calls still in flight`);
      exitHost(1);
    });
  }
  // Out of the balancer first, at once: from here every new request and health probe is answered 503,
  // so the balancer sends new requests to other replicas while this one drains. Then out of the
  // cluster, which takes a Redis round trip.
  if ('stopAccepting' in service) service.stopAccepting();
  options.logger.info(`stopping (${reason}): letting calls in flight finish`);
  await cluster?.leave();
  await reloading.close();
  await retireMounts(runtime.current.mounts, runtime.current.config.reload.drainTimeoutMs);
  adminConsole?.close();
  await service.close();
  await stopTelemetry();
  await stopAuditLog();
  return 0;
}

/** `--server NAME` names no virtual server of the config: said before anything is served, and the host stops. */
function refuseServer(config: ResolvedConfig, server: string): never {
  const names = Object.keys(config.servers ?? {});
  throw new HostError({
    where: configWhere(config.file, 'servers'),
    what: `--server ${server} names no virtual server of the config (${names.length > 0 ? `it has ${names.join(', ')}` : 'it has no servers section'}).`,
    fix: `add servers: { ${server}: { tools: ['…'] } } to the config, or pass --server one of its servers.`,
  });
}

/** `--http` wins over the config's address; a bare `--http PORT` binds 127.0.0.1. */
function httpAddress(
  configured: ResolvedConfig['http'],
  flag: ListenAddress | undefined,
): { host: string; port: number } | undefined {
  if (flag) return { host: flag.host ?? DEFAULT_HTTP_HOST, port: flag.port };
  return configured && { host: configured.host, port: configured.port };
}

/** The admin console, when the config asks for it (http.admin): loaded only then. */
async function adminConsoleOf(
  config: ResolvedConfig,
  runtime: HostRuntime,
  reloader: Reloader,
  http: HttpServeOptions,
) {
  if (!config.http?.admin) return undefined;
  const { AdminConsole } = await import('../admin-console/admin-console.js');
  return new AdminConsole(runtime, reloader, http.bearerTokens ?? []);
}
