import type { ResolvedConfig } from '../config/types.js';
import { endSentence, pluginWhere, quotedChoices } from '../config/problem-wording.js';
import { HostError, describeThrown } from '../errors.js';
import type { PluginSpec } from '../loader/types.js';
import type { Logger } from '../log.js';
import { ErrorCode, RpcError } from '../rpc-error.js';
import type { UpstreamChannel } from './channel.js';
import { HOST_CLIENT_CAPABILITIES, handshakeVersion, unusableRevision } from './handshake-version.js';
import { MODERN_REVISION } from '../protocol-versions.js';
import { Mount, mountName, type MountEvents } from './mount.js';
import { UpstreamPeer, type Handshake } from './upstream-peer.js';

/** Why an upstream is not serving, and what would bring it back. */
export interface Outage {
  cause: string;
  fix: string;
}

/** A channel that can say, in its own terms, why its upstream could not be reached or was lost. */
export interface ExplainedChannel extends UpstreamChannel {
  explain(): Outage | undefined;
}

/** One try at connecting: a fresh channel, and the peer that speaks over it. */
interface Attempt {
  id: number;
  channel: ExplainedChannel;
  peer: UpstreamPeer;
  /** Why it failed to connect, judged before closing it (closing makes a child exit too). */
  failure?: Outage;
}

/**
 * Start a mount and keep it connected for as long as it is mounted: a
 * stdio child, a remote server, or an mcp-host plugin (whose channel is a
 * fresh instance of it, so a plugin that faults is re-created like a child
 * that exited is restarted).
 *
 * For a child or a remote, start-up waits for the first connection at most
 * `upstreams.startTimeoutMs`: one that is slow or cannot be reached comes
 * back down, withdrawn from the catalogue, while its supervisor keeps
 * trying, so one upstream never holds up or takes down the others. An
 * upstream that is reached but cannot be mounted (it negotiates a revision
 * outside the host's range, or its lists are malformed) is refused like any
 * broken plugin. An mcp-host plugin's first start is all or nothing: its
 * import and `create()` are bounded by their own timeout, and a plugin that
 * fails them is refused, never retried.
 */
export async function startSupervisedMount(
  spec: PluginSpec,
  open: () => ExplainedChannel,
  config: ResolvedConfig,
  logger: Logger,
  events: MountEvents,
  legacyFace = false,
): Promise<Mount> {
  return new Supervisor(spec, open, config, logger, events, legacyFace).start();
}

/**
 * The life of one supervised mount. When its connection ends (the child
 * exited, the remote dropped or stopped answering pings), the mount goes
 * down and its lists leave the catalogue (`MountEvents.onStateChange`, which
 * tells every client with `list_changed`); calls to it are refused naming
 * the mount and why. It is reconnected with exponential backoff, from
 * `reconnectDelayMs` doubling up to `maxReconnectDelayMs`, and when the
 * handshake and a fresh drain of its lists succeed it comes back the same
 * way. Closing the mount stops all of it.
 */
class Supervisor {
  readonly mount: Mount;
  private attempts = 0;
  /** Consecutive failures: the backoff's exponent. */
  private failures = 0;
  /** The attempt whose connection is serving, 0 when none is. */
  private live = 0;
  private upSince = 0;
  private retryTimer?: NodeJS.Timeout;
  private pingTimer?: NodeJS.Timeout;
  private readonly first: Attempt;

  constructor(
    private readonly spec: PluginSpec,
    private readonly open: () => ExplainedChannel,
    private readonly config: ResolvedConfig,
    private readonly logger: Logger,
    private readonly events: MountEvents,
    /**
     * This mount is the 2025-era link of an upstream already linked at
     * 2026-07-28 (legacy-face.ts): spoken to with `initialize` only, and,
     * like a plugin's, its first start is all or nothing (an upstream that
     * refuses `initialize` serves 2026-07-28 only, and is bridged).
     */
    private readonly legacyFace: boolean,
  ) {
    this.first = this.newAttempt();
    this.mount = new Mount(spec, this.first.peer, notConnected(spec), logger, async () => this.stop());
    this.mount.state = 'down';
    this.mount.outage = {
      cause: 'it is still starting.',
      fix: 'wait for notifications/tools/list_changed, then list again.',
    };
  }

  async start(): Promise<Mount> {
    const attempt = this.first;
    const connecting = this.connect(attempt);
    if (this.spec.kind === 'in-process' || this.legacyFace) {
      try {
        await connecting;
      } catch (error) {
        await this.mount.close();
        throw error;
      }
      this.up(attempt);
      return this.mount;
    }
    const { startTimeoutMs } = this.config.upstreams;
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      connecting.then(
        () => ({ connected: true as const }),
        (error: unknown) => ({ connected: false as const, error }),
      ),
      new Promise<'slow'>((resolve) => {
        timer = setTimeout(() => resolve('slow'), startTimeoutMs);
      }),
    ]).finally(() => clearTimeout(timer));

    if (outcome === 'slow') {
      this.mount.outage = {
        cause: `it did not finish connecting within ${startTimeoutMs} ms (upstreams.startTimeoutMs); mcp-host serves the others meanwhile.`,
        fix: 'if it is merely slow to start, raise upstreams.startTimeoutMs; otherwise see the host log for its output.',
      };
      this.logger.warn(`not connected after ${startTimeoutMs} ms: serving without it until it is`);
      connecting.then(
        () => this.up(attempt),
        (error: unknown) => this.failed(attempt, error),
      );
    } else if (outcome.connected) {
      this.up(attempt);
    } else if (isRefusal(outcome.error)) {
      await this.mount.close();
      throw outcome.error;
    } else {
      this.failed(attempt, outcome.error);
    }
    return this.mount;
  }

  private newAttempt(): Attempt {
    const id = ++this.attempts;
    const channel = this.open();
    const peer: UpstreamPeer = new UpstreamPeer(channel, {
      label: mountName(this.spec),
      logger: this.logger,
      timeoutMs: this.spec.timeoutMs,
      forwardHeaders: this.spec.forwardHeaders,
      // Notifications count while this attempt's peer is the mount's (a
      // list_changed may come during the drain that brings it up).
      onNotification: (notification) => {
        if (this.mount.peer === peer) this.events.onNotification(this.mount, notification);
      },
      onClose: () => this.lost(attempt),
      // Calls in flight when the upstream is lost fail saying why.
      closeReason: () => channel.explain()?.cause,
    });
    const attempt: Attempt = { id, channel, peer };
    return attempt;
  }

  /** Handshake, check the negotiated revision, drain the lists: all of it, or the attempt fails and is closed. */
  private async connect(attempt: Attempt): Promise<void> {
    const range = this.config.protocolVersions;
    const asked = handshakeVersion(range);
    try {
      const handshake = await attempt.peer
        .negotiate({
          modern: range.includes(MODERN_REVISION) && !this.legacyFace,
          legacyRevision: asked,
          capabilities: HOST_CLIENT_CAPABILITIES,
          silenceMeansLegacy: this.spec.kind !== 'remote',
        })
        .catch((error: unknown) => {
          throw unusableRevision(error, this.spec, range) ?? error;
        });
      this.checkRevision(handshake, attempt.peer.speaksModern ? MODERN_REVISION : asked);
      this.mount.handshake = handshake;
      await this.mount.refresh();
    } catch (error) {
      // The host's own verdict first; else the channel's account (the child
      // exited, the server answered 401); else the peer's (a timeout).
      attempt.failure = error instanceof HostError ? outageOf(error) : (attempt.channel.explain() ?? outageOf(error));
      await attempt.peer.close().catch(() => {});
      throw error;
    }
  }

  /**
   * The host's handshake asks for the newest 2025-era revision in its own
   * range; an upstream that answers with another revision outside the range
   * cannot serve the host's clients as they expect.
   */
  private checkRevision(handshake: Handshake, asked: string): void {
    const range = this.config.protocolVersions;
    if (range.includes(handshake.protocolVersion)) return;
    throw new HostError({
      where: pluginWhere(this.spec.path, this.spec.label),
      what: `the host asked it for MCP revision "${asked}" and it answered with ${JSON.stringify(handshake.protocolVersion)}, which is outside the host's protocolVersions (${quotedChoices(range, 'and')}).`,
      fix: `mount a version of the server that speaks one of the host's revisions, or add ${JSON.stringify(handshake.protocolVersion)} to the host's protocolVersions.`,
    });
  }

  private up(attempt: Attempt): void {
    if (this.stopped) return;
    const back = this.attempts > 1;
    this.live = attempt.id;
    this.upSince = Date.now();
    this.mount.state = 'up';
    delete this.mount.outage;
    const { serverInfo, protocolVersion } = this.mount.handshake;
    // A plugin's first start is no news (start-up reports the catalogue); its return after a fault is.
    const level = back || this.spec.kind !== 'in-process' ? 'info' : 'debug';
    this.logger[level](
      `${back ? 'back up' : 'connected'}: ${serverInfo?.name ?? '?'} ${serverInfo?.version ?? ''} speaking MCP ${protocolVersion}`,
    );
    this.keepPinging(attempt);
    this.events.onStateChange(this.mount);
  }

  private failed(attempt: Attempt, error: unknown): void {
    if (this.stopped) return;
    this.retry(attempt.failure ?? outageOf(error), 'connecting failed');
  }

  /** The serving connection ended by itself: withdraw the mount and reconnect. */
  private lost(attempt: Attempt, why?: Outage): void {
    if (this.stopped || attempt.id !== this.live) return;
    this.live = 0;
    clearInterval(this.pingTimer);
    // A connection that stayed up a while starts the backoff afresh; one
    // that keeps dying right after connecting keeps backing off.
    if (Date.now() - this.upSince >= this.config.upstreams.maxReconnectDelayMs) this.failures = 0;
    this.retry(
      why ??
        attempt.channel.explain() ?? {
          cause: 'the connection closed.',
          fix: 'see the host log; mcp-host reconnects with backoff.',
        },
      'went down',
    );
    this.events.onStateChange(this.mount);
  }

  private retry(outage: Outage, what: string): void {
    const { reconnectDelayMs, maxReconnectDelayMs } = this.config.upstreams;
    const wait = Math.min(reconnectDelayMs * 2 ** this.failures, maxReconnectDelayMs);
    this.failures++;
    this.mount.state = 'down';
    this.mount.outage = outage;
    this.logger.warn(`${what}: ${outage.cause} Reconnecting in ${wait} ms (attempt ${this.failures}).`);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.reconnect(), wait);
    this.retryTimer.unref();
  }

  private reconnect(): void {
    if (this.stopped) return;
    const attempt = this.newAttempt();
    this.mount.peer = attempt.peer;
    this.connect(attempt).then(
      () => this.up(attempt),
      (error: unknown) => this.failed(attempt, error),
    );
  }

  /**
   * A remote that drops while idle says nothing: it is pinged now and then
   * to find out. Only while no call is in flight: a ping beside a call would
   * make the server's mid-call requests unroutable (the peer routes them to
   * the only request in flight), and a call in flight finds out by itself.
   * A child's exit is seen at once, so children are not pinged.
   */
  private keepPinging(attempt: Attempt): void {
    const every = this.config.upstreams.pingIntervalMs;
    if (this.spec.kind !== 'remote' || every === 0) return;
    clearInterval(this.pingTimer);
    this.pingTimer = setInterval(() => {
      if (attempt.peer.inFlight > 0) return;
      attempt.peer.request('ping').catch((error: unknown) => {
        if (attempt.id !== this.live) return;
        this.lost(
          attempt,
          attempt.channel.explain() ?? {
            cause: `it stopped answering: ping failed (${describeThrown(error)}).`,
            fix: 'check the server and the network between it and the host; mcp-host reconnects with backoff.',
          },
        );
        void attempt.peer.close();
      });
    }, every);
    this.pingTimer.unref();
  }

  /** Closing the mount (Mount.close) ends supervision: no connection it loses is reconnected. */
  private get stopped(): boolean {
    return this.mount.state === 'closed';
  }

  /** The mount is closing for good; Mount.close has closed its peer. */
  private stop(): void {
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
  }
}

/** What a mount that has never connected says about itself: nothing yet. */
function notConnected(spec: PluginSpec): Handshake {
  return { protocolVersion: '', capabilities: {}, serverInfo: { name: spec.label, version: '' } };
}

/**
 * An upstream that answered but cannot be mounted, as opposed to one that
 * could not be reached: refused at start-up rather than retried, like a
 * broken plugin. The peer's own failures (closed, timed out) are the latter.
 */
function isRefusal(error: unknown): boolean {
  if (error instanceof HostError) return true;
  return (
    error instanceof RpcError && error.code !== ErrorCode.ConnectionClosed && error.code !== ErrorCode.RequestTimeout
  );
}

function outageOf(error: unknown): Outage {
  if (error instanceof HostError) return { cause: error.what, fix: error.fix ?? 'see the host log.' };
  return {
    cause: endSentence(describeThrown(error)),
    fix: 'see the host log for its output; mcp-host reconnects with backoff.',
  };
}
