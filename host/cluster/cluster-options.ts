import { HostError } from '../errors.js';
import { configWhere } from '../config/problem-wording.js';
import type { ClusterConfig } from '../config/types.js';
import { CLUSTER_SECRET_ENV, CLUSTER_SECRET_FILE_ENV, takeSecretEnv } from '../secret-env.js';
import { readSecretFile } from '../secret-file.js';
import { MCP_PATH } from '../serve/listen-address.js';

/** The environment variable naming Redis when the config's `cluster.redis` does not. */
export const REDIS_URL_ENV = 'MCP_HOST_REDIS_URL';
/** The cluster name when the config gives none: every replica with the default forms one cluster. */
export const DEFAULT_CLUSTER_NAME = 'mcp-host';
/** How long a replica waits for a Redis command when the config does not say (cluster.redisTimeoutMs). */
const DEFAULT_REDIS_TIMEOUT_MS = 1_000;
/** Shorter than this, a shared key is guessable. */
const MIN_SECRET_LENGTH = 16;

export interface ClusterOptions {
  redisUrl: string;
  name: string;
  /** This replica's MCP URL as the other replicas reach it; undefined: the URL it serves at. */
  advertise: string | undefined;
  secret: string;
  /** How long a Redis command may take before the replica does without its answer. */
  redisTimeoutMs: number;
}

/** Addresses a server listens on but no one connects to: "every interface". */
const UNSPECIFIED_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

/**
 * The `cluster` section resolved against the environment and the host
 * this replica serves HTTP on (undefined: it serves stdio). A cluster needs
 * Redis, the shared key, an HTTP endpoint and an address the other
 * replicas can connect to; without any of them the replica refuses to
 * start, rather than serve as a lone host the load balancer treats as one
 * of many.
 */
export function clusterOptionsOf(cluster: ClusterConfig, file: string, httpHost: string | undefined): ClusterOptions {
  const where = configWhere(file, 'cluster');
  const redisUrl = redisUrlOf(cluster, file);
  const secret = clusterSecret(where);
  if (httpHost === undefined) {
    throw new HostError({
      where,
      what: 'a cluster replica serves HTTP, and this host serves stdio.',
      fix: 'give the config an http section (or start with --http [HOST:]PORT), or remove the cluster section.',
    });
  }
  if (cluster.advertise === undefined && UNSPECIFIED_HOSTS.has(httpHost)) {
    throw new HostError({
      where,
      what: `this replica listens on ${httpHost} (every interface), an address the other replicas cannot connect to, and cluster.advertise does not say where they reach it.`,
      fix: 'set cluster.advertise to this replica\u2019s address as the other replicas reach it, e.g. advertise: "http://10.0.0.12:3000".',
    });
  }
  return {
    redisUrl,
    name: cluster.name ?? DEFAULT_CLUSTER_NAME,
    advertise: cluster.advertise && new URL(MCP_PATH, cluster.advertise).href,
    secret,
    redisTimeoutMs: cluster.redisTimeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS,
  };
}

/**
 * The cluster's Redis URL (the config's, else the environment's). Redis is
 * a shared bus, not a trust anchor (DESIGN.md, "Scale"): one that asks for
 * no credentials lets anything that reaches it rewrite or delete the
 * cluster's records, so a URL without a password (an ACL user's or the
 * default user's) is refused unless the config says `redisAuth: 'none'` (a private network, said
 * explicitly). `mcp-host reload --cluster` and `status --cluster` read it
 * the same way.
 */
export function redisUrlOf(cluster: ClusterConfig, file: string): string {
  const where = configWhere(file, 'cluster');
  const redisUrl = cluster.redis ?? process.env[REDIS_URL_ENV];
  if (redisUrl === undefined || redisUrl === '') {
    throw new HostError({
      where,
      what: `a cluster needs Redis, and neither cluster.redis nor ${REDIS_URL_ENV} names it.`,
      fix: `set cluster.redis: "redis://HOST:6379" in the config, or ${REDIS_URL_ENV}=redis://HOST:6379 in the host's environment.`,
    });
  }
  if (!/^rediss?:\/\//.test(redisUrl) || !URL.canParse(redisUrl)) {
    throw new HostError({
      where: `${REDIS_URL_ENV}`,
      what: `expected a redis:// or rediss:// URL, got "${shownRedisUrl(redisUrl)}".`,
      fix: `set ${REDIS_URL_ENV}=redis://HOST:6379.`,
    });
  }
  // A user with an empty password (redis://user:@host) proves nothing: a user Redis lets in so is one anybody can be.
  const { username, password } = new URL(redisUrl);
  if (password === '' && cluster.redisAuth !== 'none') {
    throw new HostError({
      where: cluster.redis === undefined ? REDIS_URL_ENV : configWhere(file, 'cluster.redis'),
      what: `the Redis URL ${shownRedisUrl(redisUrl)} carries no ${username === '' ? 'credentials' : `password (only the user "${decodeURIComponent(username)}")`}: a Redis that asks for none lets anything that reaches it rewrite or delete the cluster's records.`,
      fix: `give Redis a password (requirepass, or an ACL user) and put it in the URL, redis://:PASSWORD@HOST:6379 or redis://USER:PASSWORD@HOST:6379 (rediss:// for TLS), in ${REDIS_URL_ENV} rather than the config file; or, where nothing but the replicas can reach Redis, say so with cluster.redisAuth: 'none' (docs/replicas.md).`,
    });
  }
  return redisUrl;
}

/** A Redis URL as messages and logs show it: its password never. */
export function shownRedisUrl(redisUrl: string): string {
  return redisUrl.replace(/^([a-z]+:\/\/[^:@/]*:)[^@/]*@/i, '$1***@');
}

/**
 * The cluster's shared key: from the file MCP_HOST_CLUSTER_SECRET_FILE names (white space around it trimmed),
 * else from MCP_HOST_CLUSTER_SECRET; `where` names the section that asked for it.
 */
export function clusterSecret(where: string): string {
  const inEnvironment = takeSecretEnv(CLUSTER_SECRET_ENV);
  const file = takeSecretEnv(CLUSTER_SECRET_FILE_ENV);
  if (file !== undefined && inEnvironment !== undefined) {
    throw new HostError({
      where,
      what: `both ${CLUSTER_SECRET_ENV} and ${CLUSTER_SECRET_FILE_ENV} are set, so the cluster's shared key is ambiguous.`,
      fix: `unset ${CLUSTER_SECRET_ENV} and keep the key in the file only.`,
    });
  }
  const secret =
    file === undefined
      ? inEnvironment
      : readSecretFile(file, where, `the cluster's shared key (${CLUSTER_SECRET_FILE_ENV})`).trim();
  const from = file === undefined ? CLUSTER_SECRET_ENV : `the file ${file} (${CLUSTER_SECRET_FILE_ENV})`;
  if (secret === undefined || secret.length < MIN_SECRET_LENGTH) {
    throw new HostError({
      where,
      what: `a cluster needs its shared key in ${from}, which is ${secret === undefined ? 'not set' : `shorter than ${MIN_SECRET_LENGTH} characters`}.`,
      fix: `give every replica the same ${CLUSTER_SECRET_ENV}, or the same key in a file named by ${CLUSTER_SECRET_FILE_ENV} (e.g. the output of \`openssl rand -hex 32\`); it never goes in the config file.`,
    });
  }
  return secret;
}
