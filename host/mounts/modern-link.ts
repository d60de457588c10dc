import {
  SERVER_INFO_META_KEY,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type RequestId,
  type ServerCapabilities,
} from '@modelcontextprotocol/server';
import type { Logger } from '../log.js';
import { HostError, describeThrown } from '../errors.js';
import { isPlainObject } from '../plain-object.js';
import { ErrorCode, RpcError } from '../rpc-error.js';
import { modernEnvelope } from './handshake-version.js';
import { inputRequiredProblem } from './result-check.js';
import type { CallHooks } from '../vocabulary/call-hooks.js';

type Params = Record<string, unknown>;
type Result = Record<string, unknown>;

/**
 * Rounds of `input_required` one call may take before the host gives up on
 * it: a server that keeps asking would otherwise hold its client forever.
 */
const MAX_INPUT_ROUNDS = 32;

/** What the link needs of the peer it belongs to. */
export interface LinkSide {
  /** Send one request as it is (with the envelope) and wait for its answer. */
  exchange(method: string, params: Params | undefined, hooks: CallHooks, timeoutMs: number): Promise<Result>;
  /** Send a message outside request bookkeeping (the long-lived `subscriptions/listen`). */
  send(message: JSONRPCMessage): Promise<void>;
  newId(): number;
  readonly label: string;
  readonly logger: Logger;
}

/**
 * What speaking 2026-07-28 to an upstream changes for the host, which
 * otherwise forwards the same requests to it as to a 2025-era one:
 *
 * - no session: `ping`, `resources/subscribe` and `logging/setLevel` are gone.
 *   A liveness check is a `server/discover`; the resources sessions follow,
 *   and the catalogue's `list_changed`, arrive on one `subscriptions/listen`
 *   stream, opened again with the new filter when the followed set changes.
 * - no server-to-client requests: a server asks its client by answering
 *   `input_required`. The link puts each embedded request to the client
 *   whose call it is (through the call's `onRequest` hook, the same one a
 *   2025-era upstream's mid-call request takes: a legacy client gets the real
 *   request, a 2026-07-28 client the host's own `input_required`), and sends
 *   the answers back as the retry, with the server's `requestState` byte for
 *   byte, until the call completes.
 * - `resultType` and the server's `serverInfo` mark every result: they
 *   describe this link, so a complete result reaches the host's front
 *   without them, and the front stamps its own for the client's era.
 */
export class ModernLink {
  private readonly followed = new Set<string>();
  /** The server's own IDs of the tasks some client's listen stream follows (SEP-2663 `taskIds`). */
  private readonly followedTasks = new Set<string>();
  /** The `subscriptions/listen` request whose stream is current. */
  private listening?: RequestId;
  /** Streams replaced by a newer filter: their end is expected. */
  private readonly replaced = new Set<RequestId>();
  private closed = false;

  constructor(
    private readonly side: LinkSide,
    private readonly capabilities: ServerCapabilities,
  ) {}

  async request(method: string, params: Params | undefined, hooks: CallHooks, timeoutMs: number): Promise<Result> {
    if (method === 'ping') {
      await this.side.exchange('server/discover', undefined, hooks, timeoutMs);
      return {};
    }
    if (method === 'resources/subscribe' || method === 'resources/unsubscribe') {
      const uri = String(params?.uri);
      if (method === 'resources/subscribe') this.followed.add(uri);
      else this.followed.delete(uri);
      this.listen();
      return {};
    }
    const client = hooks.modernClient;
    if (client) {
      // A 2026-07-28 client's round: passed on as it came, answered as it came.
      const result = await this.side.exchange(
        method,
        {
          ...params,
          ...(client.inputResponses ? { inputResponses: client.inputResponses } : {}),
          ...(client.echoed ? { requestState: client.echoed.requestState } : {}),
        },
        hooks,
        timeoutMs,
      );
      return result.resultType === 'input_required' ? withoutServerInfo(result) : withoutWireFields(result);
    }
    let sent = params;
    for (let round = 1; ; round++) {
      const result = await this.side.exchange(method, sent, hooks, timeoutMs);
      if (result.resultType !== 'input_required') return withoutWireFields(result);
      const malformed = inputRequiredProblem(method, result);
      if (malformed) throw new HostError({ where: `mount "${this.side.label}"`, ...malformed });
      if (round > MAX_INPUT_ROUNDS) {
        throw new RpcError(
          ErrorCode.InternalError,
          `mount "${this.side.label}" still asked for input after ${MAX_INPUT_ROUNDS} rounds of ${method}: mcp-host gave up on the call.`,
        );
      }
      const inputResponses = await this.answer(method, result.inputRequests, hooks);
      sent = {
        ...params,
        inputResponses,
        ...(typeof result.requestState === 'string' ? { requestState: result.requestState } : {}),
      };
    }
  }

  /** Put each embedded request to the call's client; all are answered, or the call fails with the first refusal. */
  private async answer(method: string, inputRequests: unknown, hooks: CallHooks): Promise<Params> {
    const asked = isPlainObject(inputRequests) ? Object.entries(inputRequests) : [];
    const onRequest = hooks.onRequest;
    if (!onRequest) {
      throw new RpcError(
        ErrorCode.InternalError,
        `mcp-host cannot route the input mount "${this.side.label}" asked for during ${method}: the call has no client to ask.`,
      );
    }
    const abort = new AbortController();
    const stop = () => abort.abort('the client cancelled the request');
    hooks.signal?.addEventListener('abort', stop, { once: true });
    try {
      const answers = await Promise.all(
        asked.map(async ([key, request]) => {
          const { method: asking, params } = (isPlainObject(request) ? request : {}) as {
            method?: string;
            params?: Params;
          };
          const result = await onRequest({ method: String(asking), ...(params ? { params } : {}) }, abort.signal);
          return [key, result] as const;
        }),
      );
      return Object.fromEntries(answers);
    } finally {
      hooks.signal?.removeEventListener('abort', stop);
      abort.abort('answered');
    }
  }

  /**
   * (Re)open the stream that carries the server's notifications, filtered to
   * what the host follows: the lists whose changes the server announces,
   * the resources some session subscribed to, and the tasks some client's
   * listen stream names. The stream it replaces is
   * cancelled once the new one is asked for, so no change falls between them.
   */
  listen(): void {
    if (this.closed) return;
    const { tools, prompts, resources } = this.capabilities as Record<string, { listChanged?: boolean } | undefined>;
    const notifications = {
      toolsListChanged: tools?.listChanged === true,
      promptsListChanged: prompts?.listChanged === true,
      resourcesListChanged: resources?.listChanged === true,
      resourceSubscriptions: [...this.followed],
      ...(this.followedTasks.size > 0 && { taskIds: [...this.followedTasks] }),
    };
    const previous = this.listening;
    const wanted = Object.values(notifications).some(
      (value) => value === true || (Array.isArray(value) && value.length),
    );
    this.listening = undefined;
    if (wanted) {
      const id = this.side.newId();
      this.listening = id;
      this.side
        .send({
          jsonrpc: '2.0',
          id,
          method: 'subscriptions/listen',
          params: { notifications, _meta: modernEnvelope() },
        })
        .catch((error: unknown) => this.ended(id, describeThrown(error)));
    }
    if (previous !== undefined) {
      this.replaced.add(previous);
      this.side
        .send({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: previous, reason: 'replaced by a new filter', _meta: modernEnvelope() },
        })
        .catch(() => {});
    }
  }

  /** Follow task `id` (or stop): its `notifications/tasks` come on the listen stream, which is opened again to say so. */
  followTask(id: string, follow: boolean): void {
    if (follow) this.followedTasks.add(id);
    else this.followedTasks.delete(id);
    this.listen();
  }

  /** Whether an answer is a listen stream's end (which no call waits for); if so, it is dealt with here. */
  takeAnswer(message: JSONRPCMessage): boolean {
    if (!('id' in message) || message.id === undefined || 'method' in message) return false;
    if (this.replaced.delete(message.id)) return true;
    if (message.id !== this.listening) return false;
    this.ended(message.id, 'error' in message ? message.error.message : 'the server ended the stream');
    return true;
  }

  /** Whether a notification is the listen stream's own bookkeeping, not news for clients. */
  isBookkeeping(notification: JSONRPCNotification): boolean {
    return notification.method === 'notifications/subscriptions/acknowledged';
  }

  close(): void {
    this.closed = true;
  }

  /**
   * The stream ended without the host asking: the server's list changes and
   * resource updates no longer reach clients until it is reconnected. Said
   * once in the log rather than reopened in a loop against a server that
   * refuses it.
   */
  private ended(id: RequestId, why: string): void {
    if (this.closed || id !== this.listening) return;
    this.listening = undefined;
    this.side.logger.warn(
      `mount "${this.side.label}" ended its subscriptions/listen stream (${why}): its list changes and resource updates reach clients again when it reconnects.`,
    );
  }
}

/** A complete result as a 2025-era server would have sent it: without the marks of the 2026-07-28 link. */
function withoutWireFields(result: Result): Result {
  // A task (the tasks extension) stays one: the front hands out its ID (proxy/task-requests.ts).
  if (result.resultType === 'task') return withoutServerInfo(result);
  const { resultType: _type, ...complete } = result;
  return withoutServerInfo(complete);
}

/** The upstream names itself in every result; the host's front names the host instead. */
function withoutServerInfo(result: Result): Result {
  if (!isPlainObject(result._meta) || !(SERVER_INFO_META_KEY in result._meta)) return result;
  const { [SERVER_INFO_META_KEY]: _server, ...meta } = result._meta;
  if (Object.keys(meta).length > 0) return { ...result, _meta: meta };
  const { _meta: _empty, ...bare } = result;
  return bare;
}
