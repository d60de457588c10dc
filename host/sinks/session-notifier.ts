import type { ChangedList } from '../vocabulary/list-kinds.js';
import type { Era } from '../protocol-versions.js';
import type { ClientScope } from '../vocabulary/client-scope.js';
import type { Identity } from '../vocabulary/identity.js';

/**
 * What the runtime needs of anything it notifies: a long-lived client
 * session (proxy/front-session.ts), or one of the 2026-07-28 HTTP
 * handler's `subscriptions/listen` streams (serve/listen-streams.ts). Both
 * sit above the runtime, which calls them only through this.
 */
export interface SessionNotifier {
  /** The era of the clients it notifies: it hears only of changes to the catalogue of that era. */
  readonly era: Era;
  /** The resource URIs this notifier is subscribed to through the runtime. */
  readonly subscriptions: Set<string>;
  /** Set on a notifier that is no client's session (a 2026-07-28 listen stream): it is not counted as one. */
  readonly fansOut?: boolean;
  /** A long-lived 2025-era session's scope: its subscriptions on a `sessions: 'per-client'` mount are its own upstream's. */
  readonly scope?: ClientScope;
  /** When its client last sent a request (ms since the epoch): `status` tells active sessions from idle ones. */
  readonly lastActive?: number;
  /** Whom it notifies, when known: its access rules decide which changes it is told of. */
  readonly identity?: Identity;
  /** Send the `list_changed` notifications this client can receive; returns the lists sent. */
  listChanged(lists: ReadonlySet<ChangedList>): ChangedList[];
  resourceUpdated(params: { uri: string; [key: string]: unknown }): void;
}
