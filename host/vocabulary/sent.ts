/**
 * What a transport's `send` returns once a message is on its way: one
 * settled promise, shared by every send of every transport of the host.
 *
 * A new promise per message would be one more allocation on every call,
 * and with the in-process link's async context on (in-process-link.ts: an
 * `AsyncLocalStorage`, which Node 20 keeps with a hook at every promise the
 * process makes) one more run of that hook too. Nothing waits on what the
 * send resolves to: a transport that can fail later says so through
 * `onerror` or its close.
 */
export const SENT: Promise<void> = Promise.resolve();
