import type { ReloadOutcome } from '../reload/reloader.js';

export type ClusterKeyKind = 'replica' | 'session' | 'token' | 'channel';

/** Where the cluster `name` keeps `id` of a `kind` in Redis (one prefix: one cluster's keys never meet another's). */
export function clusterKey(name: string, kind: ClusterKeyKind, id: string): string {
  return `mcp-host:${name}:${kind}:${id}`;
}

/** The channel `mcp-host reload --cluster` publishes its request on; the message is the request's id. */
export const RELOAD_CHANNEL = 'reload';

/** The channel the replicas answer one request on. */
export function replyChannel(request: string): string {
  return `reload-reply:${request}`;
}

/** One replica's answer to `mcp-host reload --cluster`. */
export interface ReplicaReply {
  replica: string;
  /** Where the other replicas reach it. */
  url: string;
  pid: number;
  configFile: string;
  outcome: ReloadOutcome;
}
