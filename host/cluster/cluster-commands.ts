import type { HostStatus } from '../host-status.js';
import type { ReloadOutcome } from '../reload/reloader.js';

export type ClusterKeyKind = 'replica' | 'session' | 'token' | 'channel' | 'stamp' | 'limit';

/** Where the cluster `name` keeps `id` of a `kind` in Redis (one prefix: one cluster's keys never meet another's). */
export function clusterKey(name: string, kind: ClusterKeyKind, id: string): string {
  return `mcp-host:${name}:${kind}:${id}`;
}

/**
 * `mcp-host reload --cluster` and `status --cluster` publish a request on
 * the cluster's command channel; every replica answers on the request's
 * reply channel.
 */
export const COMMAND_CHANNEL = 'commands';

export type ClusterCommand = 'reload' | 'status';

export interface ClusterRequest {
  id: string;
  command: ClusterCommand;
}

/**
 * How long a cluster command, or a replica's answer, is good for once
 * published (each is sealed with the cluster's key, bound to its channel):
 * the replicas hear it at once, and a replay later is ignored.
 */
export const COMMAND_TTL_MS = 30_000;

/** How often a replica writes its entry (and its sessions') in Redis again. */
export const HEARTBEAT_MS = 2_000;

/** The channel the replicas answer one request on. */
export function replyChannel(request: string): string {
  return `reply:${request}`;
}

/** One replica's answer to a cluster command. */
export interface ReplicaReply {
  replica: string;
  /** Where the other replicas reach it. */
  url: string;
  pid: number;
  configFile: string;
  outcome?: ReloadOutcome;
  status?: HostStatus;
}
