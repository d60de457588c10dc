import { createRequire } from 'node:module';
import { isMainThread } from 'node:worker_threads';
import { pino, type Logger, type LevelWithSilent } from 'pino';

export type { Logger };

/** How log lines read: `pretty` for a person at a terminal, `json` (pino's lines) for a machine. */
export type LogFormat = 'pretty' | 'json';
export const LOG_FORMATS: readonly LogFormat[] = ['pretty', 'json'];

/**
 * The format every logger of this process writes in. MCP_HOST_LOG_FORMAT
 * wins; then the config's `log.format` (setLogFormat); else pretty when
 * stderr is a terminal, JSON lines when it is a pipe or a file (a client, a
 * log shipper, a test). A worker's stderr is the host's, so it takes the
 * host's format from the variable (setLogFormat sets it for workers to come).
 */
let format: LogFormat = formatFromEnvironment() ?? (isMainThread && process.stderr.isTTY ? 'pretty' : 'json');

function formatFromEnvironment(): LogFormat | undefined {
  const named = process.env.MCP_HOST_LOG_FORMAT;
  return LOG_FORMATS.find((candidate) => candidate === named);
}

/** The config's `log.format`, unless MCP_HOST_LOG_FORMAT (read before the config could be) says otherwise. */
export function setLogFormat(configured: LogFormat | undefined): void {
  format = formatFromEnvironment() ?? configured ?? format;
  process.env.MCP_HOST_LOG_FORMAT = format;
}

let prettify: ((line: string) => string) | undefined;

/**
 * A log line as this process's format writes it. pino-pretty is loaded
 * only by a process that prints pretty lines: a host under a client never
 * pays for it.
 */
export function formatLogLine(line: string): string {
  if (format === 'json') return line;
  prettify ??= prettyFormatter();
  return prettify(line);
}

function prettyFormatter(): (line: string) => string {
  const { prettyFactory } = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
  return prettyFactory({
    colorize: isMainThread && process.stderr.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    // The plugin a line is about (and whether its server wrote it on stderr) leads the message; "name" is
    // always mcp-host, and pid and hostname are the same on every line.
    ignore: 'pid,hostname,name,plugin,stream',
    messageFormat: (record, messageKey) =>
      `${typeof record.plugin === 'string' ? `[${record.plugin}${record.stream === 'stderr' ? ' stderr' : ''}] ` : ''}${String(record[messageKey] ?? '')}`,
  });
}

/**
 * How many bytes of log lines the host holds while stderr is not being read;
 * beyond, new lines are dropped (and counted) rather than held: a reader that
 * stopped must not grow the host's memory without end.
 */
const MAX_UNWRITTEN_LOG_BYTES = 4 * 1024 * 1024;

/**
 * The host's logger. Always to stderr: in stdio mode stdout carries only
 * JSON-RPC, and a stray log line there would corrupt the client's stream.
 *
 * The host's own thread writes asynchronously. A synchronous write to a full
 * pipe (a client, or a log shipper, slow to read the host's stderr) makes
 * pino's writer sleep 100 ms, the whole event loop with it, as often as the
 * pipe fills: a plugin logging 300 lines stalled every client's calls and
 * `/healthz` for 100-140 ms while the reader was short of CPU. Lines still
 * pending when the process exits are written out then (pino flushes on
 * exit). A worker plugin's thread writes synchronously: a stall there is its
 * own, and its last lines must not be lost when the host terminates it.
 */
export function createLogger(level: LevelWithSilent = 'info'): Logger {
  if (!isMainThread)
    return pino({ name: 'mcp-host', level }, markedWhileWriting(formatting(pino.destination({ fd: 2, sync: true }))));
  const destination = formatting(pino.destination({ fd: 2, sync: false, maxLength: MAX_UNWRITTEN_LOG_BYTES }));
  const logger = pino({ name: 'mcp-host', level }, destination);
  let dropped = 0;
  destination.on('drop', () => (dropped += 1));
  // The first write once the reader is back says what was lost while it was away.
  destination.on('write', () => {
    if (dropped === 0) return;
    const lines = dropped;
    dropped = 0;
    logger.warn(
      `dropped ${lines} log entries while stderr was not being read (over ${MAX_UNWRITTEN_LOG_BYTES} bytes waiting); whatever reads the host's stderr fell behind`,
    );
  });
  return logger;
}

/**
 * The logger of a mount, handed to its plugin's code as well: every line
 * names the plugin (`"plugin"`), and a plugin that logs a `plugin` field of
 * its own (`logger.info({ plugin: null }, …)`) cannot change it, so none of
 * its lines passes for the host's own or another plugin's.
 */
export function pluginLogger(logger: Logger, name: string): Logger {
  return logger.child({ plugin: name }, { serializers: { plugin: () => name } });
}

/**
 * Add `fields()` to every line `logger` and its children write from now on
 * (pino's mixin, which is otherwise only given at creation). Telemetry puts
 * the active trace on log lines this way: a host that never calls this pays
 * nothing per line.
 */
export function addLogFields(logger: Logger, fields: () => Record<string, unknown>): void {
  (logger as unknown as Record<symbol, unknown>)[pino.symbols.mixinSym] = fields;
}

/** Whether this thread's logger is writing a line now: a worker tells its own lines on fd 2 from its plugin's (plugin-output.ts). */
let writingLog = false;
export const isWritingLog = (): boolean => writingLog;

/** `destination` writing each line in this process's format (the object itself kept: pino flushes it on exit). */
function formatting<T extends { write(line: string): unknown }>(destination: T): T {
  const write = destination.write.bind(destination);
  destination.write = (line: string) => write(formatLogLine(line));
  return destination;
}

function markedWhileWriting<T extends { write(line: string): unknown }>(destination: T): T {
  const write = destination.write.bind(destination);
  destination.write = (line: string) => {
    writingLog = true;
    try {
      return write(line);
    } finally {
      writingLog = false;
    }
  };
  return destination;
}
