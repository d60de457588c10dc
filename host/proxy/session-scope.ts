import type { JSONRPCNotification, LoggingMessageNotification } from '@modelcontextprotocol/server';
import type { ClientScope } from '../vocabulary/client-scope.js';
import type { FrontSession } from './front-session.js';

/**
 * A long-lived 2025-era client session as a `sessions: 'per-client'` mount
 * keys its upstreams (vocabulary/client-scope.ts): the front session tells
 * it when the session ends, and it passes that session's own upstream's
 * notifications about no request to the session's client, as the session's
 * SDK `Server` sends its own (a log line at the level the client set with
 * `logging/setLevel`; a resource update only for a URI it subscribed to).
 */
export class SessionScope implements ClientScope {
  private readonly listeners = new Set<() => void>();
  private over = false;

  constructor(
    private readonly session: FrontSession,
    private readonly nameOf: () => string,
    readonly owner?: string,
  ) {}

  get name(): string {
    return this.nameOf();
  }

  get ended(): boolean {
    return this.over;
  }

  onEnd(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The session ended (its connection closed, its HTTP session was deleted or expired). */
  end(): void {
    if (this.over) return;
    this.over = true;
    for (const listener of [...this.listeners]) listener();
    this.listeners.clear();
  }

  /** A log line, or a resource update (what per-client-upstreams.ts passes on). */
  notify(notification: JSONRPCNotification): void {
    if (notification.method === 'notifications/resources/updated') {
      this.session.resourceUpdated(notification.params as { uri: string });
      return;
    }
    const { server } = this.session;
    // The level the client set is kept by its session id (none on stdio).
    server
      .sendLoggingMessage(notification.params as LoggingMessageNotification['params'], server.transport?.sessionId)
      // A client that is gone cannot be told; its session ends with its transport.
      .catch(() => {});
  }
}
