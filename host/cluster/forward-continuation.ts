import { readRequestBody } from '@modelcontextprotocol/server';
import type { Cluster } from './cluster.js';
import { ownerOf } from './continuation-owner.js';
import { isPlainObject } from '../plain-object.js';

/**
 * A 2026-07-28 retry (`requestState` with `inputResponses`) whose waiting
 * call another replica holds is forwarded to that replica, its answer
 * relayed. Undefined when this replica serves the request itself: no
 * host-issued state, the call is here, or its replica is gone (the local
 * check then refuses the state and says why).
 */
export async function forwardedContinuation(
  cluster: Cluster,
  request: Request,
  clientId: string | undefined,
  maxRequestBodySize: number,
): Promise<Response | undefined> {
  if (request.method !== 'POST') return undefined;
  const body = await readRequestBody(request.clone(), maxRequestBodySize).catch(() => undefined);
  if (!body || body.tooLarge) return undefined;
  let message: unknown;
  try {
    message = JSON.parse(body.text);
  } catch {
    return undefined;
  }
  const state = isPlainObject(message) && isPlainObject(message.params) ? message.params.requestState : undefined;
  const owner = typeof state === 'string' ? ownerOf(state) : undefined;
  if (!owner || owner.replica === cluster.replica) return undefined;
  const url = await cluster.urlOfReplica(owner.replica);
  // A clone: when that replica cannot be reached, this one still reads the request to refuse it.
  return url === undefined ? undefined : cluster.forward(request.clone(), url, clientId);
}
