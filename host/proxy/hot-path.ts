import type {
  JSONRPCErrorResponse,
  JSONRPCMessage,
  JSONRPCRequest,
  LoggingLevel,
  MessageExtraInfo,
  RequestId,
  Server,
  ServerCapabilities,
  ServerContext,
  Transport,
} from '@modelcontextprotocol/server';
import type { HostRuntime } from '../runtime.js';
import type { Generation } from '../catalogue/generation.js';
import type { CallHooks, CancelSignal } from '../vocabulary/call-hooks.js';
import type { ClientScope } from '../vocabulary/client-scope.js';
import { getPrompt, readResource } from '../catalogue/routing.js';
import { callToolWithinLimits } from './call-limits.js';
import { isPlainObject } from '../plain-object.js';
import { telemetryOn } from '../sinks/telemetry.js';
import { CallCancellation } from './call-cancellation.js';
import { callHooksFor } from './call-hooks.js';
import { logCaller } from './caller-log.js';
import { asProtocolError } from './front-server.js';
import { audited } from './audited.js';
import { servesModernEra } from './protocol-era.js';
import { SessionLogLevel } from './session-log-level.js';
import { maySearch } from './tool-discovery.js';

type Params = Record<string, unknown>;
type Result = Record<string, unknown>;

/** How each per-item request the hot path serves is told well-formed, the capability it needs, and where it goes. */
const ROUTES: Record<
  string,
  {
    capability: keyof ServerCapabilities;
    /** Whether the params are what the SDK's schema for the request accepts; others go to the SDK, which says what is wrong. */
    wellFormed: (params: Params) => boolean;
    route: (generation: Generation, params: Params, hooks: CallHooks) => Promise<Result>;
  }
> = {
  'tools/call': {
    capability: 'tools',
    wellFormed: (params) => typeof params.name === 'string' && optionalObject(params.arguments),
    route: callToolWithinLimits,
  },
  'prompts/get': {
    capability: 'prompts',
    wellFormed: (params) =>
      typeof params.name === 'string' &&
      (params.arguments === undefined ||
        (isPlainObject(params.arguments) &&
          Object.values(params.arguments).every((value) => typeof value === 'string'))),
    route: getPrompt,
  },
  'resources/read': {
    capability: 'resources',
    wellFormed: (params) => typeof params.uri === 'string',
    route: readResource,
  },
};

function optionalObject(value: unknown): boolean {
  return value === undefined || isPlainObject(value);
}

/**
 * The keys by which the SDK's `tools/call` wrapper knows a result of another
 * family than a tool's (a task, an input-required result): such a result is
 * not given the empty `content` the SDK adds to a content-less tool result.
 */
const FOREIGN_RESULT_KEYS = ['task', 'inputRequests', 'requestState'];

/**
 * The host's front transport with a hot path for the per-item requests
 * (`tools/call`, `prompts/get`, `resources/read`): such a request is
 * recognised from its JSON-RPC envelope and routed straight to the owning
 * mount (routing.ts: curation, pins, the mount's limits and result checks,
 * its peer's progress, cancellation and timeouts), and its answer written
 * back; the front's SDK `Server` never dispatches it. Through the SDK, a
 * call paid a second full dispatch (a context built, the request and the
 * result validated by the SDK's wrapper, then again by the mount's result
 * check): about half of what the host added to a cheap call's CPU time
 * (docs/performance.md).
 *
 * Everything else goes to the SDK `Server` as before: `initialize`,
 * capabilities, lists, subscriptions, completions, pings, the client's
 * answers to the host's own requests, and every request the hot path does
 * not take. It takes a request only when serving it itself changes nothing
 * a client can see:
 *
 * - the session is initialized in a 2025-era revision (a 2026-07-28
 *   session's calls carry an envelope, input-required rounds and unwrapped
 *   output schemas, which the SDK's per-era machinery serves);
 * - telemetry is off (with it on, every request gets the SDK-side server
 *   span traced-server.ts gives it);
 * - the session advertised the capability (otherwise the SDK answers
 *   "Method not found");
 * - its params are well-formed (the SDK's refusal of malformed params
 *   names the field) and ask for no task.
 *
 * What the SDK does around a handler it still does here, in the same way:
 * a `notifications/cancelled` naming the request aborts it (and no answer
 * is sent), the connection's close aborts every call in flight, the
 * plugin's progress, log messages (at the session's `logging/setLevel`)
 * and mid-call requests reach the client tied to the call (call-hooks.ts,
 * through the session's own `Server`), errors carry their code as the
 * front server's do, and a tool result without `content` gets `content: []`.
 */
export class HotPathTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  /** The SDK's handler, given every message the hot path does not take. */
  private passOn?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  /** Calls served here and not answered yet, by request id: what a cancellation aborts. */
  private readonly inFlight = new Map<RequestId, CallCancellation>();
  /** The level the client set, as the SDK's `Server` keeps it for its own handlers' log messages. */
  private readonly logLevel = new SessionLogLevel();

  constructor(
    private readonly inner: Transport,
    private readonly runtime: HostRuntime,
    /** The front server the connection is pinned to, once the SDK's entry has made it. */
    private readonly serverOf: () => Server | undefined,
    /** Its session's scope, for the mounts with `sessions: 'per-client'` (front-server.ts). */
    private readonly scopeOf: () => ClientScope | undefined,
  ) {
    inner.onmessage = (message, extra) => {
      if (!this.served(message, extra)) this.passOn?.(message, extra);
    };
    inner.onclose = () => {
      for (const cancellation of this.inFlight.values()) cancellation.cancel();
      this.inFlight.clear();
      this.onclose?.();
    };
    inner.onerror = (error) => this.onerror?.(error);
  }

  get onmessage(): ((message: JSONRPCMessage, extra?: MessageExtraInfo) => void) | undefined {
    return this.passOn;
  }

  set onmessage(handler: ((message: JSONRPCMessage, extra?: MessageExtraInfo) => void) | undefined) {
    this.passOn = handler;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: Parameters<Transport['send']>[1]): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  // What the SDK's `Server` reads of and tells its transport passes through: the HTTP transport checks each
  // request's MCP-Protocol-Version against the versions the server supports, and names its session.
  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  setSupportedProtocolVersions(versions: string[]): void {
    this.inner.setSupportedProtocolVersions?.(versions);
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  /** Whether the hot path took `message`: a request it serves, or a cancellation of one. */
  private served(message: JSONRPCMessage, extra: MessageExtraInfo | undefined): boolean {
    if (!('method' in message)) return false;
    if (!('id' in message)) {
      if (message.method === 'notifications/cancelled') this.cancel(message.params);
      return false;
    }
    // Seen on its way to the SDK, which answers it: the level this session's log messages are sent at.
    if (message.method === 'logging/setLevel') this.logLevel.set(message.params?.level);
    const route = ROUTES[message.method];
    const server = this.serverOf();
    if (!route || !server || !this.takes(server, route, message.params)) return false;
    this.serve(server, message, route.route, extra);
    return true;
  }

  private takes(server: Server, route: (typeof ROUTES)[string], params: unknown): boolean {
    if (telemetryOn() || server.getNegotiatedProtocolVersion() === undefined || servesModernEra(server)) return false;
    if (server.getCapabilities()[route.capability] === undefined) return false;
    if (!isPlainObject(params) || params.task !== undefined) return false;
    // The search tool is the host's own, served by the front server (tool-discovery.ts).
    if (maySearch(this.runtime.current, params)) return false;
    // Its `_meta` the stdio wire has checked already (stdio-wire.ts).
    return route.wellFormed(params);
  }

  private cancel(params: Params | undefined): void {
    const id = params?.requestId as RequestId | undefined;
    const cancellation = id === undefined ? undefined : this.inFlight.get(id);
    if (!cancellation) return;
    this.inFlight.delete(id!);
    cancellation.cancel();
  }

  private serve(
    server: Server,
    request: JSONRPCRequest,
    route: (generation: Generation, params: Params, hooks: CallHooks) => Promise<Result>,
    extra: MessageExtraInfo | undefined,
  ): void {
    const { id, method } = request;
    const params = request.params as Params;
    const cancellation = new CallCancellation();
    this.inFlight.set(id, cancellation);
    // Over HTTP, a client that drops the POST carrying the call cancels it, as legacy-sessions.ts has the SDK path do.
    extra?.request?.signal.addEventListener('abort', () => this.cancel({ requestId: id }), { once: true });
    const context = callContext(server, id, cancellation, extra, this.logLevel, this.inner.sessionId);
    const answer = (message: JSONRPCMessage): void => {
      if (cancellation.aborted) return;
      this.inFlight.delete(id);
      this.inner.send(message).catch((error: unknown) => this.onerror?.(error as Error));
    };
    // Each promise made here also runs the in-process link's async-context hook (in-process-link.ts), which is on
    // for the whole process: so the answer is chained once, and waits on the call's notifications only if it sent some.
    const settled = (message: JSONRPCMessage): void => {
      // The SDK sends a notification a few turns after it is asked to: the answer waits for the call's, or it would overtake its last progress.
      if (context.sent.length > 0) void Promise.allSettled(context.sent).then(() => answer(message));
      else answer(message);
    };
    // A microtask later, as the SDK dispatches a request: nothing of it runs inside the transport's read.
    queueMicrotask(() => {
      let result: Promise<Result>;
      try {
        if (method === 'tools/call') logCaller(this.runtime.logger, context.ctx, method);
        const hooks = callHooksFor(context.ctx, params);
        // Set on the hooks made for this call, not spread into a copy of them: a copy per call shows in its profile.
        const scope = this.scopeOf();
        if (scope) hooks.scope = scope;
        // A 2025-era session is served the legacy view: a dual-era upstream's legacy face (generation.ts).
        const generation = this.runtime.current.view('legacy');
        result = audited(generation, server, context.ctx, method, params, () => route(generation, params, hooks));
      } catch (error) {
        settled(errorResponse(id, error));
        return;
      }
      result.then(
        (value) => settled({ jsonrpc: '2.0', id, result: method === 'tools/call' ? withContent(value) : value }),
        (error: unknown) => settled(errorResponse(id, error)),
      );
    });
  }
}

/**
 * What callHooksFor reads of a request's context, as the SDK's `Server`
 * builds it for a 2025-era request: the call's signal (a CallCancellation,
 * which callHooksFor hands on as CallHooks' `signal`: nothing reads it as an
 * AbortSignal), its notifications and requests tied to it (over HTTP, they
 * travel on the call's own stream), log messages sent at the level the
 * client set, and over HTTP the request, its credentials and its stream
 * controls; and the notifications sent for it so far, which its answer must
 * not overtake.
 */
function callContext(
  server: Server,
  id: RequestId,
  signal: CancelSignal,
  extra: MessageExtraInfo | undefined,
  logLevel: SessionLogLevel,
  sessionId: string | undefined,
): { ctx: ServerContext; sent: Promise<void>[] } {
  const sent: Promise<void>[] = [];
  const notify = (notification: { method: string; params?: Params }) => {
    const sending = server.notification(notification as never, { relatedRequestId: id });
    sent.push(sending);
    return sending;
  };
  const ctx = {
    sessionId,
    mcpReq: {
      id,
      signal,
      notify,
      send: (request: { method: string; params?: Params }, options?: { signal?: AbortSignal }) =>
        server.request(request as never, { ...options, relatedRequestId: id }),
      log: async (level: LoggingLevel, data: unknown, logger?: string) => {
        if (server.getCapabilities().logging === undefined || !logLevel.admits(level)) return;
        await notify({
          method: 'notifications/message',
          params: { level, data, ...(logger !== undefined && { logger }) },
        });
      },
    },
    // Over HTTP: the request, its credentials and its stream controls, as the SDK's `Server` gives them (none over stdio).
    ...(extra?.request && {
      http: {
        req: extra.request,
        authInfo: extra.authInfo,
        closeSSE: extra.closeSSEStream,
        closeStandaloneSSE: extra.closeStandaloneSSEStream,
      },
    }),
  };
  return { ctx: ctx as unknown as ServerContext, sent };
}

/** A tool result without `content`, as the SDK's `tools/call` wrapper sends it: with an empty one. */
function withContent(result: Result): Result {
  if (result.content !== undefined || FOREIGN_RESULT_KEYS.some((key) => key in result)) return result;
  return { ...result, content: [] };
}

/** An error as the front server's SDK sends it to a 2025-era client (-32002 goes as -32602, as the SDK's codec has it). */
function errorResponse(id: RequestId, error: unknown): JSONRPCErrorResponse {
  const { code, message, data } = asProtocolError(error);
  return {
    jsonrpc: '2.0',
    id,
    error: { code: code === -32002 ? -32602 : code, message, ...(data === undefined ? {} : { data }) },
  };
}
