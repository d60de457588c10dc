import { randomUUID } from 'node:crypto';
import {
  WebStandardStreamableHTTPServerTransport,
  isJSONRPCRequest,
  type JSONRPCMessage,
  type MessageExtraInfo,
} from '@modelcontextprotocol/server';
import type { HostRuntime } from '../runtime.js';
import { createFrontSession } from '../proxy/front-server.js';
import { jsonRpcErrorResponse, onBodyEnd } from './http-responses.js';

export interface LegacySessionOptions {
  maxRequestBodySize: number;
  /** A session with no open exchange (not even its GET stream) for this long is ended. */
  idleTimeoutMs: number;
}

interface LegacySession {
  transport: WebStandardStreamableHTTPServerTransport;
  /** HTTP exchanges still streaming: calls in flight, the GET notification stream. */
  open: number;
  /** When the last exchange began or ended. */
  lastActive: number;
}

/**
 * 2025-era Streamable HTTP: a client opens a session with `initialize`,
 * names it in `Mcp-Session-Id` on every later request, listens for
 * notifications on a GET stream and ends it with DELETE. Each session is one
 * long-lived front server (so `list_changed`, progress and log messages reach
 * it like a stdio client) over the SDK's sessionful transport.
 *
 * Clients often go away without a DELETE, so a session with nothing open
 * for the idle timeout is ended; a client that comes back gets the spec's
 * 404 and starts a new one.
 */
export class LegacySessions {
  private readonly sessions = new Map<string, LegacySession>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly runtime: HostRuntime,
    private readonly options: LegacySessionOptions,
  ) {
    this.sweeper = setInterval(() => this.endIdle(), Math.min(options.idleTimeoutMs / 4, 60_000));
    this.sweeper.unref();
  }

  async handle(request: Request): Promise<Response> {
    const id = request.headers.get('mcp-session-id');
    if (id === null) {
      if (request.method === 'POST') return this.open(request);
      return jsonRpcErrorResponse(
        400,
        -32000,
        `Bad Request: ${request.method} needs an Mcp-Session-Id header; open a session with an initialize POST first`,
      );
    }
    const session = this.sessions.get(id);
    if (!session) {
      // The spec's answer for an ended or unknown session: 404 tells the
      // client to start a new one.
      return jsonRpcErrorResponse(
        404,
        -32001,
        `Session not found: no session "${id}" on this host (it ended, or the host restarted); start a new one with initialize`,
      );
    }
    session.lastActive = Date.now();
    return tracked(session, request, await session.transport.handleRequest(request));
  }

  /** End every session (shutdown): their front servers leave the runtime as they close. */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(sessions.map((session) => session.transport.close()));
  }

  /**
   * A POST without a session: an `initialize` opens one. Anything else gets
   * the transport's own 400 and the would-be session is dropped at once.
   */
  private async open(request: Request): Promise<Response> {
    const front = createFrontSession(this.runtime, { longLived: true });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      maxRequestBodySize: this.options.maxRequestBodySize,
      onsessioninitialized: (id) => {
        this.sessions.set(id, session);
      },
    });
    const session: LegacySession = { transport, open: 0, lastActive: Date.now() };
    // DELETE, idle expiry, shutdown: the session leaves the map however it
    // ends (the front server leaves the runtime through its own onclose).
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.sessions.delete(transport.sessionId);
    };
    transport.onmessage = cancelOnDisconnect(transport);
    await front.server.connect(transport);
    const response = await transport.handleRequest(request);
    if (transport.sessionId === undefined) {
      await front.server.close();
      return response;
    }
    return tracked(session, request, response);
  }

  private endIdle(): void {
    const cutoff = Date.now() - this.options.idleTimeoutMs;
    for (const [id, session] of this.sessions) {
      if (session.open > 0 || session.lastActive > cutoff) continue;
      this.runtime.logger.info(`ending HTTP session ${id}: idle for ${this.options.idleTimeoutMs} ms`);
      void session.transport.close();
    }
  }
}

/** The same response, counted as open on its session until its body ends or the client drops it. */
function tracked(session: LegacySession, request: Request, response: Response): Response {
  session.open += 1;
  return onBodyEnd(
    response,
    () => {
      session.open -= 1;
      session.lastActive = Date.now();
    },
    request.signal,
  );
}

/**
 * A client that disconnects cancels its calls in flight. The SDK's
 * sessionful transport keeps a request's handler running when the POST that
 * carried it goes away (the answer is merely undeliverable), so the host
 * treats the dropped connection as the client's `notifications/cancelled`
 * for each request that POST carried: the handler's signal aborts and the
 * plugin is told to cancel too.
 *
 * Installed as the transport's `onmessage` before the server connects: the
 * server keeps it and calls it ahead of its own dispatch.
 */
function cancelOnDisconnect(
  transport: WebStandardStreamableHTTPServerTransport,
): (message: JSONRPCMessage, extra?: MessageExtraInfo) => void {
  return (message, extra) => {
    const signal = extra?.request?.signal;
    if (!isJSONRPCRequest(message) || !signal) return;
    const cancel = () =>
      transport.onmessage?.(
        {
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: message.id, reason: 'the client disconnected' },
        },
        extra,
      );
    // The server registers the request right after this returns.
    if (signal.aborted) queueMicrotask(cancel);
    else signal.addEventListener('abort', cancel, { once: true });
  };
}
