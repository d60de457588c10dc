import type { LoggingLevel } from '@modelcontextprotocol/server';

/** MCP's log levels (RFC 5424's), least severe first: a message is sent when it is at least the level set. */
const SEVERITY: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/**
 * The level a 2025-era client set with `logging/setLevel`, kept as the SDK's
 * `Server` keeps it for its handlers' `ctx.mcpReq.log`: until the client
 * sets one, every message is sent; a level the SDK would refuse changes
 * nothing. The hot path (hot-path.ts) reads it, because the SDK's own check
 * is private to its handlers' contexts.
 */
export class SessionLogLevel {
  private threshold = -1;

  /** `level` as the client's `logging/setLevel` request named it (the SDK answers the request). */
  set(level: unknown): void {
    const severity = SEVERITY.indexOf(level as LoggingLevel);
    if (severity !== -1) this.threshold = severity;
  }

  admits(level: LoggingLevel): boolean {
    return SEVERITY.indexOf(level) >= this.threshold;
  }
}
