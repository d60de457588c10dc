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
 */
export function createInProcessLink(): { hostSide: UpstreamChannel; pluginSide: PluginSideTransport } {
  let closed = false;
  const hostSide: UpstreamChannel = {
    async start() {},
    async send(message) {
      if (closed) throw new Error('the in-process link is closed');
      queueMicrotask(() => pluginSide.onmessage?.(message));
    },
    close: closeBoth,
  };
  const pluginSide: PluginSideTransport = {
    async start() {},
    async send(message, options) {
      if (closed) throw new Error('the in-process link is closed');
      queueMicrotask(() => hostSide.onmessage?.(message, options?.relatedRequestId));
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
