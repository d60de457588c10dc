import { AsyncLocalStorage } from 'node:async_hooks';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';
import type { UpstreamChannel } from './channel.js';

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
export function createInProcessLink(): { hostSide: UpstreamChannel; pluginSide: PluginSideTransport } {
  let closed = false;
  /** The host's request the plugin is serving in the current async context. */
  const serving = new AsyncLocalStorage<RequestId>();
  const hostSide: UpstreamChannel = {
    async start() {},
    async send(message) {
      if (closed) throw new Error('the in-process link is closed');
      const deliver = () => pluginSide.onmessage?.(message);
      queueMicrotask(() => ('method' in message && 'id' in message ? serving.run(message.id, deliver) : deliver()));
    },
    close: closeBoth,
  };
  const pluginSide: PluginSideTransport = {
    async start() {},
    async send(message, options) {
      if (closed) throw new Error('the in-process link is closed');
      const related = options?.relatedRequestId ?? ('method' in message ? serving.getStore() : undefined);
      queueMicrotask(() => hostSide.onmessage?.(message, related));
    },
    close: closeBoth,
  };
  async function closeBoth(): Promise<void> {
    if (closed) return;
    closed = true;
    hostSide.onclose?.();
    pluginSide.onclose?.();
  }
  return { hostSide, pluginSide };
}
