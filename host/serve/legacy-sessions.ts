import { randomUUID } from 'node:crypto';
import {
  WebStandardStreamableHTTPServerTransport,
  isJSONRPCRequest,
  type JSONRPCMessage,
  type AuthInfo,
  type HandleRequestOptions,
  type MessageExtraInfo,
  type Transport,
} from '@modelcontextprotocol/server';
import type { HostRuntime } from '../runtime.js';
import { createFrontSession } from '../proxy/front-server.js';
import type { FrontSession } from '../proxy/front-session.js';
import { jsonRpcErrorResponse } from './http-responses.js';
import { onAnswered, type ReadRequest } from './node-exchange.js';
import { SessionEventStore } from './session-event-store.js';
import { UNTRUSTED, type ClusterLink } from '../sinks/cluster.js';
import { recordLimitHit } from '../sinks/telemetry.js';
import { HotPathTransport } from '../proxy/hot-path.js';
import { identityCarried } from './carried-identity.js';
import { identityOf } from '../vocabulary/identity.js';

export interface LegacySessionOptions {
  maxRequestBodySize: number;
  /** A session with no open exchange (not even its GET stream) for this long is ended. */
  idleTimeoutMs: number;
  /** Sessions open at once (`http.maxSessions`). */
  maxSessions: number;
  /** Sessions one bearer token may hold open at once (`http.maxSessionsPerToken`). */
  maxSessionsPerToken: number;
  /** Bytes of SSE events each session keeps for clients resuming with `Last-Event-ID` (`http.eventStoreBytes`). */
  eventStoreBytes: number;
  /** In a cluster, sessions are registered there, and a request for another replica's session is forwarded to it. */
  cluster?: ClusterLink;
}

/**
 * How long a client whose stream the host closed (a plugin asked to, mid-call)
 * waits before reconnecting: the SSE `retry` field the priming event carries.
 */
const RECONNECT_AFTER_MS = 500;

interface LegacySession {
  transport: WebStandardStreamableHTTPServerTransport;
  front: FrontSession;
  events: SessionEventStore;
  /** Which bearer token opened it (`token-1c9e05a2`, token-names.ts), when the host checks tokens: only that one may use it. */
  owner: string | undefined;
  /**
   * Who opened it (identity.ts): every later request of the session is
   * served as theirs, also one another replica forwards here, whose stamp
   * names only the owner.
   */
  authInfo: AuthInfo | undefined;
  /** HTTP exchanges still streaming: calls in flight, the GET notification stream. When the last began or ended is its front's `lastActive`. */
  open: number;
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
  /** Sessions each token holds, and initializes under way (so a burst cannot overshoot the caps). */
  private readonly perToken = new Map<string | undefined, number>();
  private opening = 0;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly runtime: HostRuntime,
    private readonly options: LegacySessionOptions,
  ) {
    this.sweeper = setInterval(() => this.endIdle(), Math.min(options.idleTimeoutMs / 4, 60_000));
    this.sweeper.unref();
  }

  /**
   * `read`: the request, its body read once (node-exchange.ts).
   * `owner`: which bearer token the request carried (`AuthInfo.clientId`), when the host checks tokens.
   * `forwarded`: another replica sent it here as this session's owner, so it is never forwarded on.
   * `authInfo`: who the client is, as the endpoint verified it, handed to the handlers as `ctx.http.authInfo`.
   */
  async handle(read: ReadRequest, owner?: string, forwarded = false, authInfo?: AuthInfo): Promise<Response> {
    const { request, json } = read;
    const id = request.headers.get('mcp-session-id');
    if (id === null) {
      if (request.method === 'POST') return this.open(request, json, owner, authInfo);
      return jsonRpcErrorResponse(
        400,
        -32000,
        `Bad Request: ${request.method} needs an Mcp-Session-Id header; open a session with an initialize POST first`,
      );
    }
    const session = this.sessions.get(id);
    const { cluster } = this.options;
    if (!session && cluster && !forwarded) {
      const where = await cluster.ownerOfSession(id);
      if (where === UNTRUSTED) {
        return jsonRpcErrorResponse(
          503,
          -32000,
          `Service Unavailable: session "${id}" is not on this replica, and the cluster's record of which replica holds it failed its signature check (something other than a replica wrote it to Redis), so it is not followed; retry later. Fix: if it persists, find what else writes to the cluster's Redis, and give Redis credentials only the replicas hold (docs/replicas.md)`,
        );
      }
      const answer =
        where && where !== 'gone' ? await cluster.forward(read, where, owner, identityCarried(authInfo)) : undefined;
      if (answer instanceof Response) return answer;
      // Its owner may be alive but out of reach (a wrong cluster.advertise, a network fault): still a
      // 404 as the spec has it (the session cannot be served from here, and the client's way on is a new
      // one), with why, and the forwarding replica's log carries the warning for the operator.
      if (answer?.running) {
        return jsonRpcErrorResponse(
          404,
          -32001,
          `Session not found: session "${id}" lives on another mcp-host replica, and ${answer.unreachable}`,
        );
      }
      if (where === undefined && cluster.degraded !== undefined) {
        return jsonRpcErrorResponse(
          503,
          -32000,
          `Service Unavailable: session "${id}" is not on this replica, and which replica holds it cannot be looked up now (${cluster.degraded}); retry later`,
        );
      }
      if (where !== undefined) {
        return jsonRpcErrorResponse(
          404,
          -32001,
          `Session not found: session "${id}" lived on another mcp-host replica, which is gone (stopped or restarted); start a new one with initialize`,
        );
      }
    }
    // Another token's session is answered as if it did not exist: a
    // session id is not a credential, and its existence is not told. So is
    // one of another virtual server (opened at another /mcp/NAME).
    if (!session || session.owner !== owner || serverOf(session.authInfo) !== serverOf(authInfo)) {
      // The spec's answer for an ended or unknown session: 404 tells the
      // client to start a new one.
      return jsonRpcErrorResponse(
        404,
        -32001,
        `Session not found: no session "${id}" on this host (it ended, or the host restarted); start a new one with initialize`,
      );
    }
    session.front.lastActive = Date.now();
    const missed = resumedTooLate(session, request);
    if (missed) return missed;
    const batch = refusedBatch(session, read);
    if (batch) return batch;
    const response = await session.transport.handleRequest(request, parsed(json, authInfo ?? session.authInfo));
    // The GET stream is where a broadcast (list_changed) can reach this
    // session: a session that never opened one costs a broadcast nothing.
    // Once it has, it stays counted in when the stream drops: what it misses
    // meanwhile is kept (bounded) for its client to resume with Last-Event-ID.
    const stream = request.method === 'GET' && response.headers.get('content-type')?.startsWith('text/event-stream');
    if (!stream) return tracked(session, response);
    this.runtime.sessions.setReachable(session.front, true);
    return tracked(session, await primedGetStream(session, request, response));
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
  private async open(
    request: Request,
    json: unknown,
    owner: string | undefined,
    authInfo: AuthInfo | undefined,
  ): Promise<Response> {
    const full = this.fullFor(owner) ?? (await this.fullAcrossClusterFor(owner));
    if (full) return full;
    this.opening += 1;
    this.count(owner, +1);
    let counted = true;
    const uncount = () => {
      if (counted) this.count(owner, -1);
      counted = false;
    };
    try {
      // Not reachable by broadcasts until it opens its GET stream.
      const front = createFrontSession(this.runtime, {
        longLived: true,
        reachable: false,
        era: 'legacy',
        owner,
        clientName: () => `HTTP session ${transport.sessionId}`,
        identity: identityOf({ http: { ...(authInfo && { authInfo }) } }),
      });
      const events = new SessionEventStore(this.options.eventStoreBytes, (dropped) => {
        recordLimitHit('http.eventStoreBytes');
        this.runtime.logger.warn(
          `HTTP session ${transport.sessionId}: dropped its ${dropped} oldest SSE events over ${this.options.eventStoreBytes} bytes (http.eventStoreBytes); a client resuming before them is refused`,
        );
      });
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        maxRequestBodySize: this.options.maxRequestBodySize,
        // Resumable streams (2025-11-25): event ids, a priming event, Last-Event-ID replay.
        eventStore: events,
        retryInterval: RECONNECT_AFTER_MS,
        // Awaited by the transport before it answers: the session is in Redis before its client knows its id.
        onsessioninitialized: async (id) => {
          this.sessions.set(id, session);
          await this.options.cluster?.registerSession(id, owner);
        },
      });
      const session: LegacySession = { transport, front, events, owner, authInfo, open: 0 };
      // Calls, prompts and reads skip the front server's second dispatch (hot-path.ts); it takes the transport's callbacks.
      const served = new HotPathTransport(
        transport,
        this.runtime,
        () => front.server,
        () => front.scope,
      );
      // DELETE, idle expiry, shutdown: the session leaves the map however it
      // ends (the front server leaves the runtime through its own onclose).
      served.onclose = () => {
        if (transport.sessionId === undefined || !this.sessions.delete(transport.sessionId)) return;
        uncount();
        this.options.cluster?.forgetSession(transport.sessionId);
      };
      served.onmessage = cancelOnDisconnect(served);
      await front.server.connect(served);
      const response = await transport.handleRequest(request, parsed(json, authInfo));
      if (transport.sessionId === undefined || !this.sessions.has(transport.sessionId)) {
        uncount();
        await front.server.close();
        return response;
      }
      return tracked(session, response);
    } catch (error) {
      uncount();
      throw error;
    } finally {
      this.opening -= 1;
    }
  }

  /** The refusal of one more session, when the host or this token holds all it may. */
  private fullFor(owner: string | undefined): Response | undefined {
    const { maxSessions, maxSessionsPerToken } = this.options;
    if (this.sessions.size + this.opening >= maxSessions) {
      this.runtime.logger.warn(`refused a new HTTP session: ${maxSessions} are open (http.maxSessions)`);
      recordLimitHit('http.maxSessions');
      return jsonRpcErrorResponse(
        503,
        -32000,
        `Service Unavailable: mcp-host has ${maxSessions} sessions open, its limit (http.maxSessions); end sessions no longer used (DELETE with their Mcp-Session-Id), retry later, or raise http.maxSessions in the host config`,
      );
    }
    if (owner !== undefined && (this.perToken.get(owner) ?? 0) >= maxSessionsPerToken) {
      this.runtime.logger.warn(
        `refused a new HTTP session: ${owner} holds ${maxSessionsPerToken} (http.maxSessionsPerToken)`,
      );
      recordLimitHit('http.maxSessionsPerToken');
      return jsonRpcErrorResponse(
        429,
        -32000,
        `Too Many Requests: this bearer token holds ${maxSessionsPerToken} sessions open, its limit (http.maxSessionsPerToken); end sessions no longer used (DELETE with their Mcp-Session-Id), or raise http.maxSessionsPerToken in the host config`,
      );
    }
    return undefined;
  }

  /**
   * In a cluster the per-token cap counts the token's sessions on every
   * replica (Redis). While Redis is out of reach only this replica's are
   * counted (fullFor), as a lone host would.
   */
  private async fullAcrossClusterFor(owner: string | undefined): Promise<Response | undefined> {
    const { cluster, maxSessionsPerToken } = this.options;
    if (!cluster || owner === undefined) return undefined;
    const held = await cluster.sessionsHeldBy(owner);
    if (held === undefined || held < maxSessionsPerToken) return undefined;
    this.runtime.logger.warn(
      `refused a new HTTP session: ${owner} holds ${maxSessionsPerToken} across the cluster (http.maxSessionsPerToken)`,
    );
    recordLimitHit('http.maxSessionsPerToken');
    return jsonRpcErrorResponse(
      429,
      -32000,
      `Too Many Requests: this bearer token holds ${maxSessionsPerToken} sessions open across the cluster's replicas, its limit (http.maxSessionsPerToken); end sessions no longer used (DELETE with their Mcp-Session-Id), or raise http.maxSessionsPerToken in the host config`,
    );
  }

  private count(owner: string | undefined, by: number): void {
    if (owner === undefined) return;
    const count = (this.perToken.get(owner) ?? 0) + by;
    if (count > 0) this.perToken.set(owner, count);
    else this.perToken.delete(owner);
  }

  private endIdle(): void {
    const cutoff = Date.now() - this.options.idleTimeoutMs;
    for (const [id, session] of this.sessions) {
      if (session.open > 0 || session.front.lastActive > cutoff) continue;
      this.runtime.logger.info(`ending HTTP session ${id}: idle for ${this.options.idleTimeoutMs} ms`);
      void session.transport.close();
    }
  }
}

/** The transport's options for a body read already: it need not read and parse it again. */
/** The virtual server a request's client is a client of (virtual-server-paths.ts), if any. */
function serverOf(authInfo: AuthInfo | undefined): string | undefined {
  return identityOf({ http: { ...(authInfo && { authInfo }) } }).server;
}

/** What the transport is told of a request besides itself: its body, read already, and who sent it (identity.ts). */
function parsed(json: unknown, authInfo: AuthInfo | undefined): HandleRequestOptions {
  return { ...(json !== undefined && { parsedBody: json }), ...(authInfo && { authInfo }) };
}

/** The same response, counted as open on its session until its body ends or the client drops it. */
function tracked(session: LegacySession, response: Response): Response {
  session.open += 1;
  return onAnswered(response, () => {
    session.open -= 1;
    session.front.lastActive = Date.now();
  });
}

/**
 * A GET resuming after an event the session no longer holds is refused with
 * why: the transport would answer a bare "Invalid event ID format".
 */
function resumedTooLate(session: LegacySession, request: Request): Response | undefined {
  const lastEventId = request.method === 'GET' ? request.headers.get('last-event-id') : null;
  const missed = lastEventId === null ? undefined : session.events.missed(lastEventId);
  if (missed === undefined) return undefined;
  return jsonRpcErrorResponse(
    400,
    -32000,
    `Bad Request: cannot resume: ${missed}. Open a new GET stream without Last-Event-ID and list again what may have changed, or raise http.eventStoreBytes in the host config`,
  );
}

/** The SDK transport's name for a session's GET stream in its event store. */
const GET_STREAM_ID = '_GET_stream';
/** The first revision whose clients take an SSE event with empty data (a priming event). */
const FIRST_REVISION_WITH_PRIMING = '2025-11-25';

/**
 * A new GET stream, opened by a priming event (an id, the retry interval,
 * no data) as the SDK opens a call's SSE answer: without an id, a client
 * whose GET stream drops before its first notification could not resume,
 * and would lose what was sent until it reconnected. A resumed stream (the
 * request names Last-Event-ID) is the transport's replay, left as it is.
 */
async function primedGetStream(session: LegacySession, request: Request, response: Response): Promise<Response> {
  const revision = session.front.server.getNegotiatedProtocolVersion();
  if (request.headers.has('last-event-id') || revision === undefined || revision < FIRST_REVISION_WITH_PRIMING) {
    return response;
  }
  const eventId = await session.events.storeEvent(GET_STREAM_ID, {} as JSONRPCMessage);
  const priming = new TextEncoder().encode(`id: ${eventId}\nretry: ${RECONNECT_AFTER_MS}\ndata: \n\n`);
  const primed = response.body!.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      start(controller) {
        controller.enqueue(priming);
      },
    }),
  );
  return new Response(primed, { status: response.status, headers: response.headers });
}

/** The revision that dropped JSON-RPC batches from MCP. */
const FIRST_REVISION_WITHOUT_BATCHES = '2025-06-18';

/**
 * A batch (a JSON array body) on a session whose revision has none is
 * refused, as over stdio: the SDK's transport would otherwise serve it.
 */
function refusedBatch(session: LegacySession, { request, json, text }: ReadRequest): Response | undefined {
  if (request.method !== 'POST') return undefined;
  const revision = session.front.server.getNegotiatedProtocolVersion();
  if (revision === undefined || revision < FIRST_REVISION_WITHOUT_BATCHES) return undefined;
  // A body that is not JSON (left for the transport to refuse) but looks like an array is refused as a batch too.
  if (!(json === undefined ? text.trimStart().startsWith('[') : Array.isArray(json))) return undefined;
  return jsonRpcErrorResponse(
    400,
    -32600,
    `Invalid Request: this session speaks MCP ${revision}, which has no JSON-RPC batches; send one message per request`,
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
 * server keeps it and calls it ahead of its own dispatch. (The hot path
 * cancels the calls it serves itself the same way.)
 */
function cancelOnDisconnect(transport: Transport): (message: JSONRPCMessage, extra?: MessageExtraInfo) => void {
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
