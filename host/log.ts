import { pino, type Logger, type LevelWithSilent } from 'pino';

export type { Logger };

/**
 * The host's logger. Always to stderr: in stdio mode stdout carries only
 * JSON-RPC, and a stray log line there would corrupt the client's stream.
 */
export function createLogger(level: LevelWithSilent = 'info'): Logger {
  return pino({ name: 'mcp-host', level }, pino.destination({ fd: 2, sync: true }));
}
