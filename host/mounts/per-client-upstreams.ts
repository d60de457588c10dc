import type { ResolvedConfig } from '../config/types.js';
import { HostError, describeThrown } from '../errors.js';
import type { Logger } from '../log.js';
import { ErrorCode, RpcError } from '../rpc-error.js';
import { recordLimitHit } from '../sinks/telemetry.js';
import type { ClientScope } from '../vocabulary/client-scope.js';
import { HOST_CLIENT_CAPABILITIES, handshakeVersion } from './handshake-version.js';
import type { Mount, SessionPeers } from './mount.js';
import type { ExplainedChannel } from './supervisor.js';
import { UpstreamPeer } from './upstream-peer.js';

/**
 * What a session's own upstream says about no request that is news to that
 * session: its log lines and its updates to the resources the session
 * subscribed to there. Its lists are not the catalogue (the shared
 * upstream's are), so their changes are nobody's news.
 */
const SESSION_NEWS = new Set(['notifications/message', 'notifications/resources/updated']);

/** One client session's own upstream: its connection, and the handshake that readies it. */
interface SessionUpstream {
  peer: UpstreamPeer;
  channel: ExplainedChannel;
  ready: Promise<UpstreamPeer>;
  stopListening: () => void;
  /** The host is closing it (the session ended, the mount closed): its end is no news. */
  closing: boolean;
}

/**
 * The upstreams of a `sessions: 'per-client'` entry: besides the mount's
 * shared upstream (which serves the catalogue, one per generation, and
 * 2026-07-28 requests), each long-lived 2025-era client session gets a
 * child process or an upstream HTTP session of its own for its requests.
 * So what that upstream says about no request (a stdio child's log lines,
 * a resource update, a remote's lines on its session stream) can only be
 * about that session, and goes to it (`ClientScope.notify`); its state (a
 * counter, a login) is that session's alone.
 *
 * An upstream is opened at the session's first request to the mount, and
 * closed when the session ends and when the mount closes (reload, retire,
 * shutdown). At most `upstreams.maxPerClientSessions` are open per mount:
 * one more session is refused naming the key. One that ends by itself (the
 * child exited) is that session's loss alone: its calls in flight fail
 * saying why, the shared mount and other sessions go on, and the session's
 * next request opens a fresh one.
 */
export class PerClientUpstreams implements SessionPeers {
  private readonly upstreams = new Map<ClientScope, SessionUpstream>();

  constructor(
    private readonly mount: Mount,
    /** A fresh channel to the upstream, logging under `logger`. */
    private readonly open: (logger: Logger) => ExplainedChannel,
    private readonly config: ResolvedConfig,
  ) {}

  /** Calls waiting for an answer from any session's upstream. */
  get inFlight(): number {
    let calls = 0;
    for (const { peer } of this.upstreams.values()) calls += peer.inFlight;
    return calls;
  }

  /** The peer serving `scope`'s requests, opened at its first. */
  peerFor(scope: ClientScope): Promise<UpstreamPeer> {
    const known = this.upstreams.get(scope);
    if (known) return known.ready;
    // A request that raced its session's end opens nothing: no end would ever close it.
    if (scope.ended) {
      return Promise.reject(
        new RpcError(ErrorCode.ConnectionClosed, `${scope.name} has ended: no upstream is opened for it.`),
      );
    }
    const limit = this.config.upstreams.maxPerClientSessions;
    if (this.upstreams.size >= limit) {
      recordLimitHit('upstreams.maxPerClientSessions');
      this.mount.logger.warn(
        `refused an upstream for ${scope.name}: ${limit} client sessions hold one (upstreams.maxPerClientSessions)`,
      );
      return Promise.reject(
        new HostError({
          where: this.mount.description,
          what: `has ${limit} upstreams open, one per client session, its limit (upstreams.maxPerClientSessions, with sessions: 'per-client'), so ${scope.name} gets none.`,
          fix: 'end client sessions no longer used (DELETE with their Mcp-Session-Id), retry later, or raise upstreams.maxPerClientSessions in the host config.',
        }),
      );
    }
    const owned = this.ownedBy(scope.owner);
    const share = Math.ceil(limit / 2);
    if (owned >= share) {
      recordLimitHit('upstreams.maxPerClientSessions');
      this.mount.logger.warn(
        `refused an upstream for ${scope.name}: its owner ${scope.owner} holds ${owned}, half of upstreams.maxPerClientSessions`,
      );
      return Promise.reject(
        new HostError({
          where: this.mount.description,
          what: `has ${owned} of its ${limit} upstreams (upstreams.maxPerClientSessions, with sessions: 'per-client') open for sessions of ${scope.owner}, the most one client may hold (half, so that one client cannot take them all), so ${scope.name} gets none.`,
          fix: `end sessions of ${scope.owner} no longer used (DELETE with their Mcp-Session-Id), or raise upstreams.maxPerClientSessions in the host config.`,
        }),
      );
    }
    return this.start(scope).ready;
  }

  /** How many upstreams sessions of `owner` hold (none counted for sessions of no known owner: stdio, open HTTP). */
  private ownedBy(owner: string | undefined): number {
    if (owner === undefined) return 0;
    let owned = 0;
    for (const scope of this.upstreams.keys()) if (scope.owner === owner) owned += 1;
    return owned;
  }

  private start(scope: ClientScope): SessionUpstream {
    const logger = this.mount.logger.child({ clientSession: scope.name });
    const channel = this.open(logger);
    const peer: UpstreamPeer = new UpstreamPeer(channel, {
      label: this.mount.name,
      logger,
      timeoutMs: this.mount.spec.timeoutMs,
      forwardHeaders: this.mount.spec.forwardHeaders,
      onNotification: (notification) => {
        if (SESSION_NEWS.has(notification.method)) scope.notify(notification);
      },
      onClose: () => this.lost(scope, upstream),
      closeReason: () => channel.explain()?.cause,
    });
    const upstream: SessionUpstream = {
      peer,
      channel,
      ready: this.connect(scope, peer, channel, logger),
      stopListening: scope.onEnd(() => void this.end(scope)),
      closing: false,
    };
    this.upstreams.set(scope, upstream);
    // One that could not be opened is forgotten: the session's next request tries again.
    upstream.ready.catch(() => this.forget(scope, upstream));
    return upstream;
  }

  /** The handshake, spoken as the mount's shared upstream was (2026-07-28 or not). */
  private async connect(
    scope: ClientScope,
    peer: UpstreamPeer,
    channel: ExplainedChannel,
    logger: Logger,
  ): Promise<UpstreamPeer> {
    try {
      await peer.negotiate({
        modern: this.mount.peer.speaksModern,
        legacyRevision: handshakeVersion(this.config.protocolVersions),
        capabilities: HOST_CLIENT_CAPABILITIES,
        silenceMeansLegacy: this.mount.spec.kind !== 'remote',
      });
    } catch (error) {
      const outage = channel.explain();
      await peer.close().catch(() => {});
      throw new HostError({
        where: this.mount.description,
        what: `could not open the upstream of ${scope.name} (sessions: 'per-client'): ${outage?.cause ?? describeThrown(error)}`,
        fix: `${outage?.fix ?? 'see the host log for its output.'} The session's next request tries again.`,
      });
    }
    logger.info(`opened an upstream of its own for ${scope.name}`);
    return peer;
  }

  /** Its connection ended: by the host's hand (no news), or by itself (that session's loss alone). */
  private lost(scope: ClientScope, upstream: SessionUpstream): void {
    if (upstream.closing || this.upstreams.get(scope) !== upstream) return;
    this.forget(scope, upstream);
    const cause = upstream.channel.explain()?.cause ?? 'the connection closed.';
    this.mount.logger.warn(
      `the upstream of ${scope.name} ended: ${cause} The session's next request opens a fresh one; other sessions are not affected.`,
    );
  }

  private forget(scope: ClientScope, upstream: SessionUpstream): void {
    if (this.upstreams.get(scope) === upstream) this.upstreams.delete(scope);
    upstream.stopListening();
  }

  /** The session ended: close its upstream (a child exits, an upstream HTTP session is deleted). */
  private async end(scope: ClientScope): Promise<void> {
    const upstream = this.upstreams.get(scope);
    if (!upstream) return;
    upstream.closing = true;
    this.forget(scope, upstream);
    await upstream.peer
      .close()
      .catch((error: unknown) =>
        this.mount.logger.warn({ err: error }, `closing the upstream of ${scope.name} failed`),
      );
    this.mount.logger.debug(`closed the upstream of ${scope.name}`);
  }

  abandon(reason: string): void {
    for (const { peer } of this.upstreams.values()) peer.abandon(reason);
  }

  /** The mount is closing (Mount.close refuses requests from then on): every session's upstream closes with it. */
  async close(): Promise<void> {
    await Promise.all([...this.upstreams.keys()].map((scope) => this.end(scope)));
  }
}
