import type { JSONRPCNotification } from '@modelcontextprotocol/server';

/**
 * One long-lived 2025-era client session (the stdio client, a legacy HTTP
 * session), as a mount with `sessions: 'per-client'` sees it: the key of
 * the upstream it opens for that session, where that upstream's
 * notifications about no request go, and when to close it. The front
 * session (proxy/) makes it; a request carries it in its hooks
 * (`CallHooks.scope`) down to the mount (mounts/per-client-upstreams.ts).
 */
export interface ClientScope {
  /** How logs and messages name the session: `the stdio client`, `HTTP session 3f2a…`. */
  readonly name: string;
  /**
   * Who opened the session (its bearer token's `AuthInfo.clientId`), when the host checks tokens: a
   * per-client mount lets no one owner hold more than half its upstreams.
   */
  readonly owner?: string;
  /** The session has ended: nothing more is opened for it. */
  readonly ended: boolean;
  /** Run `listener` once when the session ends; returns what stops listening. */
  onEnd(listener: () => void): () => void;
  /**
   * A log line or a resource update this session's own upstream sent about
   * no request: it can be about this session alone.
   */
  notify(notification: JSONRPCNotification): void;
}
