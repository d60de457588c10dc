import type {
  JSONRPCMessage,
  JSONRPCNotification,
  JSONRPCRequest,
  RequestId,
  ServerCapabilities,
  Implementation,
} from '@modelcontextprotocol/server';
import type { Logger } from '../log.js';
import type { UpstreamChannel } from './channel.js';
import type { ForwardedHeader } from '../config/forward-headers.js';
import { ErrorCode, RpcError } from '../rpc-error.js';
import { HOST_VERSION } from '../version.js';
import { describeThrown } from '../errors.js';
import { kindsChangedBy } from '../catalogue/list-kinds.js';
import { ChatterLimit } from './chatter-limit.js';
import { recordDroppedNotifications, traceUpstream } from '../telemetry/telemetry.js';

type Params = Record<string, unknown>;
type Result = Record<string, unknown>;

/** What the host learns from an upstream's `initialize` answer. */
export interface Handshake {
  protocolVersion: string;
  capabilities: ServerCapabilities;
  serverInfo: Implementation;
  instructions?: string;
}

/**
 * The hooks of one forwarded request: how the upstream's traffic about that
 * request reaches the client that made it.
 */
export interface CallHooks {
  /** The client cancelled or went away: cancel upstream too. */
  signal?: AbortSignal;
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
}

export interface PeerOptions {
  /** The mount's name, for messages. */
  label: string;
  logger: Logger;
  /** Default per-request timeout, reset by progress. */
  timeoutMs: number;
  /** The client headers this upstream receives with a client's request (the entry's `forwardHeaders`). */
  forwardHeaders?: readonly ForwardedHeader[];
  /** Notifications tied to no call: list_changed, resource updates, log messages. */
  onNotification: (notification: JSONRPCNotification) => void;
  /** The connection ended (the child exited, the remote dropped, close() was called). */
  onClose?: () => void;
}

interface Pending {
  id: RequestId;
  method: string;
  hooks: CallHooks;
  resolve: (result: Result) => void;
  reject: (error: Error) => void;
  timer?: NodeJS.Timeout;
  timeoutMs: number;
  /** The token the host put in the upstream request, when the client asked for progress. */
  progressToken?: number;
  cleanup: () => void;
}

/**
 * A JSON-RPC client of one upstream MCP server, written for forwarding
 * rather than for calling: results and errors pass through as they came
 * (no schema re-validation that would strip fields), and every request
 * carries hooks that send the upstream's progress, mid-call requests and
 * log messages back to the client that made the call.
 *
 * Ids and progress tokens are the host's own on this connection: two
 * sessions that pick the same progress token each get a distinct upstream
 * token, so their progress never crosses.
 */
export class UpstreamPeer {
  private nextId = 1;
  private nextToken = 1;
  private readonly pending = new Map<RequestId, Pending>();
  private readonly byToken = new Map<number, Pending>();
  /** Requests the upstream made to us that are still being answered: cancelled if it says so. */
  private readonly incoming = new Map<RequestId, AbortController>();
  private closed = false;
  /** Bounds the log and progress notifications passed on, so a flood cannot bury clients' answers. */
  private readonly chatter = new ChatterLimit((dropped, perSecond) => {
    recordDroppedNotifications(this.options.label, dropped);
    this.options.logger.warn(
      `mount "${this.options.label}" sent log and progress notifications faster than ${perSecond} a second: dropped ${dropped} of them`,
    );
  });

  constructor(
    private readonly channel: UpstreamChannel,
    private readonly options: PeerOptions,
  ) {
    channel.onmessage = (message, related) => this.receive(message, related);
    channel.onclose = () => this.closedByChannel();
    channel.onerror = (error) => options.logger.warn({ err: error }, `transport error on mount "${options.label}"`);
  }

  /** Calls that are waiting for an answer from this upstream. */
  get inFlight(): number {
    return this.pending.size;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Start the channel and run the `initialize` handshake at `protocolVersion`. */
  async connect(protocolVersion: string, capabilities: Params): Promise<Handshake> {
    await this.channel.start();
    const result = await this.request('initialize', {
      protocolVersion,
      capabilities,
      clientInfo: { name: 'mcp-host', version: HOST_VERSION },
    });
    await this.notify('notifications/initialized');
    return result as unknown as Handshake;
  }

  /** Forward one request; resolves with the upstream's result as it came. */
  request(method: string, params?: Params, hooks: CallHooks = {}, timeoutMs = this.options.timeoutMs): Promise<Result> {
    if (this.closed) {
      return Promise.reject(new RpcError(ErrorCode.ConnectionClosed, `mount "${this.options.label}" is not connected`));
    }
    if (hooks.signal?.aborted) return Promise.reject(new RpcError(ErrorCode.InternalError, 'request cancelled'));
    const id = this.nextId++;
    // With telemetry on, the request carries its client span's context in _meta, and its hooks stay in the trace.
    const traced = traceUpstream({ mount: this.options.label, method, id, params, hooks });
    if (traced) ({ params, hooks } = traced);
    let sentParams = params;
    const pending: Pending = {
      id,
      method,
      hooks,
      timeoutMs,
      resolve: () => {},
      reject: () => {},
      cleanup: () => {},
    };
    const clientToken = (params?._meta as Params | undefined)?.progressToken;
    if (clientToken !== undefined && hooks.onProgress) {
      pending.progressToken = this.nextToken++;
      sentParams = { ...params, _meta: { ...(params!._meta as Params), progressToken: pending.progressToken } };
      this.byToken.set(pending.progressToken, pending);
    }
    const promise = new Promise<Result>((resolve, reject) => {
      pending.resolve = resolve;
      pending.reject = reject;
    });
    const onAbort = () => {
      this.cancel(id, 'the client cancelled the request');
      pending.reject(new RpcError(ErrorCode.InternalError, 'request cancelled'));
    };
    hooks.signal?.addEventListener('abort', onAbort, { once: true });
    pending.cleanup = () => {
      clearTimeout(pending.timer);
      hooks.signal?.removeEventListener('abort', onAbort);
      this.pending.delete(id);
      if (pending.progressToken !== undefined) this.byToken.delete(pending.progressToken);
    };
    this.pending.set(id, pending);
    this.armTimeout(pending);
    const message: JSONRPCRequest = { jsonrpc: '2.0', id, method, ...(sentParams ? { params: sentParams } : {}) };
    const headers = forwarded(this.options.forwardHeaders, hooks.clientHeaders);
    this.channel.send(message, headers && { headers }).catch((error: unknown) => {
      this.settle(id, (p) => p.reject(new RpcError(ErrorCode.ConnectionClosed, this.sendFailure(error))));
    });
    return traced ? traced.follow(promise) : promise;
  }

  async notify(method: string, params?: Params): Promise<void> {
    if (this.closed) return;
    await this.channel.send({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
  }

  /** Close the connection; unanswered calls fail with a message naming the mount. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.channel.close();
    this.closedByChannel();
  }

  /**
   * Give up on the calls still in flight: each is cancelled upstream and
   * fails for its client with `reason`, before the connection is closed
   * (a retired mount whose calls outlived the drain timeout).
   */
  abandon(reason: string): void {
    for (const id of [...this.pending.keys()]) {
      this.cancel(id, reason);
      this.settle(id, (p) =>
        p.reject(
          new RpcError(
            ErrorCode.RequestTimeout,
            `mcp-host cancelled ${p.method} on mount "${this.options.label}": ${reason}`,
          ),
        ),
      );
    }
  }

  private sendFailure(error: unknown): string {
    return `could not send to mount "${this.options.label}": ${describeThrown(error)}`;
  }

  private armTimeout(pending: Pending): void {
    clearTimeout(pending.timer);
    pending.timer = setTimeout(() => {
      this.cancel(pending.id, `mcp-host timed out after ${pending.timeoutMs} ms`);
      this.settle(pending.id, (p) =>
        p.reject(
          new RpcError(
            ErrorCode.RequestTimeout,
            `mount "${this.options.label}" did not answer ${p.method} within ${p.timeoutMs} ms (the timeout restarts on each progress notification; raise it with the plugin entry's timeoutMs)`,
          ),
        ),
      );
    }, pending.timeoutMs);
    pending.timer.unref?.();
  }

  private cancel(id: RequestId, reason: string): void {
    if (!this.pending.has(id)) return;
    this.notify('notifications/cancelled', { requestId: id, reason }).catch(() => {});
  }

  private settle(id: RequestId, how: (pending: Pending) => void): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    pending.cleanup();
    how(pending);
  }

  private receive(message: JSONRPCMessage, related?: RequestId): void {
    if ('method' in message) {
      if ('id' in message && message.id !== undefined) this.answerUpstreamRequest(message as JSONRPCRequest, related);
      else this.routeNotification(message as JSONRPCNotification, related);
      return;
    }
    // An error without an id (the upstream could not parse what we sent)
    // belongs to no call; the call it was meant for times out.
    if (!('id' in message) || message.id === undefined) return;
    if ('error' in message) {
      const { code, message: text, data } = message.error;
      this.settle(message.id as RequestId, (p) => p.reject(new RpcError(code, text, data)));
    } else if ('result' in message) {
      this.settle(message.id, (p) => p.resolve(message.result as Result));
    }
  }

  private routeNotification(notification: JSONRPCNotification, related?: RequestId): void {
    const params = notification.params as Params | undefined;
    if (notification.method === 'notifications/progress') {
      const pending = this.byToken.get(params?.progressToken as number);
      if (!pending) return;
      this.armTimeout(pending);
      if (!this.chatter.take()) return;
      const { progressToken: _hostToken, ...progress } = params!;
      pending.hooks.onProgress?.(progress);
      return;
    }
    if (notification.method === 'notifications/cancelled') {
      this.incoming.get(params?.requestId as RequestId)?.abort(params?.reason);
      return;
    }
    if (notification.method === 'notifications/message' && !this.chatter.take()) return;
    // A change to the mount's catalogue concerns every session, whichever
    // call it happened during (a tool that registers another).
    const mountWide =
      kindsChangedBy(notification.method).length > 0 || notification.method === 'notifications/resources/updated';
    const owner = related !== undefined && !mountWide ? this.pending.get(related) : undefined;
    if (owner?.hooks.onNotification) owner.hooks.onNotification(notification);
    else this.options.onNotification(notification);
  }

  /**
   * A request from the upstream. It goes to the client whose call caused it:
   * named by the link in process; over a pipe, the only call in flight. When
   * several are in flight and nothing says which, the host answers with an
   * error saying why rather than guess: a guess would show one user's
   * elicitation to another.
   */
  private answerUpstreamRequest(request: JSONRPCRequest, related?: RequestId): void {
    const reply = (body: { result: Result } | { error: { code: number; message: string; data?: unknown } }) =>
      this.channel.send({ jsonrpc: '2.0', id: request.id, ...body } as JSONRPCMessage).catch(() => {});
    if (request.method === 'ping') {
      void reply({ result: {} });
      return;
    }
    const owner = this.ownerOf(related);
    if (!owner?.hooks.onRequest) {
      const why =
        this.pending.size === 0
          ? 'no client call is in flight on this mount to ask'
          : related === undefined && this.pending.size > 1
            ? `${this.pending.size} client calls are in flight on this mount and its transport does not say which one caused the request`
            : 'the call it belongs to has no client to ask';
      void reply({
        error: {
          code: ErrorCode.InternalError,
          message: `mcp-host cannot route ${request.method} from mount "${this.options.label}": ${why}`,
        },
      });
      return;
    }
    const abort = new AbortController();
    this.incoming.set(request.id, abort);
    const { onRequest } = owner.hooks;
    // A hook that throws rather than rejects (the SDK refuses synchronously a
    // request the client's protocol revision cannot carry) still becomes the
    // upstream's error answer, never an exception escaping the transport.
    new Promise<Result>((resolve) =>
      resolve(
        onRequest(
          { method: request.method, ...(request.params ? { params: request.params as Params } : {}) },
          abort.signal,
        ),
      ),
    )
      .then(
        (result) => reply({ result }),
        (error: unknown) => {
          const code =
            typeof (error as RpcError)?.code === 'number' ? (error as RpcError).code : ErrorCode.InternalError;
          return reply({ error: { code, message: describeThrown(error), data: (error as RpcError)?.data } });
        },
      )
      .finally(() => this.incoming.delete(request.id));
  }

  private ownerOf(related?: RequestId): Pending | undefined {
    if (related !== undefined) return this.pending.get(related);
    if (this.pending.size === 1) return this.pending.values().next().value;
    return undefined;
  }

  private closedByChannel(): void {
    if (this.closed) return;
    this.closed = true;
    for (const id of [...this.pending.keys()]) {
      this.settle(id, (p) =>
        p.reject(
          new RpcError(
            ErrorCode.ConnectionClosed,
            `mount "${this.options.label}" closed the connection before answering ${p.method}`,
          ),
        ),
      );
    }
    for (const abort of this.incoming.values()) abort.abort('the upstream connection closed');
    this.options.onClose?.();
  }
}

/** The client's headers an upstream may see: only those its entry forwards, under the names the entry gives. */
function forwarded(
  wanted: readonly ForwardedHeader[] | undefined,
  clientHeaders: Headers | undefined,
): Record<string, string> | undefined {
  if (!wanted?.length || !clientHeaders) return undefined;
  const headers: Record<string, string> = {};
  for (const { from, as } of wanted) {
    const value = clientHeaders.get(from);
    if (value !== null) headers[as] = value;
  }
  return Object.keys(headers).length > 0 ? headers : undefined;
}
