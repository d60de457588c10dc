/** Heartbeats per heartbeat timeout: a blocked plugin is noticed within a fifth of the timeout past it. */
const BEATS_PER_TIMEOUT = 5;

/**
 * The host's heartbeat to a plugin away from its thread (a worker, a
 * process of its own): plugin code that blocks its event loop (a
 * synchronous loop, sync I/O) answers nothing, and rather than leave its
 * calls hanging the host ends it. `beat` sends one; the channel calls
 * `answered` when one comes back; `blocked` is called once, when none has
 * for `timeoutMs`. The bound runs from the first answer (loading modules
 * on a busy machine may take a while, and is not the plugin's doing), so
 * a `create()` that blocks is caught too.
 */
export class Heartbeat {
  private timer?: NodeJS.Timeout;
  /** When the plugin last answered; 0 until it first does. */
  private lastBeat = 0;

  constructor(
    private readonly timeoutMs: number,
    private readonly beat: () => void,
    private readonly blocked: () => void,
  ) {}

  start(): void {
    const every = Math.ceil(this.timeoutMs / BEATS_PER_TIMEOUT);
    let lastTick = Date.now();
    this.timer = setInterval(() => {
      const now = Date.now();
      // A tick this late means the host's own thread was held up (an
      // in-process plugin, a long GC): the plugin's answers are waiting
      // behind it, so it gets a fresh window rather than the blame.
      if (now - lastTick > 2 * every && this.lastBeat !== 0) this.lastBeat = now;
      lastTick = now;
      if (this.lastBeat === 0 || now - this.lastBeat <= this.timeoutMs) {
        this.beat();
        return;
      }
      this.stop();
      this.blocked();
    }, every);
    this.timer.unref();
  }

  answered(): void {
    this.lastBeat = Date.now();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
