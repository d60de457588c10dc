import type { JSONRPCMessage, JSONRPCNotification, JSONRPCRequest, RequestId } from '@modelcontextprotocol/server';
import type { Logger } from '../log.js';
import type { SendOptions, UpstreamChannel } from './channel.js';
import type { ForwardedHeader } from '../config/forward-headers.js';
import { ErrorCode, RpcError } from '../rpc-error.js';
import { describeThrown } from '../errors.js';
import { kindsChangedBy } from '../vocabulary/list-kinds.js';
import { ChatterLimit } from './chatter-limit.js';
import { unroutableMessage } from './unroutable-request.js';
import { HOST_CLIENT_INFO, discoveredHandshake, modernEnvelope, type Handshake } from './handshake-version.js';
import { ModernLink, type LinkSide } from './modern-link.js';
import { recordDroppedNotifications, traceUpstream } from '../sinks/telemetry.js';
import type { CallHooks, ModernClientRound } from '../vocabulary/call-hooks.js';

export type { Handshake } from './handshake-version.js';

type Params = Record<string, unknown>;
type Result = Record<string, unknown>;

export interface PeerOptions {
  /** The mount's name, for messages. */
  label: string;
  logger: Logger;
  /** Default per-request timeout, reset by progress. */
  timeoutMs: number;
  /** The client headers this upstream receives with a client's request (the entry's `forwardHeaders`). */
  forwardHeaders?: readonly ForwardedHeader[];
  /** Notifications tied to no session: list_changed, resource updates, log messages no client can be told. */
  onNotification: (notification: JSONRPCNotification) => void;
  /** The connection ended (the child exited, the remote dropped, close() was called). */
  onClose?: () => void;
  /** Why the connection ended, when the channel knows (the child's exit, the plugin's fault): told to calls in flight. */
  closeReason?: () => string | undefined;
}

/** How to find the revision to speak with an upstream (see `UpstreamPeer.negotiate`). */
export interface Negotiation {
  /** Probe for 2026-07-28 with `server/discover` first: the host's range includes it. */
  modern: boolean;
  /** The revision an `initialize` asks for. */
  legacyRevision: string;
  capabilities: Params;
  /**
   * Whether an unanswered probe means a 2025-era server (a pipe: some never
   * answer a request before `initialize`) or an outage (HTTP: a deployed
   * server answers).
   */
  silenceMeansLegacy: boolean;
}

interface Pending {
  id: RequestId;
  method: string;
  hooks: CallHooks;
  resolve: (result: Result) => void;
  reject: (error: Error) => void;
  timeoutMs: number;
  /** When it times out (`performance.now()`), unless answered or progressing before: restarted by each progress. */
  deadline: number;
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
  /** The methods whose unroutable requests this peer has noted in the log: once each. */
  private readonly unroutableNoted = new Set<string>();
  /**
   * One timer for every call in flight, armed for the earliest deadline it
   * may be the first to reach (`timerDue`), not a timer per call, which
   * every call paid to arm and to clear though nearly none fires. A deadline that
   * moves later (a call answered, or its progress) leaves it as it is; when
   * it fires it times out the calls past their deadline and is armed again
   * for the next.
   */
  private timer?: NodeJS.Timeout;
  private timerDue = Infinity;
  private closed = false;
  /** The probe is out: a channel that closes now may be reopened for the `initialize` fallback. */
  private probing = false;
  /** Set when the upstream speaks 2026-07-28. */
  private modern?: ModernLink;
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

  /** Whether this upstream is spoken to in 2026-07-28 (known once connected). */
  get speaksModern(): boolean {
    return this.modern !== undefined;
  }

  /** Start the channel and run the `initialize` handshake at `protocolVersion`. */
  async connect(protocolVersion: string, capabilities: Params): Promise<Handshake> {
    await this.channel.start();
    return this.initialize(protocolVersion, capabilities);
  }

  /**
   * Start the channel and settle on the newest revision both sides speak,
   * the way the SDK's client does with `versionNegotiation: 'auto'`:
   * `server/discover` first, and a server that offers 2026-07-28 is spoken
   * to in it; any other answer (an error, an offer without it, a child that
   * exits on a request before `initialize`, silence on a pipe) falls back to
   * `initialize`. A child that exited is started again for the fallback.
   */
  async negotiate(how: Negotiation): Promise<Handshake> {
    await this.channel.start();
    if (how.modern && !this.channel.legacyOnly) {
      const probed = await this.probe(how);
      if (probed.handshake) {
        this.modern = new ModernLink(this.linkSide(), probed.handshake.capabilities);
        this.modern.listen();
        return probed.handshake;
      }
      this.options.logger.debug(`falling back to initialize: ${probed.why}`);
    }
    return this.initialize(how.legacyRevision, how.capabilities);
  }

  private async probe(how: Negotiation): Promise<{ handshake?: Handshake; why: string }> {
    this.probing = true;
    try {
      const answer = await this.exchange('server/discover', { _meta: modernEnvelope() }, {}, this.options.timeoutMs);
      const handshake = discoveredHandshake(answer, this.options.label);
      return handshake
        ? { handshake, why: 'it offers 2026-07-28' }
        : { why: `its server/discover offers ${JSON.stringify(answer.supportedVersions)}` };
    } catch (error) {
      if (!(error instanceof RpcError)) throw error;
      if (this.closed) {
        // The upstream ended the connection on the probe: a child that exits on a request before
        // `initialize` is a 2025-era server, started again to be spoken to as one.
        if (!this.channel.reopen) throw error;
        this.closed = false;
        await this.channel.reopen();
        return { why: 'it closed the connection on server/discover' };
      }
      if (error.code === ErrorCode.RequestTimeout) {
        if (how.silenceMeansLegacy) return { why: 'it did not answer server/discover' };
        throw error;
      }
      // Any answer, even an error that shares the SDKs' "connection closed" code (-32000, as a
      // 2025-era HTTP server's "Server not initialized" does), means it is not a 2026-07-28 server.
      // A request that never reached it fails again, and is explained, at `initialize`.
      return { why: `it answered server/discover with error ${error.code}: ${error.message}` };
    } finally {
      this.probing = false;
    }
  }

  private async initialize(protocolVersion: string, capabilities: Params): Promise<Handshake> {
    const result = await this.request('initialize', { protocolVersion, capabilities, clientInfo: HOST_CLIENT_INFO });
    await this.notify('notifications/initialized');
    return result as unknown as Handshake;
  }

  /** What the 2026-07-28 link uses of this peer. */
  private linkSide(): LinkSide {
    return {
      exchange: (method, params, hooks, timeoutMs) => this.exchange(method, params, hooks, timeoutMs),
      send: (message) => this.channel.send(message),
      newId: () => this.nextId++,
      label: this.options.label,
      logger: this.options.logger,
    };
  }

  /** Follow a task's status notifications (SEP-2663): only a 2026-07-28 upstream has tasks to follow. */
  followTask(upstreamId: string, follow: boolean): void {
    this.modern?.followTask(upstreamId, follow);
  }

  /**
   * Forward one request; resolves with the upstream's result as it came
   * (from a 2026-07-28 upstream, once the input it asked for is given).
   */
  request(method: string, params?: Params, hooks: CallHooks = {}, timeoutMs = this.options.timeoutMs): Promise<Result> {
    if (this.modern) return this.modern.request(method, params, hooks, timeoutMs);
    if (hooks.modernClient?.echoed) return Promise.reject(hooks.modernClient.echoed.refusal);
    return this.exchange(method, params, hooks, timeoutMs);
  }

  /** Send one request and wait for its answer; to a 2026-07-28 upstream it carries the envelope. */
  private exchange(method: string, params: Params | undefined, hooks: CallHooks, timeoutMs: number): Promise<Result> {
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
      deadline: 0,
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
      // The call is over: an upstream told of a cancellation sends no answer (the spec says it should not),
      // and a call left pending would hold a reload's drain, or the host's stop, until the drain timeout.
      this.settle(id, (p) => p.reject(new RpcError(ErrorCode.InternalError, 'request cancelled')));
    };
    hooks.signal?.addEventListener('abort', onAbort, { once: true });
    pending.cleanup = () => {
      hooks.signal?.removeEventListener('abort', onAbort);
      this.pending.delete(id);
      if (pending.progressToken !== undefined) this.byToken.delete(pending.progressToken);
    };
    this.pending.set(id, pending);
    this.armTimeout(pending);
    if (this.modern) sentParams = enveloped(sentParams, hooks.modernClient);
    // Built by assignment, not by spreading optional parts: every call pays for these two objects.
    const message: JSONRPCRequest = { jsonrpc: '2.0', id, method };
    if (sentParams) message.params = sentParams;
    const options: SendOptions = { closeSSE: hooks.closeSSE, closeStandaloneSSE: hooks.closeStandaloneSSE };
    const headers = forwarded(this.options.forwardHeaders, hooks.clientHeaders);
    if (headers) options.headers = headers;
    if (hooks.identity) options.identity = hooks.identity;
    this.channel.send(message, options).catch((error: unknown) => {
      this.settle(id, (p) => p.reject(new RpcError(ErrorCode.ConnectionClosed, this.sendFailure(error))));
    });
    return traced ? traced.follow(promise) : promise;
  }

  async notify(method: string, params?: Params): Promise<void> {
    if (this.closed) return;
    const sent = this.modern ? enveloped(params) : params;
    await this.channel.send({ jsonrpc: '2.0', method, ...(sent ? { params: sent } : {}) });
  }

  /** Close the connection; unanswered calls fail with a message naming the mount. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.modern?.close();
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

  /** Start (or, on progress, restart) the call's own timeout. */
  private armTimeout(pending: Pending): void {
    pending.deadline = performance.now() + pending.timeoutMs;
    if (pending.deadline < this.timerDue) this.armTimer(pending.deadline);
  }

  private armTimer(due: number): void {
    clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = setTimeout(this.expire, Math.max(1, Math.ceil(due - performance.now())));
    this.timer.unref();
  }

  /**
   * The timer fired: each call past its deadline times out, and the timer is
   * armed for the earliest deadline left. Node may fire it a little before
   * `due` by this clock (its timers start from the event loop's cached time),
   * so a call not yet due waits for the next round.
   */
  private readonly expire = (): void => {
    this.timer = undefined;
    this.timerDue = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const pending of [...this.pending.values()]) {
      if (pending.deadline <= now) this.timeOut(pending);
      else if (pending.deadline < next) next = pending.deadline;
    }
    if (next !== Infinity && !this.closed) this.armTimer(next);
  };

  private timeOut(pending: Pending): void {
    this.cancel(pending.id, `mcp-host timed out after ${pending.timeoutMs} ms`);
    this.settle(pending.id, (p) =>
      p.reject(
        new RpcError(
          ErrorCode.RequestTimeout,
          `mount "${this.options.label}" did not answer ${p.method} within ${p.timeoutMs} ms (the timeout restarts on each progress notification; raise it with the plugin entry's timeoutMs)`,
        ),
      ),
    );
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
    if (this.modern?.takeAnswer(message)) return;
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
    if (this.modern?.isBookkeeping(notification)) return;
    if (notification.method === 'notifications/message' && !this.chatter.take()) return;
    // A change to the mount's catalogue concerns every session, whichever
    // call it happened during (a tool that registers another).
    const mountWide =
      kindsChangedBy(notification.method).length > 0 || notification.method === 'notifications/resources/updated';
    // The call it is about is the one the link names. Over a pipe nothing
    // names one: a child's log line reaches no client, even when one client
    // alone has calls in flight (the line may be about another's call that
    // just ended), and goes to the host's log instead.
    const owner = mountWide || related === undefined ? undefined : this.pending.get(related);
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
      const message = unroutableMessage(request.method, this.options.label, why);
      // Expected of some servers at every start (unroutable-request.ts): worth a line only when debugging.
      if (!this.unroutableNoted.has(request.method)) {
        this.unroutableNoted.add(request.method);
        this.options.logger.debug(`answered the upstream's ${request.method} with an error: ${message}`);
      }
      void reply({ error: { code: ErrorCode.InternalError, message } });
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
    clearTimeout(this.timer);
    this.timerDue = Infinity;
    const reason = this.pending.size > 0 ? this.options.closeReason?.() : undefined;
    for (const id of [...this.pending.keys()]) {
      this.settle(id, (p) =>
        p.reject(
          new RpcError(
            ErrorCode.ConnectionClosed,
            `mount "${this.options.label}" closed the connection before answering ${p.method}${reason ? `: ${reason}` : ''}`,
          ),
        ),
      );
    }
    for (const abort of this.incoming.values()) abort.abort('the upstream connection closed');
    this.modern?.close();
    // A child that exits on the probe is started again for `initialize`: not the end of the mount.
    if (!this.probing) this.options.onClose?.();
  }
}

/**
 * Params with the 2026-07-28 envelope in their `_meta`: the host's, with a
 * 2026-07-28 client's own capabilities and log level when the request is
 * that client's (so the upstream asks only what the client can answer, and
 * logs only what it asked for).
 */
function enveloped(params: Params | undefined, client?: ModernClientRound): Params {
  return { ...params, _meta: { ...(params?._meta as Params | undefined), ...modernEnvelope(client) } };
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
