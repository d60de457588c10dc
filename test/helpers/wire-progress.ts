/**
 * Progress as a client's transport receives it: what the host promises is
 * the order on the wire, every progress notification ahead of its call's
 * answer. A test reads it here rather than from `onprogress`, because the
 * SDK v2 client runs a notification's handler a tick later than it settles
 * a response: progress read in the same chunk as the answer (the last step,
 * whenever a loaded machine lets the host write both at once) never reaches
 * `onprogress`, though it came first. No pause in a plugin makes that
 * impossible; reading the wire does.
 *
 * Install it after the client connected (the client sets the transport's
 * handler then). The call still passes `onprogress`, so that the client
 * asks for progress.
 */
import type { Transport } from '@modelcontextprotocol/client';

export interface WireProgress {
  /** The progress values received since the last take, in order; clears them. */
  take(): number[];
}

export function progressOnTheWire(transport: Transport): WireProgress {
  const receive = transport.onmessage;
  if (!receive) throw new Error('progressOnTheWire: connect the client first (it sets the handler this wraps)');
  const seen: number[] = [];
  transport.onmessage = (message, ...rest) => {
    const { method, params } = message as { method?: string; params?: { progress?: number } };
    if (method === 'notifications/progress' && params?.progress !== undefined) seen.push(params.progress);
    receive.call(transport, message, ...rest);
  };
  return { take: () => seen.splice(0) };
}
