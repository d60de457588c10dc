import { SUBSCRIPTION_ID_META_KEY, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/server';
import type { WireObserver } from './stdio-wire.js';
import { telemetryOn, traceAnsweredAtEntry, type EntryAnswered } from '../sinks/telemetry.js';

/**
 * Server spans for the `subscriptions/listen` requests the SDK's stdio
 * entry answers itself, before any server of the host's sees them: each
 * starts as the request is read and ends as its acknowledgement (or its
 * refusal) is written. Undefined with telemetry off: the wire then has no
 * observer to call.
 */
export function stdioListenTracer(): WireObserver | undefined {
  if (!telemetryOn()) return undefined;
  const open = new Map<RequestId, EntryAnswered>();
  return {
    received(message) {
      if (!('method' in message) || message.method !== 'subscriptions/listen' || !('id' in message)) return;
      const answered = traceAnsweredAtEntry({ method: message.method, id: message.id, params: message.params });
      if (answered) open.set(message.id, answered);
    },
    sent(message) {
      if (open.size === 0) return;
      const id = answeredId(message);
      const answered = id === undefined ? undefined : open.get(id);
      if (!answered) return;
      open.delete(id!);
      answered('error' in message ? message.error : undefined);
    },
  };
}

/** Which listen request a written message answers: its acknowledgement names it in `_meta`, a refusal by id. */
function answeredId(message: JSONRPCMessage): RequestId | undefined {
  if ('method' in message) {
    if (message.method !== 'notifications/subscriptions/acknowledged') return undefined;
    const id = (message.params?._meta as Record<string, unknown> | undefined)?.[SUBSCRIPTION_ID_META_KEY];
    return typeof id === 'string' || typeof id === 'number' ? id : undefined;
  }
  return 'error' in message ? (message.id ?? undefined) : undefined;
}
