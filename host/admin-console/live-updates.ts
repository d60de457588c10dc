import type { ServerResponse } from 'node:http';
import type { Reloader } from '../reload/reloader.js';
import type { HostRuntime } from '../runtime.js';

/** How often the mounts' states and the sessions are looked at while a console is open. */
const LOOK_MS = 1_000;
/** A comment this often keeps a proxy from closing a quiet stream. */
const KEEPALIVE_MS = 25_000;
/** The streams one host keeps open at most: each is an admin's open tab. */
const MAX_STREAMS = 50;

/**
 * `/admin/events`: a server-sent event `change` whenever what the console
 * shows changed (a reload settled, a mount went down or came back, a
 * session opened or closed); the page then fetches its main part again.
 * Events carry no data: what changed is read from the page, through the
 * same checks as any page.
 */
export class LiveUpdates {
  private readonly streams = new Set<ServerResponse>();
  private timer: NodeJS.Timeout | undefined;
  private seen = '';

  constructor(
    private readonly runtime: HostRuntime,
    reloader: Reloader,
  ) {
    reloader.onSettled(() => this.send());
  }

  /** Open a stream on `res`, with the headers every console answer carries; false when too many are open. */
  open(res: ServerResponse, headers: Record<string, string>): boolean {
    if (this.streams.size >= MAX_STREAMS) return false;
    res.writeHead(200, { ...headers, 'content-type': 'text/event-stream', 'x-accel-buffering': 'no' });
    res.write(': mcp-host admin events\n\n');
    this.streams.add(res);
    res.once('close', () => {
      this.streams.delete(res);
      if (this.streams.size === 0) this.stopLooking();
    });
    if (!this.timer) {
      this.seen = this.fingerprint();
      let quiet = 0;
      this.timer = setInterval(() => {
        const now = this.fingerprint();
        if (now !== this.seen) this.send();
        else if ((quiet += LOOK_MS) >= KEEPALIVE_MS) {
          quiet = 0;
          for (const stream of this.streams) stream.write(': keepalive\n\n');
        }
      }, LOOK_MS);
      this.timer.unref();
    }
    return true;
  }

  /** End every stream (the host is stopping). */
  close(): void {
    this.stopLooking();
    for (const stream of this.streams) stream.end();
    this.streams.clear();
  }

  private send(): void {
    this.seen = this.fingerprint();
    for (const stream of this.streams) stream.write('event: change\ndata: \n\n');
  }

  private stopLooking(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** What the pages show that can change without a reload: each mount's state, and the sessions. */
  private fingerprint(): string {
    const { id, mounts } = this.runtime.current;
    let sessions = 0;
    for (const session of this.runtime.sessions) if (!session.fansOut) sessions += 1;
    return `${id} ${sessions} ${mounts.map((mount) => mount.state).join(',')}`;
  }
}
