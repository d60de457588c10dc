/**
 * What stdio servers write on their stderr while `mcp-host add` checks them.
 * A server that needs arguments (the filesystem server's allowed directory)
 * often starts anyway and says so only there, at a level `add` does not log:
 * these lines are kept for `add` to show, and every other line is logged as
 * the command's own logger would.
 */
import { pino, type Logger } from 'pino';
import { formatLogLine } from '../log.js';

export interface ServerStderr {
  /** The logger to check the config with. */
  logger: Logger;
  /** The distinct lines the mounts named `names` wrote on their stderr, in order. */
  of(names: (string | undefined)[]): string[];
}

export function recordServerStderr(commandLogger: Logger): ServerStderr {
  const lines: { plugin: unknown; msg: unknown }[] = [];
  const threshold = commandLogger.levelVal;
  const destination = {
    write(line: string) {
      const record = JSON.parse(line) as { level: number; stream?: unknown; plugin?: unknown; msg?: unknown };
      if (record.stream === 'stderr') lines.push({ plugin: record.plugin, msg: record.msg });
      else if (record.level >= threshold) process.stderr.write(formatLogLine(line));
    },
  };
  return {
    // A child's stderr is logged at info: recorded whatever the command's own level is.
    logger: pino(
      { name: 'mcp-host', level: threshold < pino.levels.values.info! ? commandLogger.level : 'info' },
      destination,
    ),
    // A server started more than once (a revision probe, a retry) says the same again: once is enough.
    of: (names) => [
      ...new Set(lines.filter((line) => names.includes(line.plugin as string)).map((line) => String(line.msg))),
    ],
  };
}
