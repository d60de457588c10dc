import { UNTRUSTED, type ClusterLink } from '../sinks/cluster.js';
import { holderOf } from '../vocabulary/continuation-owner.js';
import { jsonRpcErrorResponse } from './http-responses.js';
import type { ReadRequest } from './node-exchange.js';
import type { Identity } from '../vocabulary/identity.js';

/**
 * A 2026-07-28 request that continues what another replica holds, a retry
 * (`requestState` with `inputResponses`) of a call waiting there or a
 * follow-up (`tasks/get|update|cancel`) of a task started there, is
 * forwarded to that replica, its answer relayed. Undefined when this
 * replica serves the request itself: no host-issued state or task ID, it is
 * held here, or its replica is gone (the local check then refuses the state
 * or the task and says why). A running replica that cannot be reached is a
 * 502 that names it and the fix.
 */
export async function forwardedContinuation(
  cluster: ClusterLink,
  read: ReadRequest,
  clientId: string | undefined,
  identity?: Identity,
): Promise<Response | undefined> {
  const owner = holderOf(read.json);
  if (!owner || owner.replica === cluster.replica) return undefined;
  const peer = await cluster.peer(owner.replica);
  if (peer === undefined) return undefined;
  if (peer === UNTRUSTED) {
    return jsonRpcErrorResponse(
      503,
      -32000,
      `Service Unavailable: another replica holds ${owner.what}, and the cluster's record of where that replica is failed its signature check (something other than a replica wrote it to Redis), so it is not followed; retry later. Fix: if it persists, find what else writes to the cluster's Redis, and give Redis credentials only the replicas hold (docs/replicas.md)`,
    );
  }
  const answer = await cluster.forward(read, peer, clientId, identity);
  if (answer instanceof Response) return answer;
  // A replica that stopped took the call with it: the local check refuses the state and says so.
  if (!answer.running) return undefined;
  return jsonRpcErrorResponse(
    502,
    -32000,
    `Bad Gateway: another replica holds ${owner.what}, and ${answer.unreachable}`,
  );
}
