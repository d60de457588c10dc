import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';
import type { Identity } from '../vocabulary/identity.js';

/**
 * The host's side of a connection to one upstream MCP server, whatever
 * carries it (an in-process link, a child's pipes, HTTP).
 *
 * It is the SDK's `Transport` shape with one addition: `related`, the id of
 * the upstream request a message belongs to. In process the SDK tells us
 * (a handler's requests and notifications reach `Transport.send(message,
 * { relatedRequestId })`); over Streamable HTTP the stream a message comes
 * on tells (remote.ts); over a pipe the wire carries no such link and it is
 * undefined. The peer uses it to send a plugin's mid-call request and log
 * lines to the client whose call caused them.
 *
 * `send` may carry `headers`: the client's headers a request is allowed to
 * take upstream (the entry's `forwardHeaders`). Over HTTP they go on that
 * request's POST; in process the plugin finds them where its SDK puts an
 * HTTP request's headers. A pipe has nowhere to put them, and no entry
 * that runs a child may ask for them.
 */
export interface UpstreamChannel {
  start(): Promise<void>;
  send(message: JSONRPCMessage, options?: SendOptions): Promise<void>;
  close(): Promise<void>;
  /**
   * Start afresh after the upstream ended the connection: a child that
   * exits on a request it does not know before `initialize` (the 2026-07-28
   * probe) is a 2025-era server, started again to be spoken to as one.
   */
  reopen?(): Promise<void>;
  /**
   * Known after `start`: the upstream cannot speak 2026-07-28 (an in-process
   * server of SDK v1, or one linked in a 2025-era revision), so the peer
   * goes straight to `initialize` without probing.
   */
  readonly legacyOnly?: boolean;
  onmessage?: (message: JSONRPCMessage, related?: RequestId) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
}

export interface SendOptions {
  /** Client headers to send with this message, by the names the upstream gets. */
  headers?: Record<string, string>;
  /** Closes the client's SSE stream of this request (see `CallHooks.closeSSE`); only in process can a plugin ask. */
  closeSSE?: () => void;
  closeStandaloneSSE?: () => void;
  /** Who the request is made for, when a client made it: a remote mount with token exchange calls as that caller. */
  identity?: Identity;
}
