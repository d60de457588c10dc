import { isMainThread } from 'node:worker_threads';
import { pino, type Logger, type LevelWithSilent } from 'pino';

export type { Logger };

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
    return pino({ name: 'mcp-host', level }, markedWhileWriting(pino.destination({ fd: 2, sync: true })));
  const destination = pino.destination({ fd: 2, sync: false, maxLength: MAX_UNWRITTEN_LOG_BYTES });
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
