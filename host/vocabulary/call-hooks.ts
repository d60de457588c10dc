import type { JSONRPCNotification } from '@modelcontextprotocol/server';
import type { ClientScope } from './client-scope.js';
import type { Identity } from './identity.js';

type Params = Record<string, unknown>;
type Result = Record<string, unknown>;

/**
 * What a forwarded request's cancellation offers the mounts: an
 * `AbortSignal` is one; the hot path's own is lighter
 * (proxy/call-cancellation.ts).
 */
export interface CancelSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * The hooks of one forwarded request: how the upstream's traffic about that
 * request reaches the client that made it.
 */
export interface CallHooks {
  /** The client cancelled or went away: cancel upstream too. */
  signal?: CancelSignal;
  /** The upstream's progress for this call, with the host's token already removed. */
  onProgress?: (progress: Params) => void;
  /**
   * A request the upstream makes while serving this call (sampling,
   * elicitation, roots). `signal` aborts when the upstream cancels it.
   */
  onRequest?: (request: { method: string; params?: Params }, signal: AbortSignal) => Promise<Result>;
  /** Any other notification the upstream ties to this call (log messages). */
  onNotification?: (notification: JSONRPCNotification) => void;
  /**
   * The headers of the client's HTTP request, when it came over HTTP. Only
   * those the mount's entry forwards (`forwardHeaders`) go upstream.
   */
  clientHeaders?: Headers;
  /**
   * Who made the request: the access rules decide whether it may reach the
   * item (anonymous when absent), and a remote mount with token exchange
   * calls the upstream as it.
   */
  identity?: Identity;
  /**
   * Closes the client's SSE stream of this call (a resumable 2025-era HTTP
   * session's): the client reconnects with `Last-Event-ID` and gets the
   * answer there. Offered to an in-process plugin as its own SDK offers it.
   */
  closeSSE?: () => void;
  /** The same for the client's GET notification stream. */
  closeStandaloneSSE?: () => void;
  /**
   * Set for a 2026-07-28 client's request: what the client sent that the
   * SDK lifted out of its params. An upstream that speaks 2026-07-28 too
   * gets it as it came (the client's capabilities and log level in the
   * envelope, its input responses, the upstream's own `requestState` it
   * echoes), and its `input_required` goes back to the client as it came.
   */
  modernClient?: ModernClientRound;
  /**
   * The long-lived 2025-era session the request came in: a mount with
   * `sessions: 'per-client'` serves it on that session's own upstream.
   * Absent for a 2026-07-28 request, which the shared upstream serves.
   */
  scope?: ClientScope;
}

/** A 2026-07-28 client's own round of a request (see `CallHooks.modernClient`). */
export interface ModernClientRound {
  inputResponses?: Params;
  capabilities?: Params;
  logLevel?: string;
  /**
   * The `requestState` the client echoes, when the host did not issue it,
   * and the answer to give if the upstream is on a 2025-era link (so issued
   * none either).
   */
  echoed?: { requestState: string; refusal: Error };
}
