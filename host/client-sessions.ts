import type { Generation } from './catalogue/generation.js';
import { subscriptionOwner } from './catalogue/routing.js';
import { describeThrown } from './errors.js';
import type { Logger } from './log.js';
import type { Mount } from './mounts/mount.js';
import type { SessionNotifier } from './sinks/session-notifier.js';
import { recordListChanged } from './sinks/telemetry.js';
import type { ChangedList } from './vocabulary/list-kinds.js';
import { ERAS, type Era } from './protocol-versions.js';
import type { Identity } from './vocabulary/identity.js';

/**
 * The long-lived sessions the host notifies and the resources they follow:
 * a broadcast reaches the sessions that can hear it now, and a plugin is
 * subscribed to a URI once however many sessions follow it. Iterating gives
 * every session, reachable or not.
 */
export class ClientSessions implements Iterable<SessionNotifier> {
  /** Every long-lived session and notifier, reachable or not. */
  private readonly all = new Set<SessionNotifier>();
  /**
   * The sessions a broadcast can reach now (stdio's client, a 2025-era HTTP
   * session while its GET stream is open, the 2026-07-28 endpoint's
   * streams): a `list_changed` costs what it reaches, however many quiet
   * sessions are open.
   */
  private readonly reachable = new Set<SessionNotifier>();
  /**
   * Sessions per subscribed URI, so a plugin is subscribed once however many
   * clients are (each face of a dual-era upstream once, for its own era's).
   */
  private readonly subscribers = new Map<string, Set<SessionNotifier>>();

  /** `live` is the generation that owns each URI now (the runtime's). */
  constructor(
    private readonly live: () => Generation,
    private readonly logger: Logger,
  ) {}

  get size(): number {
    return this.all.size;
  }

  [Symbol.iterator](): Iterator<SessionNotifier> {
    return this.all[Symbol.iterator]();
  }

  /** A long-lived session joins; `reachable` says whether a broadcast can reach it yet. */
  add(session: SessionNotifier, reachable = true): void {
    this.all.add(session);
    if (reachable) this.reachable.add(session);
  }

  /** A session's notification stream opened or closed (a 2025-era HTTP session's GET stream). */
  setReachable(session: SessionNotifier, reachable: boolean): void {
    if (reachable && this.all.has(session)) this.reachable.add(session);
    else this.reachable.delete(session);
  }

  remove(session: SessionNotifier): void {
    this.all.delete(session);
    this.reachable.delete(session);
    for (const uri of [...session.subscriptions]) {
      this.unsubscribe(session, uri).catch((error: unknown) =>
        this.logger.debug({ err: error }, `could not unsubscribe from ${uri}`),
      );
    }
  }

  /**
   * Tell every session of `eras` that can hear it; returns the lists at least
   * one session was sent. `seenBy`, when given, narrows `lists` to those a
   * session's identity can see change (access rules).
   */
  broadcastListChanged(
    lists: ReadonlySet<ChangedList>,
    eras: readonly Era[] = ERAS,
    seenBy?: (session: SessionNotifier) => ReadonlySet<ChangedList>,
  ): Set<ChangedList> {
    const sent = new Set<ChangedList>();
    if (lists.size === 0) return sent;
    for (const session of this.reachable) {
      if (!eras.includes(session.era)) continue;
      const seen = seenBy ? seenBy(session) : lists;
      const told = session.listChanged(new Set([...seen].filter((list) => lists.has(list))));
      recordListChanged(told);
      for (const list of told) sent.add(list);
    }
    return sent;
  }

  /**
   * A plugin's `notifications/resources/updated`, to the sessions that follow
   * the URI among those of `eras` (the eras the notifying mount serves).
   */
  resourceUpdated(params: Record<string, unknown>, eras: readonly Era[]): void {
    for (const session of this.subscribers.get(String(params.uri)) ?? []) {
      if (eras.includes(session.era)) session.resourceUpdated(params as { uri: string });
    }
  }

  /**
   * Subscribe a session to a resource. The owning plugin is asked once, by
   * the first session; later sessions join that subscription. `identity`,
   * the subscriber, must be allowed the URI by the access rules.
   */
  async subscribe(session: SessionNotifier, uri: string, identity?: Identity): Promise<void> {
    const generation = this.live();
    const sessions = this.subscribers.get(uri) ?? new Set<SessionNotifier>();
    const owner = subscriptionOwner(generation.view(session.era), uri, identity);
    if (owner.sessionPeers && session.scope) {
      // The session's own upstream is subscribed, and tells that session alone (proxy/session-scope.ts).
      await owner.request('resources/subscribe', { uri }, { scope: session.scope });
      session.subscriptions.add(uri);
      return;
    }
    if (!subscribedThrough(generation, owner, uri, sessions)) await owner.request('resources/subscribe', { uri });
    sessions.add(session);
    session.subscriptions.add(uri);
    this.subscribers.set(uri, sessions);
  }

  /** Unsubscribe a session; the plugin is told when the last session leaves. */
  async unsubscribe(session: SessionNotifier, uri: string): Promise<void> {
    const held = session.subscriptions.delete(uri);
    const sessions = this.subscribers.get(uri);
    if (!sessions?.delete(session)) {
      if (held) await this.unsubscribeOwnUpstream(session, uri);
      return;
    }
    if (sessions.size === 0) this.subscribers.delete(uri);
    const generation = this.live();
    const owner = subscriptionOwner(generation.view(session.era), uri);
    if (!subscribedThrough(generation, owner, uri, sessions)) await owner.request('resources/unsubscribe', { uri });
  }

  /** A subscription held on the session's own upstream of a `sessions: 'per-client'` mount, while it is open. */
  private async unsubscribeOwnUpstream(session: SessionNotifier, uri: string): Promise<void> {
    if (!session.scope || session.scope.ended) return;
    const owner = subscriptionOwner(this.live().view(session.era), uri);
    if (owner.sessionPeers) await owner.request('resources/unsubscribe', { uri }, { scope: session.scope });
  }

  /** A reconnected upstream starts with no subscriptions: renew those sessions still hold on it. */
  resubscribe(generation: Generation, mount: Mount): void {
    for (const [uri, sessions] of this.subscribers) {
      if (!subscribedThrough(generation, mount, uri, sessions)) continue;
      mount
        .request('resources/subscribe', { uri })
        .catch((error: unknown) => mount.logger.warn(`could not subscribe again to ${uri}: ${describeThrown(error)}`));
    }
  }
}

/**
 * Whether some of `sessions` follow `uri` through `mount`: the owner of the
 * URI in the catalogue of their era. A mount of one face serves both eras,
 * so a legacy session and a 2026-07-28 one share its subscription; each
 * face of a dual-era upstream is subscribed for its own era's sessions.
 */
function subscribedThrough(
  generation: Generation,
  mount: Mount,
  uri: string,
  sessions: Iterable<SessionNotifier>,
): boolean {
  const eras = new Set([...sessions].map((session) => session.era));
  return [...eras].some((era) => {
    try {
      return subscriptionOwner(generation.view(era), uri) === mount;
    } catch {
      return false; // no mount of that era serves it now
    }
  });
}
