import type { JSONRPCNotification, LoggingMessageNotification } from '@modelcontextprotocol/server';
import type { ClientSessions } from './client-sessions.js';
import type { Generation } from './catalogue/generation.js';
import { describeThrown, formatProblem } from './errors.js';
import type { Logger } from './log.js';
import type { Mount, MountEvents } from './mounts/mount.js';
import { RefreshCoalescer } from './mounts/refresh-coalescer.js';
import { driftProblem } from './pins/drift.js';
import { recordMountState } from './sinks/telemetry.js';
import {
  ALL_LIST_KINDS,
  changedListOf,
  keyOf,
  kindsChangedBy,
  type ChangedList,
  type ListKind,
} from './vocabulary/list-kinds.js';
import { accessViewOf, narrowsViews } from './catalogue/access-rules.js';
import type { SessionNotifier } from './sinks/session-notifier.js';
import type { TaskFollowers } from './catalogue/task-followers.js';
import { isTaskNotification } from './vocabulary/task-extension.js';

/**
 * What the live generation's mounts report that no single request owns (a
 * plugin's `list_changed`, resource updates and log messages; a mount going
 * down or coming back), passed on to the sessions that follow it.
 */
export class LiveMountEvents implements MountEvents {
  /** Each mount's refreshes after its own list_changed, coalesced so that a storm of them costs two. */
  private readonly refreshes = new WeakMap<Mount, RefreshCoalescer>();

  /** `live` is the generation being served now (the runtime's), if any. */
  constructor(
    private readonly live: () => Generation | undefined,
    private readonly sessions: ClientSessions,
    private readonly taskFollowers: TaskFollowers,
  ) {}

  onNotification(mount: Mount, notification: JSONRPCNotification): void {
    const params = (notification.params ?? {}) as Record<string, unknown>;
    if (notification.method === 'notifications/message') {
      // Tied to no one session (the peer passes a call's own to its client):
      // it may carry one client's arguments, so it goes to the host's log,
      // never to every client.
      logPluginMessage(mount.logger, params as LoggingMessageNotification['params']);
      return;
    }
    if (isTaskNotification(notification.method)) {
      // A stdio or HTTP upstream's task status, on its listen stream: for the streams that follow the task.
      this.taskFollowers.tell(mount, notification);
      return;
    }
    if (notification.method === 'notifications/resources/updated') {
      this.sessions.resourceUpdated(params, this.live()?.erasServedBy(mount) ?? []);
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
    if (mount.state !== 'closed' && this.live()?.erasServedBy(mount).length)
      mount.logger.warn('the plugin closed its connection');
  }

  /**
   * A supervised mount went down or came back: its lists left or rejoined
   * the catalogue, so every session is told; one that came back is
   * subscribed again to the resources sessions still follow on it.
   */
  onStateChange(mount: Mount): void {
    const generation = this.live();
    const eras = generation?.erasServedBy(mount) ?? [];
    if (!generation || eras.length === 0) return;
    recordMountState(mount);
    generation.reindex();
    const lists = new Set<ChangedList>();
    for (const kind of ALL_LIST_KINDS) {
      if (mount.provides(kind) || mount.items[kind].length > 0) {
        lists.add(changedListOf(kind));
      }
    }
    this.sessions.broadcastListChanged(lists, eras, seenThrough(generation, [servedKeys(generation, mount)]));
    if (mount.isUp) this.sessions.resubscribe(generation, mount);
  }

  /**
   * A plugin's own `list_changed`: refresh its copy, re-check collisions,
   * and pass the notification on as the host's.
   */
  private async mountListsChanged(mount: Mount, kinds: ReturnType<typeof kindsChangedBy>): Promise<void> {
    const before = this.live() && servedKeys(this.live()!, mount);
    try {
      await mount.refresh(kinds);
    } catch (error) {
      mount.logger.warn(`could not refresh its lists after list_changed: ${describeThrown(error)}`);
    }
    const generation = this.live();
    const eras = generation?.erasServedBy(mount) ?? [];
    if (!generation || eras.length === 0) return;
    generation.reindex();
    // A plugin can change a definition under a running host: judge it against the lock now, not at the next reload.
    for (const { mount: owner, drift, withheld } of generation.view(eras[0]!).index.drifts) {
      if (owner === mount) mount.logger.warn(formatProblem(driftProblem(mount.description, drift, withheld)));
    }
    // A change in one face of a dual-era upstream is news only to that era's clients.
    const touched = [servedKeys(generation, mount), ...(before ? [before] : [])];
    this.sessions.broadcastListChanged(new Set(kinds.map(changedListOf)), eras, seenThrough(generation, touched));
  }
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

/**
 * The composed keys of what a generation serves of `mount`, per kind, in the
 * view of the era whose face it is; none without access rules or virtual servers, which alone
 * need them.
 */
function servedKeys(generation: Generation, mount: Mount): [ListKind, string][] {
  const view = generation.eraViews.find((eraView) => eraView.mounts.includes(mount));
  if (!view || !narrowsViews(generation.config)) return [];
  return ALL_LIST_KINDS.flatMap((kind) =>
    view.served(mount, kind).map((item): [ListKind, string] => [kind, keyOf(kind, item)]),
  );
}

/**
 * Under access rules or virtual servers, which of a mount's changed lists a session hears of:
 * those where its rules let it see some of the mount's items (`touched`,
 * before the change and after). Undefined (everyone hears) without rules.
 */
function seenThrough(
  generation: Generation,
  touched: [ListKind, string][][],
): ((session: SessionNotifier) => ReadonlySet<ChangedList>) | undefined {
  if (!narrowsViews(generation.config)) return undefined;
  return (session) => {
    if (!session.identity) return new Set(ALL_LIST_KINDS.map(changedListOf));
    const access = accessViewOf(generation.config, session.identity);
    const seen = touched.flat().filter(([kind, key]) => access.allows(kind, key));
    return new Set(seen.map(([kind]) => changedListOf(kind)));
  };
}
