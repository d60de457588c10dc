import { readRequestBody } from '@modelcontextprotocol/server';
import type { Cluster } from './cluster.js';
import { ownerOf } from './continuation-owner.js';
import { isPlainObject } from '../plain-object.js';
import { jsonRpcErrorResponse } from '../serve/http-responses.js';

/**
 * A 2026-07-28 retry (`requestState` with `inputResponses`) whose waiting
 * call another replica holds is forwarded to that replica, its answer
 * relayed. Undefined when this replica serves the request itself: no
 * host-issued state, the call is here, or its replica is gone (the local
 * check then refuses the state and says why). A running replica that
 * cannot be reached is a 502 that names it and the fix.
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
  const peer = await cluster.peer(owner.replica);
  if (peer === undefined) return undefined;
  // A clone: when that replica cannot be reached, this one still reads the request to refuse it.
  const answer = await cluster.forward(request.clone(), peer, clientId);
  if (answer instanceof Response) return answer;
  // A replica that stopped took the call with it: the local check refuses the state and says so.
  if (!answer.running) return undefined;
  return jsonRpcErrorResponse(
    502,
    -32000,
    `Bad Gateway: another replica holds the call this requestState continues, and ${answer.unreachable}`,
  );
}
