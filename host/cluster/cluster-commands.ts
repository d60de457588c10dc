import { createHash } from 'node:crypto';
import type { ReloadOutcome } from '../reload/reloader.js';
import type { HostRuntime } from '../runtime.js';
import { stableJson } from '../stable-json.js';

export type ClusterKeyKind = 'replica' | 'session' | 'token' | 'channel';

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

/** The channel the replicas answer one request on. */
export function replyChannel(request: string): string {
  return `reply:${request}`;
}

/** What a replica serves: enough to see one that did not take a change. */
export interface ReplicaStatus {
  generation: number;
  /** A short hash of the live config as validated (the same file and environment give the same hash). */
  configHash: string;
  mounts: { name: string; plugin: string; state: string }[];
}

/** One replica's answer to a cluster command. */
export interface ReplicaReply {
  replica: string;
  /** Where the other replicas reach it. */
  url: string;
  pid: number;
  configFile: string;
  outcome?: ReloadOutcome;
  status?: ReplicaStatus;
}

export function replicaStatus(runtime: HostRuntime): ReplicaStatus {
  const { id, config, mounts } = runtime.current;
  return {
    generation: id,
    configHash: createHash('sha256').update(stableJson(config)).digest('hex').slice(0, 12),
    mounts: mounts.map((mount) => ({ name: mount.name, plugin: mount.spec.label, state: mount.state })),
  };
}
