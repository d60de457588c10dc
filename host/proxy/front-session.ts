import { Server } from '@modelcontextprotocol/server';
import type { LoggingMessageNotification } from '@modelcontextprotocol/server';
import type { Logger } from '../log.js';

/** The lists a `list_changed` notification can name; templates change with resources. */
export type ChangedList = 'tools' | 'prompts' | 'resources';

/**
 * One connected client as the host sees it: the SDK `Server` instance that
 * speaks to it, and the resources it subscribed to. Lives as long as the
 * client's connection (a stdio connection, a legacy HTTP session).
 */
export class FrontSession {
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

  /** A plugin's log message, filtered by the level this client set. */
  log(params: LoggingMessageNotification['params']): void {
    this.send(() => this.server.sendLoggingMessage(params));
  }

  private send(action: () => Promise<void>): void {
    // A client that is gone or never finished connecting cannot be told;
    // its session is dropped when its transport closes.
    action().catch((error: unknown) => this.logger.debug({ err: error }, 'could not notify a client'));
  }
}
