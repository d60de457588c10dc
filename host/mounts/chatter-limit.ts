/** Log and progress notifications one upstream may send per second, on average, before the rest are dropped. */
const PER_SECOND = 500;
/** How many it may send at once. */
const BURST = 1000;
/** How often the host logs how many it dropped, at most. */
const REPORT_EVERY_MS = 1_000;

/**
 * A token bucket over one upstream's log and progress notifications. Each
 * is written to a client's stream ahead of any answer queued behind it, so
 * a plugin that logs a hundred thousand lines in a burst would otherwise
 * hold every answer on that stream until the client had read them all. The
 * excess is dropped (both kinds are advisory) and the host logs how much.
 */
export class ChatterLimit {
  private tokens = BURST;
  private last = Date.now();
  private dropped = 0;
  private reporting?: NodeJS.Timeout;

  /** `report` is told how many were dropped, at most once a second. */
  constructor(private readonly report: (dropped: number, perSecond: number) => void) {}

  /** Whether one more may pass now. */
  take(): boolean {
    const now = Date.now();
    this.tokens = Math.min(BURST, this.tokens + ((now - this.last) * PER_SECOND) / 1000);
    this.last = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    this.dropped += 1;
    this.reporting ??= setTimeout(() => {
      this.reporting = undefined;
      this.report(this.dropped, PER_SECOND);
      this.dropped = 0;
    }, REPORT_EVERY_MS).unref();
    return false;
  }
}
