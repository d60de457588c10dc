import type { Logger } from '../log.js';

/** How often each kind of refused input is logged at most: whoever sends it cannot flood the log. */
const LOG_EVERY_MS = 10_000;

/**
 * The log of what a replica refused to follow: a Redis record or a
 * forwarding stamp that failed its check. Each is logged, as a warning,
 * at most once per LOG_EVERY_MS per kind; the next line says how many more
 * were refused meanwhile.
 */
export class DistrustLog {
  private readonly kinds = new Map<string, { loggedAt: number; unlogged: number }>();

  constructor(private readonly logger: Logger) {}

  refused(kind: string, message: string): void {
    const now = Date.now();
    const seen = this.kinds.get(kind);
    if (seen && now - seen.loggedAt < LOG_EVERY_MS) {
      seen.unlogged += 1;
      return;
    }
    const more = seen?.unlogged ? ` (and ${seen.unlogged} more like it in the last ${LOG_EVERY_MS / 1000} s)` : '';
    this.kinds.set(kind, { loggedAt: now, unlogged: 0 });
    this.logger.warn(`${message}${more}`);
  }
}
