import { AsyncLocalStorage } from 'node:async_hooks';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';
import type { SendOptions, UpstreamChannel } from '../channel.js';
import { describeThrown } from '../../errors.js';
import { ErrorCode } from '../../rpc-error.js';
import type { PluginCodeClaim } from '../plugin-code-claim.js';
import { SENT } from '../../vocabulary/sent.js';

/**
 * The transport a plugin's server connects to, as either SDK line sees it:
 * v1 (`@modelcontextprotocol/sdk`) and v2 (`@modelcontextprotocol/server`)
 * both drive a transport through `start`, `send(message, options)`, `close`
 * and the `onmessage`/`onclose`/`onerror` callbacks, so one structural type
 * serves both.
 */
interface PluginSideTransport {
  start(): Promise<void>;
  send(message: JSONRPCMessage, options?: { relatedRequestId?: RequestId }): Promise<void>;
  close(): Promise<void>;
  onmessage?: (message: JSONRPCMessage, extra?: unknown) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  /**
   * What was delivered with `message` besides it (its forwarded headers,
   * `closeSSEStream`), for an entry that passes messages on without their
   * extra (plugin-era.ts).
   */
  extraOf(message: JSONRPCMessage): object | undefined;
}

/**
 * The plugin whose code runs in the current async context (its import, its
 * `create()`, a request it serves, and every timer and promise those start),
 * and while it serves a host's request, that request and the link it came
 * over. The plugin is what fault attribution falls back on when a stack does
 * not name it (fault-attribution.ts).
 *
 * One shared by every link: each AsyncLocalStorage that has run stays
 * registered for the life of the process and is visited at every async
 * operation, so one per link would leak with every reload and slow the
 * whole host down with the number of plugins.
 */
const serving = new AsyncLocalStorage<{ owner?: PluginCodeClaim; link?: object; id?: RequestId }>();

/**
 * The context of host code: no plugin's. Run into rather than left with
 * `exit()`, which on Node 20 turns the process's promise hooks off and on
 * again, for every message a plugin sends.
 */
const NO_PLUGIN = Object.freeze({});

/** Run `work` (a plugin's import, `create()` or `close()`) as the code of the instance that holds `claim`. */
export function runAsPlugin<T>(claim: PluginCodeClaim, work: () => T): T {
  return serving.run({ owner: claim }, work);
}

/** The claim of the plugin whose code is running now, if any. */
export function pluginInContext(): PluginCodeClaim | undefined {
  return serving.getStore()?.owner;
}

/**
 * Run `work` as the host's own code, wherever it was called from: what the
 * host does about a plugin (its fault, its closing) starts in the plugin's
 * context, and everything it sets off (list_changed to clients, the restart
 * timers) must not count as the plugin's.
 */
export function runAsHost<T>(work: () => T): T {
  return serving.run(NO_PLUGIN, work);
}

/**
 * A linked pair: the plugin's server connects to `pluginSide`, the host's
 * peer talks through `hostSide`. Messages are handed over as objects (no
 * serialisation) on a microtask, so neither side re-enters the other while
 * it is still inside `send`.
 *
 * Each request is delivered to the plugin inside an async context naming
 * it, so what the plugin sends while serving it is related to it even when
 * the SDK does not say so: `ctx.mcpReq.send` passes `relatedRequestId`, but
 * the helpers plugins mostly use (v2 `ctx.mcpReq.elicitInput` and
 * `requestSampling`, v1 `server.server.elicitInput` and `createMessage`,
 * `sendLoggingMessage`) do not. Without it, two sessions calling one shared
 * plugin could not tell whose elicitation is whose.
 */
export function createInProcessLink(
  name = 'the plugin',
  owner?: PluginCodeClaim,
): {
  hostSide: UpstreamChannel;
  pluginSide: PluginSideTransport;
} {
  let closed = false;
  const link = {};
  const extras = new WeakMap<JSONRPCMessage, object>();
  const hostSide: UpstreamChannel = {
    async start() {},
    send(message, options) {
      if (closed) return Promise.reject(new Error('the in-process link is closed'));
      const extra = asHttpRequestInfo(options);
      if (extra) extras.set(message, extra);
      // A plugin that throws while receiving (a hand-written server, a bug
      // the SDK does not catch) would otherwise throw out of a microtask and
      // take the whole host down: its request is answered with the error.
      const deliver = () => {
        try {
          pluginSide.onmessage?.(message, extra);
        } catch (error) {
          if (!('method' in message && 'id' in message)) {
            const failure = new Error(`${name} threw while receiving a message: ${describeThrown(error)}`);
            runAsHost(() => hostSide.onerror?.(failure));
            return;
          }
          const what = `${name} threw while handling ${message.method}: ${describeThrown(error)}`;
          runAsHost(() =>
            queueMicrotask(() =>
              hostSide.onmessage?.({
                jsonrpc: '2.0',
                id: message.id,
                error: { code: ErrorCode.InternalError, message: what },
              }),
            ),
          );
        }
      };
      queueMicrotask(() =>
        'method' in message && 'id' in message
          ? serving.run({ link, id: message.id, ...(owner && { owner }) }, deliver)
          : serving.run(owner ? { owner } : {}, deliver),
      );
      return SENT;
    },
    close: closeBoth,
  };
  const pluginSide: PluginSideTransport = {
    async start() {},
    send(message, options) {
      if (closed) return Promise.reject(new Error('the in-process link is closed'));
      const store = serving.getStore();
      const related = options?.relatedRequestId ?? ('method' in message && store?.link === link ? store.id : undefined);
      // The host handles it outside the plugin's context: a fault there is not the plugin's.
      runAsHost(() => queueMicrotask(() => hostSide.onmessage?.(message, related)));
      return SENT;
    },
    close: closeBoth,
    extraOf: (message) => extras.get(message),
  };
  async function closeBoth(): Promise<void> {
    if (closed) return;
    closed = true;
    // A plugin closing its server is the host's to handle (withdraw, tell clients, re-create).
    runAsHost(() => hostSide.onclose?.());
    pluginSide.onclose?.();
  }
  return { hostSide, pluginSide };
}

/**
 * Forwarded client headers where a plugin's SDK puts an HTTP request's:
 * v2 gives handlers `ctx.http.req` (a fetch Request), v1 gives them
 * `extra.requestInfo.headers`. Each SDK ignores the other's field. There is
 * no real URL to give: the plugin is not being reached over HTTP, and the
 * reserved `.invalid` name says so. Both SDKs take `closeSSEStream` and
 * `closeStandaloneSSEStream` from the same place (v2 offers them as
 * `ctx.http.closeSSE` and `closeStandaloneSSE`).
 */
function asHttpRequestInfo(options: SendOptions | undefined): object | undefined {
  const { headers, closeSSE, closeStandaloneSSE } = options ?? {};
  const closing = closeSSE && { closeSSEStream: closeSSE, closeStandaloneSSEStream: closeStandaloneSSE };
  if (!headers) return closing;
  // v1's headers are Node's: a plain object keyed in lower case.
  const nodeHeaders = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  return {
    request: new Request('http://mcp-host.invalid/', { headers }),
    requestInfo: { headers: nodeHeaders },
    ...closing,
  };
}
