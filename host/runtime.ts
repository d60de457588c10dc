import { TaskHandles } from './catalogue/task-handles.js';
import { TaskFollowers } from './catalogue/task-followers.js';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Generation } from './catalogue/generation.js';
import type { ChangedList } from './vocabulary/list-kinds.js';
import type { Logger } from './log.js';
import { changedListsSeenBy, diffGenerations, type CatalogueDiff } from './catalogue/catalogue-diff.js';
import { accessViewOf, narrowsViews } from './catalogue/access-rules.js';
import type { SessionNotifier } from './sinks/session-notifier.js';
import type { Era } from './protocol-versions.js';
import { retireMounts } from './mounts/retire.js';
import type { StateSigning } from './vocabulary/continuation-owner.js';
import { ClientSessions } from './client-sessions.js';
import { LiveMountEvents } from './mount-events.js';
import type { Problem } from './errors.js';

/** What the last reload did, as `mcp-host status` tells it: a refused reload leaves the old generation serving. */
export interface ReloadRecord {
  /** When it settled (ISO 8601). */
  at: string;
  /** What started it: the file watch, SIGHUP, `mcp-host reload`. */
  trigger: string;
  /** A new generation served (`applied`), one served that changed nothing a client sees (`unchanged`), or none. */
  outcome: 'applied' | 'unchanged' | 'refused';
  /** The generation serving after it. */
  generation: number;
  /** Why it was refused, each with its fix. */
  problems?: Problem[];
}

/**
 * The running host: the live generation, swapped by a reload. What its
 * mounts report that no request owns goes to `events` (mount-events.ts),
 * and from there to the connected `sessions` (client-sessions.ts).
 *
 * Front servers read `current` at every request, so swapping it is the
 * single step that moves every client to a new catalogue.
 */
export class HostRuntime {
  private live: Generation | undefined;
  /** The long-lived sessions, and the resources they follow. */
  readonly sessions: ClientSessions;
  /** What the mounts report: passed as the `events` of every mount started for this host. */
  readonly events: LiveMountEvents;

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

  /** The client-facing IDs of the tasks mounts started (task-handles.ts), named for this replica. */
  readonly tasks = new TaskHandles(
    () => this.stateSigning.replica,
    () => this.live?.config.limits?.tasks,
  );
  /** The listen streams following those tasks' status (task-followers.ts). */
  readonly taskFollowers = new TaskFollowers();

  /** Where clients reach this host: `stdio`, or the URL of its HTTP endpoint (start.ts sets it once serving). */
  serving: string[] = [];
  /** The last reload's outcome, whatever triggered it (reloader.ts records it); undefined before the first. */
  lastReload?: ReloadRecord;

  constructor(readonly logger: Logger) {
    this.sessions = new ClientSessions(() => this.current, logger);
    this.events = new LiveMountEvents(() => this.live, this.sessions, this.taskFollowers);
  }

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
    // The search index of the new catalogue is the old one's, changed where the reload changed it.
    next.succeed(before);
    // Reported to whoever asked: the changes of the generation's own mounts (a dual-era mount's 2026-07-28 face).
    const diff = diffGenerations(before, next);
    // Each era's clients are told of what changed in the catalogue they are served.
    const legacyDiff =
      before.view('legacy') === before && next.view('legacy') === next
        ? diff
        : diffGenerations(before.view('legacy'), next.view('legacy'));
    const notified = this.sessions.broadcastListChanged(...toldOf(before, next, 'modern', diff.changedLists));
    const toldLegacy = toldOf(before, next, 'legacy', legacyDiff.changedLists);
    for (const list of this.sessions.broadcastListChanged(...toldLegacy)) notified.add(list);
    const kept = new Set(next.mounts);
    // A new or replaced plugin starts with no subscriptions: renew those sessions hold on what it serves.
    const previous = new Set(before.mounts);
    for (const mount of next.mounts) {
      if (previous.has(mount)) continue;
      for (const face of [mount, mount.legacyFace]) if (face?.isUp) this.sessions.resubscribe(next, face);
    }
    void retireMounts(
      before.mounts.filter((mount) => !kept.has(mount)),
      next.config.reload.drainTimeoutMs,
      'a reload removed or replaced this plugin',
    );
    return { ...diff, notified };
  }

  /** Close every mount of the live generation (shutdown). */
  async close(): Promise<void> {
    const mounts = this.live?.mounts ?? [];
    await Promise.allSettled(mounts.map((mount) => mount.close()));
  }
}

/**
 * What a swap tells the sessions of `era`: the lists that changed, or, under
 * access rules or virtual servers (before or after), each client the lists
 * whose part it may see changed, its rules' and server's change included (computed once per pair of rule
 * sets, not per client).
 */
function toldOf(
  before: Generation,
  next: Generation,
  era: Era,
  changed: Set<ChangedList>,
): Parameters<ClientSessions['broadcastListChanged']> {
  if (!narrowsViews(before.config) && !narrowsViews(next.config)) return [changed, [era]];
  const seen = new Map<string, Set<ChangedList>>();
  const every = new Set<ChangedList>(['tools', 'prompts', 'resources']);
  // A notifier of no known identity cannot be told apart from others: when the rules changed, it is
  // told of every list, as its view may have changed.
  const rulesOf = ({ config }: Generation) => JSON.stringify([config.access, config.servers]);
  const rulesChanged = rulesOf(before) !== rulesOf(next);
  const seenBy = (session: SessionNotifier): ReadonlySet<ChangedList> => {
    const { identity } = session;
    if (!identity) return rulesChanged ? every : changed;
    const key = `${accessViewOf(before.config, identity).key}|${accessViewOf(next.config, identity).key}`;
    let lists = seen.get(key);
    if (!lists) seen.set(key, (lists = changedListsSeenBy(before.view(era), next.view(era), identity)));
    return lists;
  };
  return [every, [era], seenBy];
}
