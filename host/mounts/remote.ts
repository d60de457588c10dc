import { AsyncLocalStorage } from 'node:async_hooks';
import {
  SdkHttpError,
  SseError,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  PROTOCOL_VERSION_META_KEY,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/client';
import type { RemoteSpec } from '../loader/types.js';
import type { Logger } from '../log.js';
import { describeThrown } from '../errors.js';
import { settlesWithin } from '../settles-within.js';
import { ErrorCode } from '../rpc-error.js';
import { MODERN_REVISION } from '../protocol-versions.js';
import type { SendOptions } from './channel.js';
import type { ExplainedChannel, Outage } from './supervisor.js';
import { CallerAuthRefused, UpstreamAuthorization, UpstreamAuthRefused } from './upstream-authorization.js';
import { mountName } from './mount.js';
import { notAMessageStream, readAnswer, type Answerer } from './streamed-json-answer.js';
import { MirroredParams } from './mirrored-params.js';

/** The request whose POST's response stream is being read, in the context the SDK reads it in. */
const answering = new AsyncLocalStorage<RequestId | undefined>();

/** How long closing waits for the server to acknowledge the end of the session. */
const TERMINATE_TIMEOUT_MS = 2000;

/**
 * A remote MCP server over HTTP: Streamable HTTP, or the legacy HTTP+SSE
 * transport when the server only speaks that. Which one is found the way
 * the spec's backwards-compatibility section says: the `initialize` POST is
 * tried first, and a 4xx answer to it means a legacy server, so the channel
 * opens the SSE stream instead and sends `initialize` there. The peer never
 * knows which transport carries it.
 *
 * The channel ends itself when the server is gone (unreachable, or it
 * forgot the session, which is what a restarted server does) so its
 * supervisor reconnects; a single failed request is only that request's.
 *
 * Over Streamable HTTP a server's messages about a request come on the
 * stream that answers that request's POST, so each is given as `related` to
 * it: a log line or an elicitation reaches the client whose call it is
 * about, and one that came on the session's own stream (about no request)
 * reaches no client. The legacy transport carries everything on one stream,
 * and `related` is never set.
 */
export class RemoteChannel implements ExplainedChannel {
  onmessage?: (message: JSONRPCMessage, related?: RequestId) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  private transport?: StreamableHTTPClientTransport | SSEClientTransport;
  /** The `initialize` or `server/discover` request whose answer connects the channel. */
  private handshakeId?: RequestId;
  /** Why the server could not be reached or was lost: the last transport failure. */
  private failure?: Outage;
  /** The handshake is done: from now on a server that is gone ends the channel. */
  private connected = false;
  private ended = false;
  /** Errors send() read as a request's answer: no transport error to report. */
  private readonly answers = new WeakSet<object>();
  /** This mount, as the errors about its answers name it. */
  private readonly answerer: Answerer;
  /** `tools/list` requests whose answers are still to come: each page teaches `mirrored`. */
  private readonly listings = new Set<RequestId>();
  constructor(
    private readonly spec: RemoteSpec,
    private readonly logger: Logger,
    /**
     * The token each request carries, and what a 401 says the server needs (upstream-authorization.ts): one
     * per mount, shared by its connections (both eras' links, each reconnection), so its tokens are asked once.
     */
    private readonly authorization = new UpstreamAuthorization(spec),
    /** The `Mcp-Param-*` headers the upstream's tools declare (SEP-2243): one per mount, like `authorization`. */
    private readonly mirrored = new MirroredParams(),
  ) {
    this.answerer = { mount: `mount "${mountName(spec)}"`, maxResultBytes: spec.maxResultBytes };
  }

  explain(): Outage | undefined {
    return this.failure;
  }

  async start(): Promise<void> {
    await this.use(new StreamableHTTPClientTransport(new URL(this.spec.url), this.options()));
  }

  async send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (options?.identity && this.spec.auth?.mode === 'tokenExchange') {
      const { identity, ...rest } = options;
      return this.authorization.asCaller(identity, () => this.send(message, rest));
    }
    // A 2026-07-28 call's mirrored arguments ride with the client headers the entry forwards.
    const mirrored = isSessionless(message) ? this.mirrored.headersFor(message) : undefined;
    const headers = mirrored ? { ...options?.headers, ...mirrored } : options?.headers;
    return headers ? withForwardedHeaders.run(headers, () => this.deliver(message)) : this.deliver(message);
  }

  /** Send one message on the transport, with the headers its context holds, and read a refusal as its answer. */
  private async deliver(message: JSONRPCMessage): Promise<void> {
    if ('method' in message && 'id' in message && message.method === 'tools/list') this.listings.add(message.id);
    const transport = this.transport;
    if (!transport || this.ended) throw new Error(`the connection to ${this.spec.url} is closed.`);
    const method = 'method' in message && 'id' in message ? message.method : undefined;
    const initialize = method === 'initialize';
    if (initialize || method === 'server/discover') this.handshakeId = (message as { id: RequestId }).id;
    try {
      // The SDK reads the POST's response stream in the async context it was sent in.
      const request = method === undefined ? undefined : (message as { id: RequestId }).id;
      await answering.run(request, () => transport.send(message));
    } catch (error) {
      // A caller's token that could not be exchanged is that call's answer; the mount serves on.
      if (error instanceof CallerAuthRefused) {
        this.answers.add(error);
        throw error;
      }
      // One application/json answer the SDK could not read as a message (streamed-json-answer.ts passed it on as
      // one): that request's answer, an error naming the mount; the server is still there.
      if (method !== undefined && unreadableAnswer(error)) {
        this.answers.add(error as Error);
        const why = describeThrown(error);
        this.onmessage?.({
          jsonrpc: '2.0',
          id: (message as { id: RequestId }).id,
          error: { code: ErrorCode.InternalError, message: notAMessageStream(this.answerer.mount, method, why) },
        });
        return;
      }
      const status = httpStatus(error);
      const legacy = transport instanceof SSEClientTransport;
      // A JSON-RPC error in an HTTP 4xx body is an answer, not an outage, where no session can be lost:
      // a handshake refused (a server/discover a 2025-era server does not know, an initialize at a
      // revision a 2026-only server does not speak), which the peer reads to decide what follows, and
      // any request of the sessionless 2026-07-28 revision, whose errors come with a 4xx status
      // (404 for "Method not found"): that error is the client's answer, and the server is still there.
      const sessionless = isSessionless(message);
      const answerable = initialize || method === 'server/discover' || (sessionless && method !== undefined);
      const answered = !legacy && rpcErrorAnswer(error, status, method);
      if (answerable && answered) {
        if (typeof error === 'object' && error !== null) this.answers.add(error);
        this.onmessage?.({ jsonrpc: '2.0', id: (message as { id: RequestId }).id, error: answered });
        return;
      }
      if (initialize && !legacy && status !== undefined && status >= 400 && status < 500 && !AUTH.has(status)) {
        this.logger.info(
          `${this.spec.url} answered HTTP ${status} to a Streamable HTTP initialize: trying the legacy HTTP+SSE transport`,
        );
        try {
          await this.use(new SSEClientTransport(new URL(this.spec.url), this.options()), transport);
        } catch (sseError) {
          this.failure = this.neitherTransport(status, error, sseError);
          throw sseError;
        }
        return this.deliver(message);
      }
      // A 2026-07-28 notification the server refused in JSON-RPC (one it does not handle) lost no session either.
      this.failed(error, status, sessionless && Boolean(answered));
      throw error;
    }
  }

  async close(): Promise<void> {
    if (this.ended) return;
    const transport = this.transport;
    // Tell a live server the session is over (a stateless one answers 405,
    // which the SDK accepts); a server already gone is not waited for.
    if (transport instanceof StreamableHTTPClientTransport && !this.failure) {
      await settlesWithin(transport.terminateSession(), TERMINATE_TIMEOUT_MS).catch(() => {});
    }
    await transport?.close().catch(() => {});
    this.end();
  }

  private options(): { requestInit: RequestInit; fetch: typeof fetch; authProvider: UpstreamAuthorization } {
    return {
      requestInit: { headers: this.spec.headers },
      fetch: this.fetchAnswer,
      authProvider: this.authorization,
    };
  }

  /** Every request the transports make; a POST's `application/json` answer is read as a message stream when it is one. */
  private readonly fetchAnswer: typeof fetch = async (input, init) => {
    const response = await fetchWithForwardedHeaders(input, init);
    return init?.method === 'POST' ? readAnswer(response, init, this.answerer) : response;
  };

  /** Make `next` the transport carrying this channel, closing the one it replaces. */
  private async use(
    next: StreamableHTTPClientTransport | SSEClientTransport,
    replaced?: StreamableHTTPClientTransport,
  ): Promise<void> {
    this.transport = next;
    next.onmessage = (message) => {
      // Streamable HTTP requests carry the negotiated revision in a header
      // once the handshake is done; the SDK's Client would set it.
      if ('result' in message && message.id === this.handshakeId) {
        this.connected = true;
        if (next instanceof StreamableHTTPClientTransport && typeof message.result.protocolVersion === 'string') {
          next.setProtocolVersion(String(message.result.protocolVersion));
        }
      }
      if ('result' in message && this.listings.delete(message.id)) this.mirrored.learn(message.result.tools);
      else if ('error' in message && message.id !== undefined) this.listings.delete(message.id);
      const aboutRequest = 'method' in message && next instanceof StreamableHTTPClientTransport;
      this.onmessage?.(message, aboutRequest ? answering.getStore() : undefined);
    };
    next.onerror = (error) => {
      // The SSE stream is the legacy session: when it breaks, the session is gone.
      if (next instanceof SSEClientTransport && this.transport === next && !this.ended) this.failed(error, undefined);
      // A failed POST's error is thrown to send() too, which may read it as the request's answer (a refused
      // handshake, a 2026-07-28 error, an unreadable body): told as a transport error only once it is not one.
      setImmediate(() => {
        if (!this.answers.has(error)) this.onerror?.(error);
      });
    };
    next.onclose = () => {
      if (this.transport === next) this.end();
    };
    await replaced?.close();
    try {
      await next.start();
    } catch (error) {
      this.failed(error, httpStatus(error));
      throw error;
    }
  }

  /**
   * Record why a request failed; once connected, end the channel when it
   * means the server is gone: it could not be reached, it forgot the session
   * (404, unless `refusedOne`: a 2026-07-28 server, which has no session,
   * refused that one message in JSON-RPC), or the legacy transport's session
   * broke (its stream or its POSTs failed). During the handshake the failure
   * is the handshake's, and the attempt is closed by whoever made it.
   */
  private failed(error: unknown, status: number | undefined, refusedOne = false): void {
    this.failure = this.outageOf(error, status);
    // A server the host can no longer get a token for cannot serve anyone: it is down until one is granted.
    const gone =
      this.transport instanceof SSEClientTransport ||
      (status === 404 && !refusedOne) ||
      error instanceof UpstreamAuthRefused ||
      (status === undefined && isNetworkError(error));
    if (gone && this.connected && !this.ended) void this.close();
  }

  private outageOf(error: unknown, status: number | undefined): Outage {
    const url = this.spec.url;
    if (error instanceof UpstreamAuthRefused) return error.outage;
    if (status !== undefined && AUTH.has(status) && this.spec.auth) {
      return {
        cause: `${url} refused the token client "${this.spec.auth.clientId}" was granted for it (HTTP ${status}).`,
        fix: "check what the server requires of a token (its audience, the scopes) against the client's grant at the authorization server, and the entry's auth.resource and auth.scopes.",
      };
    }
    if (status !== undefined && AUTH.has(status)) {
      return {
        cause: `${url} refused the host with HTTP ${status}.`,
        fix: 'give the entry the credentials the server expects, e.g. headers: { Authorization: "Bearer …" }.',
      };
    }
    if (status !== undefined) {
      return {
        cause: `${url} answered HTTP ${status}: ${describeThrown(error)}.`,
        fix: "check the url in the entry (the server's MCP endpoint, often /mcp) and the server's own logs.",
      };
    }
    const code = (error as { cause?: { code?: string } } | undefined)?.cause?.code;
    return {
      cause: `could not reach ${url}: ${describeThrown(error)}${code ? ` (${code})` : ''}.`,
      fix: 'start the server, or fix the url in the entry; mcp-host keeps reconnecting with backoff meanwhile.',
    };
  }

  /** Both transports refused the handshake: say what each answered, since either may be the one meant. */
  private neitherTransport(status: number, streamableError: unknown, sseError: unknown): Outage {
    const sseStatus = httpStatus(sseError);
    return {
      cause: `${this.spec.url} answered the Streamable HTTP initialize with HTTP ${status} (${describeThrown(streamableError)}) and the legacy HTTP+SSE stream with ${sseStatus === undefined ? describeThrown(sseError) : `HTTP ${sseStatus}`}.`,
      fix: "check the url in the entry (the MCP endpoint, often /mcp) and the server's own logs.",
    };
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.onclose?.();
  }
}

/**
 * The client headers forwarded with the message being sent. The connection
 * (and its SDK transport) is shared by every client, so they cannot be set
 * on the transport: they ride in the async context of one `send` to the
 * fetch it makes, and are added to that request alone. (Not active until a
 * mount forwards something: an AsyncLocalStorage costs nothing until run.)
 */
const withForwardedHeaders = new AsyncLocalStorage<Record<string, string>>();

const fetchWithForwardedHeaders: typeof fetch = (input, init) => {
  const forwarded = withForwardedHeaders.getStore();
  if (!forwarded) return fetch(input, init);
  const headers = new Headers(init?.headers);
  for (const [name, value] of Object.entries(forwarded)) headers.set(name, value);
  return fetch(input, { ...init, headers });
};

/** Statuses that mean "not allowed", not "not this transport". */
const AUTH = new Set([401, 403]);

/** The HTTP status a transport error carries, if it came from a response at all. */
function httpStatus(error: unknown): number | undefined {
  if (error instanceof SdkHttpError) return error.status;
  if (error instanceof SseError && typeof error.code === 'number') return error.code;
  // The legacy transport's POST failures carry the status only in their words.
  const match = /\(HTTP (\d{3})\)/.exec(describeThrown(error));
  return match ? Number(match[1]) : undefined;
}

/**
 * The JSON-RPC error an HTTP 4xx answer to a handshake or a 2026-07-28
 * request carries in its body, as the SDK's own client reads it while
 * negotiating (and, for a 400 alone, after). A `server/discover`
 * refused without one (a 2025-era server's "no session" 400, a 404 or 405)
 * is still an answer: this server does not know the method. An `initialize`
 * refused without one may be a server of the legacy HTTP+SSE transport, so
 * that is tried instead.
 */
function rpcErrorAnswer(
  error: unknown,
  status: number | undefined,
  method: string | undefined,
): { code: number; message: string; data?: unknown } | undefined {
  if (status === undefined || status < 400 || status >= 500 || AUTH.has(status)) return undefined;
  const body = error instanceof SdkHttpError ? (error.data as { text?: unknown } | undefined)?.text : undefined;
  try {
    const parsed = JSON.parse(String(body)) as { error?: { code?: unknown; message?: unknown; data?: unknown } };
    if (typeof parsed.error?.code === 'number') {
      const { code, message, data } = parsed.error;
      return { code, message: String(message ?? `HTTP ${status}`), ...(data === undefined ? {} : { data }) };
    }
  } catch {
    // not JSON: judged below
  }
  return method === 'server/discover'
    ? { code: ErrorCode.MethodNotFound, message: `HTTP ${status}: ${describeThrown(error)}` }
    : undefined;
}

/** Whether a message is of the 2026-07-28 revision (its envelope names it), which has no session to lose. */
function isSessionless(message: JSONRPCMessage): boolean {
  if (!('method' in message)) return false;
  const meta = (message.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  return meta?.[PROTOCOL_VERSION_META_KEY] === MODERN_REVISION;
}

/** What the SDK throws reading an answer's body that is no JSON (SyntaxError) or no JSON-RPC message (its schema's ZodError). */
function unreadableAnswer(error: unknown): boolean {
  return error instanceof SyntaxError || (error instanceof Error && error.name === 'ZodError');
}

/** fetch() rejects with a TypeError when no response came at all (refused, reset, DNS). */
function isNetworkError(error: unknown): boolean {
  return error instanceof TypeError;
}
