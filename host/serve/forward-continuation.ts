import type { ClusterLink } from '../sinks/cluster.js';
import { ownerOf } from '../vocabulary/continuation-owner.js';
import { isPlainObject } from '../plain-object.js';
import { jsonRpcErrorResponse } from './http-responses.js';
import type { ReadRequest } from './node-exchange.js';

/**
 * A 2026-07-28 retry (`requestState` with `inputResponses`) whose waiting
 * call another replica holds is forwarded to that replica, its answer
 * relayed. Undefined when this replica serves the request itself: no
 * host-issued state, the call is here, or its replica is gone (the local
 * check then refuses the state and says why). A running replica that
 * cannot be reached is a 502 that names it and the fix.
 */
export async function forwardedContinuation(
  cluster: ClusterLink,
  { json: message, withBody }: ReadRequest,
  clientId: string | undefined,
): Promise<Response | undefined> {
  const state = isPlainObject(message) && isPlainObject(message.params) ? message.params.requestState : undefined;
  const owner = typeof state === 'string' ? ownerOf(state) : undefined;
  if (!owner || owner.replica === cluster.replica) return undefined;
  const peer = await cluster.peer(owner.replica);
  if (peer === undefined) return undefined;
  // This replica's own handler, when that one cannot be reached, takes the body parsed: the request carrying it can go.
  const answer = await cluster.forward(withBody(), peer, clientId);
  if (answer instanceof Response) return answer;
  // A replica that stopped took the call with it: the local check refuses the state and says so.
  if (!answer.running) return undefined;
  return jsonRpcErrorResponse(
    502,
    -32000,
    `Bad Gateway: another replica holds the call this requestState continues, and ${answer.unreachable}`,
  );
}
