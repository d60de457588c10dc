import { Server } from '@modelcontextprotocol/server';
import type { Logger } from '../log.js';

import type { ChangedList } from '../catalogue/list-kinds.js';

/**
 * What the runtime needs of anything it notifies: a long-lived client
 * session, or one endpoint that fans out to many (the 2026-07-28 HTTP
 * handler's `subscriptions/listen` streams).
 */
export interface SessionNotifier {
  /** The resource URIs this notifier is subscribed to through the runtime. */
  readonly subscriptions: Set<string>;
  listChanged(lists: ReadonlySet<ChangedList>): void;
  resourceUpdated(params: { uri: string; [key: string]: unknown }): void;
}

/**
 * One connected client as the host sees it: the SDK `Server` instance that
 * speaks to it, and the resources it subscribed to. Lives as long as the
 * client's connection (a stdio connection, a legacy HTTP session).
 */
export class FrontSession implements SessionNotifier {
  readonly subscriptions = new Set<string>();

  constructor(
    readonly server: Server,
    private readonly logger: Logger,
  ) {}

  /** Tell this client its lists changed: once per list. */
  listChanged(lists: ReadonlySet<ChangedList>): void {
    if (lists.has('tools')) this.send(() => this.server.sendToolListChanged());
    if (lists.has('prompts')) this.send(() => this.server.sendPromptListChanged());
    if (lists.has('resources')) this.send(() => this.server.sendResourceListChanged());
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
