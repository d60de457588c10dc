import { randomUUID } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  LOG_LEVEL_META_KEY,
  createRequestStateCodec,
  inputRequired,
  type ClientCapabilities,
  type InputRequest,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { HostRuntime } from '../runtime.js';
import type { Logger } from '../log.js';
import type { CallHooks, ModernClientRound } from '../vocabulary/call-hooks.js';
import { describeThrown } from '../errors.js';
import { ErrorCode, RpcError } from '../rpc-error.js';
import { callHooksFor, clientHeadersOf } from './call-hooks.js';
import { identityOf } from '../vocabulary/identity.js';
import { whyClientCannotAnswer } from './input-request-check.js';
import { servesModernEra } from './protocol-era.js';
import { isPlainObject } from '../plain-object.js';
import { ownerOf, withOwner, type StateSigning } from '../vocabulary/continuation-owner.js';

type Params = Record<string, unknown>;
type Result = Record<string, unknown>;
type Forward = (hooks: CallHooks) => Promise<Result>;

/**
 * How long a call that asked its client something waits for the retry that
 * answers. Past it the call is cancelled upstream and its `requestState`
 * expires: a client that walked away does not hold a plugin's call forever.
 * The plugin entry's `timeoutMs` bounds the whole call as well.
 */
const RETRY_WINDOW_MS = 10 * 60_000;

/**
 * Forward a request of a multi-round-trip method (`tools/call`,
 * `prompts/get`, `resources/read`) so that the plugin's questions reach the
 * client that made it, in the client's era.
 *
 * Plugins are linked at a 2025-era revision, so a plugin asks by sending a
 * request (elicitation, sampling, roots) while serving the call; a v2 plugin
 * that returns `inputRequired(...)` does too, through its SDK's legacy shim.
 * A 2025-era client is sent that request. A 2026-07-28 client has no channel
 * for it: the host answers its call with an input-required result carrying
 * the plugin's questions, keeps the plugin's call running, and when the
 * client retries with its answers, hands them to the plugin and serves the
 * call's next event (its result, or the next questions) as the retry's
 * answer.
 */
export function forwardMultiRoundTrip(
  runtime: HostRuntime,
  server: Server,
  ctx: ServerContext,
  params: Params | undefined,
  forward: Forward,
): Promise<Result> {
  if (!servesModernEra(server)) return forward(callHooksFor(ctx, params));
  return waitingCallsOf(runtime).serve(ctx, params ?? {}, forward);
}

/** One store per runtime: a 2026-07-28 retry arrives on a new front server (per HTTP request). */
const stores = new WeakMap<HostRuntime, WaitingCalls>();

function waitingCallsOf(runtime: HostRuntime): WaitingCalls {
  let store = stores.get(runtime);
  if (!store) stores.set(runtime, (store = new WaitingCalls(runtime.logger, runtime.stateSigning)));
  return store;
}

/** What a `requestState` names: a waiting call, which of its rounds the retry answers, and the replica holding it. */
interface StatePayload {
  call: string;
  round: number;
  replica: string;
}

/** The name a call is for, to check that a retry continues the same call. */
function targetOf(params: Params): string {
  return String(params.name ?? params.uri);
}

/**
 * The calls waiting for their client's retry, and the codec that seals the
 * `requestState` naming them. The state comes back from the client, so it
 * is signed (HMAC) with a key only this process holds (or, in a cluster,
 * only its replicas hold), expires with the retry window, and is bound to
 * the method and the authenticated client (an HTTP client's token). It
 * names the replica holding the call: a retry that lands on another replica
 * is forwarded to it (http.ts), and one that reaches a replica not holding
 * the call is refused.
 */
class WaitingCalls {
  private readonly calls = new Map<string, Continuation>();
  private readonly codec;

  constructor(
    readonly logger: Logger,
    private readonly signing: StateSigning,
  ) {
    this.codec = createRequestStateCodec<StatePayload>({
      key: signing.key,
      ttlSeconds: RETRY_WINDOW_MS / 1000,
      bind: (ctx) => `${ctx.mcpReq.method}\0${ctx.http?.authInfo?.clientId ?? ''}`,
    });
  }

  async serve(ctx: ServerContext, params: Params, forward: Forward): Promise<Result> {
    const state = ctx.mcpReq.requestState<unknown>();
    if (state === undefined) return new Continuation(this, ctx, params).start(forward, ctx, params);
    const { method } = ctx.mcpReq;
    const restart = `Fix: send the ${method} again without requestState and inputResponses.`;
    let payload: StatePayload;
    try {
      payload = await this.codec.verify(ownerOf(String(state))?.token ?? String(state), ctx);
    } catch (error) {
      // Not the host's own: a 2026-07-28 upstream's, which goes back to it as it came (it checks its
      // own state); an upstream on a 2025-era link issued none, so there it is refused with this.
      const refusal = new RpcError(
        ErrorCode.InvalidParams,
        `Invalid or expired requestState (${describeThrown(error)}): this mcp-host process did not issue it to this client for a ${method}, or it is older than ${RETRY_WINDOW_MS / 1000} s. ${restart}`,
        { reason: 'invalid_request_state' },
      );
      const echoed = { requestState: String(state), refusal };
      return forward({ ...callHooksFor(ctx, params), modernClient: { ...modernRoundOf(ctx), echoed } });
    }
    if (payload.replica !== this.signing.replica) {
      throw new RpcError(
        ErrorCode.InvalidParams,
        `Invalid or expired requestState: the mcp-host replica holding the ${method} it continues is gone (stopped or restarted), and its call with it. ${restart}`,
        { reason: 'invalid_request_state' },
      );
    }
    const call = this.calls.get(payload.call);
    if (!call || call.round !== payload.round) {
      throw new RpcError(
        ErrorCode.InvalidParams,
        `Invalid or expired requestState: no ${method} is waiting for it. The call it continues was already continued with it, was cancelled, or waited more than ${RETRY_WINDOW_MS / 1000} s for this retry. ${restart}`,
        { reason: 'invalid_request_state' },
      );
    }
    return call.answer(ctx, params);
  }

  async mint(call: Continuation, ctx: ServerContext): Promise<string> {
    const { replica } = this.signing;
    return withOwner(replica, await this.codec.mint({ call: call.id, round: call.round, replica }, ctx));
  }

  hold(call: Continuation): void {
    this.calls.set(call.id, call);
  }

  release(call: Continuation): void {
    this.calls.delete(call.id);
  }
}

/** A question a plugin asked during the call, waiting for the client's answer. */
interface Question {
  key: string;
  request: { method: string; params?: Params };
  answer(result: Result): void;
  refuse(error: Error): void;
}

/**
 * One forwarded call of a 2026-07-28 client, across the rounds it takes.
 * The upstream call runs from the first request to its result; each client
 * request (the first, then each retry) is a round that waits for the
 * call's next event. Between rounds the call waits for the retry.
 */
class Continuation {
  readonly id = randomUUID();
  /** Rounds that ended with questions; a retry must name the latest. */
  round = 0;
  private readonly method: string;
  private readonly target: string;
  private readonly cancel = new AbortController();
  private readonly hooks: CallHooks;
  /** The round being served: the plugin's progress and log messages about the call go to it. */
  private caller?: CallHooks;
  /** Asked by the plugin, not yet put to the client. */
  private readonly unasked: Question[] = [];
  /** Put to the client in the latest input-required result, by key. */
  private readonly asked = new Map<string, Question>();
  private outcome?: { result: Result } | { error: unknown };
  private wake?: () => void;
  private idle?: NodeJS.Timeout;
  private nextKey = 1;

  constructor(
    private readonly calls: WaitingCalls,
    ctx: ServerContext,
    params: Params,
  ) {
    this.method = ctx.mcpReq.method;
    this.target = targetOf(params);
    const progress = (params._meta as Params | undefined)?.progressToken !== undefined;
    this.hooks = {
      signal: this.cancel.signal,
      // The upstream is given a progress token only when the first request asked for progress.
      ...(progress ? { onProgress: (update: Params) => this.caller?.onProgress?.(update) } : {}),
      onRequest: (request, signal) => this.ask(request, signal),
      onNotification: (notification) => this.caller?.onNotification?.(notification),
      // The upstream call is made once, for the first request: its headers are the ones forwarded.
      ...clientHeadersOf(ctx),
      identity: identityOf(ctx),
      // A 2026-07-28 upstream answers this client as it came; on a 2025-era link the rounds are the host's.
      modernClient: modernRoundOf(ctx),
    };
  }

  start(forward: Forward, ctx: ServerContext, params: Params): Promise<Result> {
    (async () => forward(this.hooks))().then(
      (result) => this.settle({ result }),
      (error: unknown) => this.settle({ error }),
    );
    return this.serveRound(ctx, params);
  }

  /** A retry naming this call's latest round: its answers go to the plugin, and it serves the next round. */
  answer(ctx: ServerContext, params: Params): Promise<Result> {
    if (targetOf(params) !== this.target) {
      throw new RpcError(
        ErrorCode.InvalidParams,
        `This requestState continues the ${this.method} of "${this.target}", not of "${targetOf(params)}". Fix: retry the same ${this.method} it was issued for.`,
        { reason: 'invalid_request_state' },
      );
    }
    const responses = ctx.mcpReq.inputResponses ?? {};
    if (!this.outcome) {
      const unanswered = [...this.asked.values()].filter((question) => !isPlainObject(responses[question.key]));
      if (unanswered.length > 0) {
        const named = unanswered.map((question) => `"${question.key}" (${question.request.method})`).join(', ');
        throw new RpcError(
          ErrorCode.InvalidParams,
          `The retried ${this.method} does not answer input request ${named}: inputResponses needs a result object for every key of inputRequests. Fix: retry with an answer for each.`,
        );
      }
    }
    // Taken out of the waiting calls before anything else runs: a second
    // retry with the same requestState finds nothing to continue.
    this.calls.release(this);
    clearTimeout(this.idle);
    for (const [key, question] of this.asked) question.answer(responses[key] as Result);
    this.asked.clear();
    return this.serveRound(ctx, params);
  }

  private ask(request: { method: string; params?: Params }, signal: AbortSignal): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      const question: Question = {
        key: `${request.method}#${this.nextKey++}`,
        request,
        answer: resolve,
        refuse: reject,
      };
      this.unasked.push(question);
      // The plugin gave up on its request (its own timeout): it is not asked, and an answer to it is dropped.
      signal.addEventListener(
        'abort',
        () => {
          this.asked.delete(question.key);
          const index = this.unasked.indexOf(question);
          if (index >= 0) this.unasked.splice(index, 1);
          reject(new Error(`the plugin cancelled its ${request.method}`));
        },
        { once: true },
      );
      this.wake?.();
    });
  }

  private settle(outcome: { result: Result } | { error: unknown }): void {
    this.outcome = outcome;
    // The call is over: questions it left are answered by no one.
    const ended = new Error(`the ${this.method} already ended`);
    for (const question of [...this.unasked.splice(0), ...this.asked.values()]) question.refuse(ended);
    this.asked.clear();
    this.wake?.();
  }

  /**
   * Serve one client request: wait for the call's next event. Its result
   * (or error) ends the call; questions from the plugin end the round with
   * an input-required result, and the call waits for the retry.
   */
  private async serveRound(ctx: ServerContext, params: Params): Promise<Result> {
    this.caller = callHooksFor(ctx, params);
    const onCancel = () => this.cancel.abort();
    ctx.mcpReq.signal.addEventListener('abort', onCancel, { once: true });
    try {
      for (;;) {
        if (!this.outcome && this.unasked.length === 0) await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        // Questions a plugin asks together (Promise.all) arrive one by one; a
        // turn of the event loop lets them go to the client in one round.
        if (!this.outcome) await new Promise((resolve) => setImmediate(resolve));
        if (this.outcome) {
          if ('result' in this.outcome) return this.outcome.result;
          throw this.outcome.error;
        }
        const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
        const declared = envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
        for (const question of this.unasked.splice(0)) {
          const why = whyClientCannotAnswer(question.request, declared);
          if (why === undefined) this.asked.set(question.key, question);
          else question.refuse(new RpcError(ErrorCode.MethodNotFound, `mcp-host cannot ask the client: ${why}`));
        }
        if (this.asked.size > 0) return await this.endRound(ctx);
      }
    } finally {
      this.caller = undefined;
      ctx.mcpReq.signal.removeEventListener('abort', onCancel);
    }
  }

  private async endRound(ctx: ServerContext): Promise<Result> {
    this.round++;
    const inputRequests: Record<string, InputRequest> = {};
    for (const [key, question] of this.asked) inputRequests[key] = embedded(question.request);
    const requestState = await this.calls.mint(this, ctx);
    this.calls.hold(this);
    this.idle = setTimeout(() => this.abandon(), RETRY_WINDOW_MS);
    this.idle.unref();
    this.calls.logger.debug(
      { call: this.id, round: this.round, asked: Object.keys(inputRequests) },
      `${this.method} of "${this.target}" asks its 2026-07-28 client for input`,
    );
    return inputRequired({ inputRequests, requestState }) as unknown as Result;
  }

  /** No retry came within the window: cancel the call upstream. */
  private abandon(): void {
    this.calls.release(this);
    if (this.outcome) return;
    this.calls.logger.info(
      `cancelling the ${this.method} of "${this.target}": its 2026-07-28 client did not answer the plugin's questions within ${RETRY_WINDOW_MS / 1000} s`,
    );
    this.cancel.abort();
  }
}

/**
 * What a 2026-07-28 client sent with this request that its SDK lifted out
 * of the params, for an upstream that speaks 2026-07-28 too.
 */
export function modernRoundOf(ctx: ServerContext): ModernClientRound {
  const envelope = (ctx.mcpReq.envelope ?? {}) as Params;
  const capabilities = envelope[CLIENT_CAPABILITIES_META_KEY];
  const logLevel = envelope[LOG_LEVEL_META_KEY];
  const inputResponses = ctx.mcpReq.inputResponses as Params | undefined;
  return {
    ...(inputResponses ? { inputResponses } : {}),
    ...(isPlainObject(capabilities) ? { capabilities } : {}),
    ...(typeof logLevel === 'string' ? { logLevel } : {}),
  };
}

/**
 * A plugin's request as an input request. Its progress token is dropped: it
 * names the request on the host's link to the plugin, and nothing can report
 * progress on a question inside a result (the SDK's shim for `inputRequired`
 * returns sets one on every request it sends).
 */
function embedded(request: { method: string; params?: Params }): InputRequest {
  const { progressToken: _linkToken, ...meta } = (request.params?._meta ?? {}) as Params;
  const { _meta: _linkMeta, ...params } = request.params ?? {};
  return {
    method: request.method,
    params: Object.keys(meta).length > 0 ? { ...params, _meta: meta } : params,
  } as InputRequest;
}
