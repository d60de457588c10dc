import { randomUUID } from 'node:crypto';
import { loadConfig } from '../config/load.js';
import { configWhere } from '../config/problem-wording.js';
import { HostError, describeThrown } from '../errors.js';
import {
  DEFAULT_CLUSTER_NAME,
  REDIS_URL_ENV,
  clusterSecret,
  redisUrlOf,
  shownRedisUrl,
} from '../cluster/cluster-options.js';
import { recordSealOf } from '../cluster/signed-record.js';
import {
  COMMAND_CHANNEL,
  COMMAND_TTL_MS,
  HEARTBEAT_MS,
  clusterKey,
  replyChannel,
  type ClusterCommand,
  type ClusterRequest,
  type ReplicaReply,
} from '../cluster/cluster-commands.js';
import { printOutcome, type ReloadCommandOptions } from './reload.js';
import { formatHostStatus } from '../host-status.js';

/**
 * `mcp-host reload --cluster`: ask every replica of the config's cluster to
 * reload, and print each one's result. Exit 1 if any refused or did not answer.
 */
export async function reloadCluster(options: ReloadCommandOptions): Promise<number> {
  const { replies, silent } = await askCluster(options, 'reload');
  let refused = silent;
  for (const reply of replies) {
    if (reply.outcome && !printOutcome(replicaLabel(reply), reply.outcome)) refused = true;
  }
  return refused ? 1 : 0;
}

/**
 * `mcp-host status --cluster`: every replica of the config's cluster with
 * its generation, config hash, uptime, sessions and mounts, so one that did
 * not take a change shows. Exit 1 if any did not answer.
 */
export async function clusterStatus(options: ReloadCommandOptions & { json: boolean }): Promise<number> {
  const { name, replies, silent } = await askCluster(options, 'status');
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ cluster: name, replicas: replies }, null, 2)}\n`);
    return silent ? 1 : 0;
  }
  process.stdout.write(`cluster "${name}": ${replies.length} replica${replies.length === 1 ? '' : 's'} answered\n`);
  const hashes = new Set<string>();
  for (const reply of replies) {
    if (!reply.status) continue;
    hashes.add(reply.status.configHash);
    process.stdout.write(formatHostStatus(replicaLabel(reply), reply.status));
  }
  if (hashes.size > 1) {
    process.stdout.write(
      `warning: the replicas run ${hashes.size} different configs; reload the ones behind (mcp-host reload --cluster)\n`,
    );
  }
  return silent ? 1 : 0;
}

function replicaLabel(reply: ReplicaReply): string {
  return `mcp-host replica ${reply.url} (pid ${reply.pid})`;
}

/**
 * Publish `command` to the config's cluster through its Redis and collect
 * the answers of the replicas registered there (those that did not answer
 * in time are reported on stderr: `silent`). The command is sealed with
 * the cluster's key (MCP_HOST_CLUSTER_SECRET, as the replicas have it), and
 * only entries and answers sealed with it are believed: whoever else
 * writes to that Redis can neither reload the replicas nor answer for them.
 */
async function askCluster(
  options: ReloadCommandOptions,
  command: ClusterCommand,
): Promise<{ name: string; replies: ReplicaReply[]; silent: boolean }> {
  const config = await loadConfig({ cwd: options.cwd, ...(options.configPath && { configPath: options.configPath }) });
  const where = configWhere(config.file, 'cluster');
  if (!config.cluster) {
    throw new HostError({
      where,
      what: 'the config has no cluster section, so the hosts running it are not replicas of a cluster.',
      fix:
        command === 'reload'
          ? 'run mcp-host reload without --cluster, or add a cluster section to the config.'
          : 'add a cluster section to the config; status --cluster reports the replicas of a cluster.',
    });
  }
  const redisUrl = redisUrlOf(config.cluster, config.file);
  const shown = shownRedisUrl(redisUrl);
  const name = config.cluster.name ?? DEFAULT_CLUSTER_NAME;
  const seal = recordSealOf(clusterSecret(where), name);
  const { createClient } = await import('redis');
  const redis = createClient({ url: redisUrl, socket: { connectTimeout: 5_000, reconnectStrategy: false } });
  redis.on('error', () => undefined); // connect() rejects with the cause
  await redis.connect().catch((error: unknown) => {
    throw new HostError({
      where: `Redis at ${shown}`,
      what: `cannot be reached: ${(error as Error).message}.`,
      fix: `start it, or name the cluster's Redis with cluster.redis or ${REDIS_URL_ENV}.`,
    });
  });
  const subscriber = redis.duplicate();
  // Redis going away (a restart) while the replicas' answers are awaited ends the wait at once, saying so.
  let lost: string | undefined;
  let connectionLost!: () => void;
  const lostConnection = new Promise<void>((resolve) => (connectionLost = resolve));
  const onLost = (error: unknown) => {
    lost ??= describeThrown(error);
    connectionLost();
  };
  try {
    const prefix = clusterKey(name, 'replica', '');
    const replicas = new Set<string>();
    const distrustedIds = new Set<string>();
    // An entry that fails its check may be a replica's, rewritten by something else: its replica writes it
    // again within a heartbeat, so the entries are read again until then, and a replica whose entry was
    // sound once is asked.
    const lookedUntil = Date.now() + HEARTBEAT_MS + 500;
    for (;;) {
      for await (const keys of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 100 })) {
        for (const key of [keys].flat()) {
          const entry = await redis.get(key);
          if (entry === null) continue;
          const id = key.slice(prefix.length);
          if ('refused' in seal.open(key, entry)) distrustedIds.add(id);
          else replicas.add(id);
        }
      }
      for (const id of replicas) distrustedIds.delete(id);
      if (distrustedIds.size === 0 || Date.now() > lookedUntil) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const forged = distrustedIds.size;
    const distrusted =
      forged === 0
        ? ''
        : `${forged} replica entr${forged === 1 ? 'y' : 'ies'} in it fail${forged === 1 ? 's' : ''} the cluster's signature check, and ${forged === 1 ? 'is' : 'are'} ignored: something other than a replica wrote ${forged === 1 ? 'it' : 'them'}, or MCP_HOST_CLUSTER_SECRET is not the replicas'`;
    const distrustFix =
      "run with the replicas' MCP_HOST_CLUSTER_SECRET; if it is theirs, give Redis credentials only the replicas hold (docs/replicas.md)";
    if (replicas.size === 0) {
      throw new HostError({
        where,
        what: `no replica of cluster "${name}" is registered in Redis at ${shown}${forged === 0 ? '' : `; ${distrusted}`}.`,
        fix:
          forged === 0
            ? 'start the replicas (mcp-host start with this config and the same Redis).'
            : `${distrustFix}, and retry.`,
      });
    }
    if (forged > 0) process.stderr.write(`mcp-host: Redis at ${shown}: ${distrusted}. Fix: ${distrustFix}.\n`);
    const request = randomUUID();
    const replies = new Map<string, ReplicaReply>();
    redis.on('error', onLost);
    subscriber.on('error', onLost);
    await subscriber.connect();
    const timeoutMs = options.timeoutMs ?? (command === 'reload' ? 120_000 : 10_000);
    let allAnswered!: () => void;
    const answered = new Promise<void>((resolve) => (allAnswered = resolve));
    // Subscribed before asking: an answer cannot come before anyone listens for it.
    const replyChannelKey = clusterKey(name, 'channel', replyChannel(request));
    await subscriber.subscribe(replyChannelKey, (message) => {
      const opened = seal.open(replyChannelKey, message);
      // An answer not sealed by a replica is no replica's answer.
      if ('refused' in opened) return;
      const reply = JSON.parse(opened.value) as ReplicaReply;
      replies.set(reply.replica, reply);
      if ([...replicas].every((replica) => replies.has(replica))) allAnswered();
    });
    const published: ClusterRequest = { id: request, command };
    const commands = clusterKey(name, 'channel', COMMAND_CHANNEL);
    await redis.publish(commands, seal.seal(commands, JSON.stringify(published), Date.now() + COMMAND_TTL_MS));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([answered, lostConnection, new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
    const silentOnes = [...replicas].filter((replica) => !replies.has(replica));
    if (lost !== undefined && silentOnes.length > 0) {
      const after =
        command === 'reload'
          ? 'may have reloaded all the same: see each one\u2019s generation with mcp-host status --cluster once Redis is back, and run mcp-host reload --cluster again if one is behind'
          : 'may be serving all the same: run mcp-host status --cluster again once Redis is back';
      process.stderr.write(
        `mcp-host: Redis at ${shown}: the connection was lost while waiting for the replicas' answers (${lost}). Fix: the replicas that did not answer ${after}.\n`,
      );
    }
    for (const replica of silentOnes) {
      process.stderr.write(
        lost === undefined
          ? `mcp-host replica ${replica}: did not answer within ${timeoutMs / 1000} s (stopped, or cannot reach Redis); look at its log\n`
          : `mcp-host replica ${replica}: did not answer before the connection to Redis was lost\n`,
      );
    }
    const silent = silentOnes.length > 0;
    return { name, replies: [...replies.values()], silent };
  } finally {
    for (const client of [subscriber, redis]) {
      // A client whose connection was lost never settles a quit(): it is dropped as it is.
      if (lost === undefined) await client.quit().catch(() => undefined);
      else if (client.isOpen) client.destroy();
    }
  }
}
