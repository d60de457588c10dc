import { Server } from '@modelcontextprotocol/server';
import type { Logger } from '../log.js';

import type { ChangedList } from '../vocabulary/list-kinds.js';
import type { SessionNotifier } from '../sinks/session-notifier.js';
import type { Era } from '../protocol-versions.js';
import type { ClientScope } from '../vocabulary/client-scope.js';
import type { Identity } from '../vocabulary/identity.js';

/**
 * One connected client as the host sees it: the SDK `Server` instance that
 * speaks to it, and the resources it subscribed to. Lives as long as the
 * client's connection (a stdio connection, a legacy HTTP session).
 */
export class FrontSession implements SessionNotifier {
  readonly subscriptions = new Set<string>();
  /** Set on a long-lived 2025-era session: what keys its own upstreams, on mounts with `sessions: 'per-client'`. */
  scope?: ClientScope;
  /** When its client last sent a request or an exchange of it ended (its transport's serving layer keeps it). */
  lastActive = Date.now();

  constructor(
    readonly server: Server,
    private readonly logger: Logger,
    readonly era: Era,
    readonly identity?: Identity,
  ) {}

  /**
   * Tell this client its lists changed: once per list. A client hears only of
   * the lists its session advertised (capabilities are fixed when it starts),
   * so those are the ones sent, and returned.
   */
  listChanged(lists: ReadonlySet<ChangedList>): ChangedList[] {
    const advertised = this.server.getCapabilities();
    const sent = [...lists].filter((list) => advertised[list] !== undefined);
    for (const list of sent) {
      this.send(() =>
        list === 'tools'
          ? this.server.sendToolListChanged()
          : list === 'prompts'
            ? this.server.sendPromptListChanged()
            : this.server.sendResourceListChanged(),
      );
    }
    return sent;
  }

  resourceUpdated(params: { uri: string; [key: string]: unknown }): void {
    if (this.subscriptions.has(params.uri)) this.send(() => this.server.sendResourceUpdated(params));
  }

  private send(action: () => Promise<void>): void {
    // A client that is gone or never finished connecting cannot be told;
    // its session is dropped when its transport closes.
    action().catch((error: unknown) => this.logger.debug({ err: error }, 'could not notify a client'));
  }
}
