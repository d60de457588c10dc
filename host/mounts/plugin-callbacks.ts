/**
 * Callbacks plugin code hands to Node that Node runs in no one's async
 * context, so that a fault in them would be nobody's (fault-attribution.ts
 * would end the host as for a fault of its own):
 *
 * - listeners on the process (`process.on('SIGHUP' | 'exit' | …)`), run
 *   when the signal or the event comes, from no request;
 * - `FinalizationRegistry` cleanup callbacks, run after a garbage collection;
 * - `queueMicrotask` callbacks, whose context Node leaves before reporting
 *   what they threw;
 * - events of a socket a plugin's server accepted (`net` and `http`
 *   servers), whose handle is made before Node calls back into any context.
 *
 * Each is run in the context of the plugin that registered it, and what it
 * throws is that plugin's fault, decided here by who registered it, not by
 * a stack (whose text the plugin can write). Registrations made outside any
 * plugin's context (the host's own) are left as they are.
 */
import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { pluginInContext, runAsPlugin } from './isolation/in-process-link.js';
import type { PluginCodeClaim } from './plugin-code-claim.js';

/** Told what a plugin's callback threw: `where` completes "… threw": `its process "SIGHUP" listener`. */
export type BlameCallback = (claim: PluginCodeClaim, where: string, thrown: unknown) => void;

type Callback = (...args: never[]) => unknown;

/** `callback`, run as the code of `claim`'s plugin; what it throws is reported to `blame`, not thrown on. */
function asPluginCallback<F extends Callback>(
  claim: PluginCodeClaim,
  where: string,
  callback: F,
  blame: BlameCallback,
): F {
  const wrapped = function (this: unknown, ...args: unknown[]) {
    return runAsPlugin(claim, () => {
      try {
        return Reflect.apply(callback, this, args) as unknown;
      } catch (thrown) {
        blame(claim, where, thrown);
        return undefined;
      }
    });
  };
  // What `process.listeners()` shows, as for a `once` listener.
  return Object.assign(wrapped, { listener: callback }) as unknown as F;
}

const REGISTER = ['on', 'addListener', 'prependListener', 'once', 'prependOnceListener'] as const;
const UNREGISTER = ['off', 'removeListener'] as const;

/** Install the wrappers, once, before any plugin code runs. */
export function runPluginCallbacksInContext(blame: BlameCallback): void {
  const emitter = process as unknown as Record<string, (event: string | symbol, listener: Callback) => unknown>;
  // The listener a plugin gave → the one registered for it, so that removing it still works.
  const registered = new WeakMap<Callback, Callback>();
  // `once` registers through `on`: the listener is wrapped once, by the outer call.
  let registering = false;
  for (const name of REGISTER) {
    const original = emitter[name]!;
    emitter[name] = function (this: unknown, event: string | symbol, listener: Callback) {
      const claim = registering ? undefined : pluginInContext();
      if (!claim || typeof listener !== 'function') return original.call(this, event, listener);
      const wrapped = asPluginCallback(claim, `its process "${String(event)}" listener`, listener, blame);
      registered.set(listener, wrapped);
      registering = true;
      try {
        return original.call(this, event, wrapped);
      } finally {
        registering = false;
      }
    };
  }
  for (const name of UNREGISTER) {
    const original = emitter[name]!;
    emitter[name] = function (this: unknown, event: string | symbol, listener: Callback) {
      return original.call(this, event, registered.get(listener) ?? listener);
    };
  }

  const Registry = globalThis.FinalizationRegistry;
  globalThis.FinalizationRegistry = class FinalizationRegistry<T> extends Registry<T> {
    constructor(cleanup: (held: T) => void) {
      const claim = pluginInContext();
      super(claim ? asPluginCallback(claim, 'its FinalizationRegistry cleanup callback', cleanup, blame) : cleanup);
    }
  };

  const queue = globalThis.queueMicrotask;
  globalThis.queueMicrotask = function queueMicrotask(callback: () => void) {
    const claim = pluginInContext();
    queue(
      claim && typeof callback === 'function' ? asPluginCallback(claim, 'its microtask', callback, blame) : callback,
    );
  };

  // Published from the server's callback, so in the context of the plugin that made the server.
  subscribe('net.server.socket', (message) => {
    const claim = pluginInContext();
    if (!claim) return;
    const socket = (message as { socket: Socket }).socket;
    socket.emit = asPluginCallback(claim, 'a listener on a socket its server accepted', socket.emit, blame);
  });
}
