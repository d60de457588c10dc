import { randomBytes, randomUUID } from 'node:crypto';
import type { JSONRPCNotification, LoggingMessageNotification } from '@modelcontextprotocol/server';
import type { Generation } from './catalogue/generation.js';
import { ALL_LIST_KINDS, changedListOf, kindsChangedBy, type ChangedList } from './catalogue/list-kinds.js';
import type { Logger } from './log.js';
import type { Mount, MountEvents } from './mounts/mount.js';
import type { SessionNotifier } from './proxy/front-session.js';
import { diffGenerations, type CatalogueDiff } from './reload/catalogue-diff.js';
import { describeThrown, formatProblem } from './errors.js';
import { driftProblem } from './pins/drift.js';
import { subscriptionOwner } from './catalogue/routing.js';
import { RefreshCoalescer } from './mounts/refresh-coalescer.js';
import { recordListChanged, recordMountState } from './telemetry/telemetry.js';
import type { StateSigning } from './cluster/continuation-owner.js';
import { ERAS, type Era } from './protocol-versions.js';

/**
 * The running host: the live generation, the connected sessions, and the
 * traffic between them that no single request owns (a plugin's
 * `list_changed`, resource updates and log messages; a reload's swap).
 *
 * Front servers read `current` at every request, so swapping it is the
 * single step that moves every client to a new catalogue.
 */
export class HostRuntime implements MountEvents {
  private live: Generation | undefined;
  /** Every long-lived session and notifier, reachable or not. */
  readonly sessions = new Set<SessionNotifier>();
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
  /** Each mount's refreshes after its own list_changed, coalesced so that a storm of them costs two. */
  private readonly refreshes = new WeakMap<Mount, RefreshCoalescer>();

  /**
   * How the `requestState` of a 2026-07-28 continuation is signed and which
   * replica it names: a key of this process's own, or the cluster's when
   * replicas share calls (start.ts).
   */
  get stateSigning(): StateSigning {
    // Made at first use: the first random bytes of a process cost a start 2-3 ms, and most hosts never sign a continuation.
    return (this.signing ??= { key: randomBytes(32), replica: randomUUID() });
  }

  set stateSigning(signing: StateSigning) {
    this.signing = signing;
  }

  private signing?: StateSigning;

  constructor(readonly logger: Logger) {}

  /** The live generation, or undefined before the first is installed (telemetry is on while it is built). */
  get installed(): Generation | undefined {
    return this.live;
  }

  get current(): Generation {
    if (!this.live) throw new Error('the host has no catalogue yet');
    return this.live;
  }

  /**
   * Install the first generation (start-up) or swap in the next (reload):
   * what changed, and the `list_changed` notifications sent for it.
   */
  swap(next: Generation): (CatalogueDiff & { notified: Set<ChangedList> }) | undefined {
    const before = this.live;
    this.live = next;
    // A supervised mount may have come back since `next` was built, while
    // only the live generation hears of it: index it as it is now.
    next.reindex();
    if (!before) return undefined;
    // Reported to whoever asked: the changes of the generation's own mounts (a dual-era mount's 2026-07-28 face).
    const diff = diffGenerations(before, next);
    // Each era's clients are told of what changed in the catalogue they are served.
    const legacyDiff =
      before.view('legacy') === before && next.view('legacy') === next
        ? diff
        : diffGenerations(before.view('legacy'), next.view('legacy'));
    const notified = this.broadcastListChanged(diff.changedLists, ['modern']);
    for (const list of this.broadcastListChanged(legacyDiff.changedLists, ['legacy'])) notified.add(list);
    const kept = new Set(next.mounts);
    // A new or replaced plugin starts with no subscriptions: renew those sessions hold on what it serves.
    const previous = new Set(before.mounts);
    for (const mount of next.mounts) {
      if (previous.has(mount)) continue;
      for (const face of [mount, mount.legacyFace]) if (face?.isUp) this.resubscribe(next, face);
    }
    void this.retire(
      before.mounts.filter((mount) => !kept.has(mount)),
      next.config.reload.drainTimeoutMs,
      'a reload removed or replaced this plugin',
    );
    return { ...diff, notified };
  }

  /**
   * Close mounts a reload removed or replaced once their calls finish, or
   * when the drain timeout passes: then what is left is cancelled, and its
   * clients are told `why` (the reason the mount is going away).
   */
  async retire(mounts: readonly Mount[], drainTimeoutMs: number, why = 'the host is stopping'): Promise<void> {
    const deadline = Date.now() + drainTimeoutMs;
    await Promise.all(
      mounts.map(async (mount) => {
        // A mount that is down has no client calls, only its own reconnection: nothing to wait for.
        // The legacy face of a dual-era upstream drains with it.
        const faces = mount.legacyFace ? [mount, mount.legacyFace] : [mount];
        const busy = (face: Mount) => face.isUp && face.peer.inFlight > 0;
        while (faces.some(busy) && Date.now() < deadline) await sleep(20);
        for (const face of faces.filter(busy)) {
          face.logger.warn(`closing with ${face.peer.inFlight} calls still running after the drain timeout`);
          face.peer.abandon(
            `${why}, and the call was still running at the drain timeout (reload.drainTimeoutMs, ${drainTimeoutMs} ms). Fix: raise reload.drainTimeoutMs in the host config.`,
          );
        }
        await mount.close().catch((error: unknown) => mount.logger.warn({ err: error }, 'close failed'));
      }),
    );
  }

  /** Tell every session of `eras` that can hear it; returns the lists at least one session was sent. */
  broadcastListChanged(lists: ReadonlySet<ChangedList>, eras: readonly Era[] = ERAS): Set<ChangedList> {
    const sent = new Set<ChangedList>();
    if (lists.size === 0) return sent;
    for (const session of this.reachable) {
      if (!eras.includes(session.era)) continue;
      const told = session.listChanged(lists);
      recordListChanged(told);
      for (const list of told) sent.add(list);
    }
    return sent;
  }

  onNotification(mount: Mount, notification: JSONRPCNotification): void {
    const params = (notification.params ?? {}) as Record<string, unknown>;
    if (notification.method === 'notifications/message') {
      // Tied to no one session (the peer passes a call's own to its client):
      // it may carry one client's arguments, so it goes to the host's log,
      // never to every client.
      logPluginMessage(mount.logger, params as LoggingMessageNotification['params']);
      return;
    }
    if (notification.method === 'notifications/resources/updated') {
      const eras = this.live?.erasServedBy(mount) ?? [];
      for (const session of this.subscribers.get(String(params.uri)) ?? []) {
        if (eras.includes(session.era)) session.resourceUpdated(params as { uri: string });
      }
      return;
    }
    const kinds = kindsChangedBy(notification.method);
    if (kinds.length > 0) this.refreshesOf(mount).request(kinds);
  }

  private refreshesOf(mount: Mount): RefreshCoalescer {
    let refreshes = this.refreshes.get(mount);
    if (!refreshes) {
      refreshes = new RefreshCoalescer((kinds) => this.mountListsChanged(mount, kinds));
      this.refreshes.set(mount, refreshes);
    }
    return refreshes;
  }

  onClose(mount: Mount): void {
    if (mount.state !== 'closed' && this.live?.erasServedBy(mount).length)
      mount.logger.warn('the plugin closed its connection');
  }

  /**
   * A supervised mount went down or came back: its lists left or rejoined
   * the catalogue, so every session is told; one that came back is
   * subscribed again to the resources sessions still follow on it.
   */
  onStateChange(mount: Mount): void {
    const generation = this.live;
    const eras = generation?.erasServedBy(mount) ?? [];
    if (eras.length === 0) return;
    recordMountState(mount);
    generation!.reindex();
    const lists = new Set<ChangedList>();
    for (const kind of ALL_LIST_KINDS) {
      if (mount.provides(kind) || mount.items[kind].length > 0) {
        lists.add(changedListOf(kind));
      }
    }
    this.broadcastListChanged(lists, eras);
    if (mount.isUp) this.resubscribe(generation!, mount);
  }

  /** A reconnected upstream starts with no subscriptions: renew those sessions still hold on it. */
  private resubscribe(generation: Generation, mount: Mount): void {
    for (const [uri, sessions] of this.subscribers) {
      if (!subscribedThrough(generation, mount, uri, sessions)) continue;
      mount
        .request('resources/subscribe', { uri })
        .catch((error: unknown) => mount.logger.warn(`could not subscribe again to ${uri}: ${describeThrown(error)}`));
    }
  }

  /**
   * A plugin's own `list_changed`: refresh its copy, re-check collisions,
   * and pass the notification on as the host's.
   */
  private async mountListsChanged(mount: Mount, kinds: ReturnType<typeof kindsChangedBy>): Promise<void> {
    try {
      await mount.refresh(kinds);
    } catch (error) {
      mount.logger.warn(`could not refresh its lists after list_changed: ${describeThrown(error)}`);
    }
    const generation = this.live;
    const eras = generation?.erasServedBy(mount) ?? [];
    if (eras.length === 0) return;
    generation!.reindex();
    // A plugin can change a definition under a running host: judge it against the lock now, not at the next reload.
    for (const { mount: owner, drift, withheld } of generation!.view(eras[0]!).index.drifts) {
      if (owner === mount) mount.logger.warn(formatProblem(driftProblem(mount.description, drift, withheld)));
    }
    // A change in one face of a dual-era upstream is news only to that era's clients.
    this.broadcastListChanged(new Set(kinds.map(changedListOf)), eras);
  }

  /**
   * Subscribe a session to a resource. The owning plugin is asked once, by
   * the first session; later sessions join that subscription.
   */
  async subscribe(session: SessionNotifier, uri: string): Promise<void> {
    const generation = this.current;
    const sessions = this.subscribers.get(uri) ?? new Set<SessionNotifier>();
    const owner = subscriptionOwner(generation.view(session.era), uri);
    if (!subscribedThrough(generation, owner, uri, sessions)) await owner.request('resources/subscribe', { uri });
    sessions.add(session);
    session.subscriptions.add(uri);
    this.subscribers.set(uri, sessions);
  }

  /** Unsubscribe a session; the plugin is told when the last session leaves. */
  async unsubscribe(session: SessionNotifier, uri: string): Promise<void> {
    session.subscriptions.delete(uri);
    const sessions = this.subscribers.get(uri);
    if (!sessions?.delete(session)) return;
    if (sessions.size === 0) this.subscribers.delete(uri);
    const generation = this.current;
    const owner = subscriptionOwner(generation.view(session.era), uri);
    if (!subscribedThrough(generation, owner, uri, sessions)) await owner.request('resources/unsubscribe', { uri });
  }

  /** A long-lived session joins; `reachable` says whether a broadcast can reach it yet. */
  addSession(session: SessionNotifier, reachable = true): void {
    this.sessions.add(session);
    if (reachable) this.reachable.add(session);
  }

  /** A session's notification stream opened or closed (a 2025-era HTTP session's GET stream). */
  setReachable(session: SessionNotifier, reachable: boolean): void {
    if (reachable && this.sessions.has(session)) this.reachable.add(session);
    else this.reachable.delete(session);
  }

  removeSession(session: SessionNotifier): void {
    this.sessions.delete(session);
    this.reachable.delete(session);
    for (const uri of [...session.subscriptions]) {
      this.unsubscribe(session, uri).catch((error: unknown) =>
        this.logger.debug({ err: error }, `could not unsubscribe from ${uri}`),
      );
    }
  }

  /** Close every mount of the live generation (shutdown). */
  async close(): Promise<void> {
    const mounts = this.live?.mounts ?? [];
    await Promise.allSettled(mounts.map((mount) => mount.close()));
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

/** MCP's syslog levels as pino's. */
const PINO_LEVEL_OF = {
  debug: 'debug',
  info: 'info',
  notice: 'info',
  warning: 'warn',
  error: 'error',
  critical: 'error',
  alert: 'error',
  emergency: 'error',
} as const;

function logPluginMessage(logger: Logger, params: LoggingMessageNotification['params']): void {
  const level = PINO_LEVEL_OF[params.level] ?? 'info';
  logger[level](
    { pluginLogger: params.logger, data: params.data },
    'log message from the plugin, tied to no single client session',
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
