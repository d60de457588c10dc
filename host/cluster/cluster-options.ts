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
      what: `expected a redis:// or rediss:// URL, got "${redisUrl}".`,
      fix: `set ${REDIS_URL_ENV}=redis://HOST:6379.`,
    });
  }
  const { secret, from } = clusterSecret(where);
  if (secret === undefined || secret.length < MIN_SECRET_LENGTH) {
    throw new HostError({
      where,
      what: `a cluster needs its shared key in ${from}, which is ${secret === undefined ? 'not set' : `shorter than ${MIN_SECRET_LENGTH} characters`}.`,
      fix: `give every replica the same ${CLUSTER_SECRET_ENV}, or the same key in a file named by ${CLUSTER_SECRET_FILE_ENV} (e.g. the output of \`openssl rand -hex 32\`); it never goes in the config file.`,
    });
  }
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

/** The shared key, from the file MCP_HOST_CLUSTER_SECRET_FILE names (white space around it trimmed) or from MCP_HOST_CLUSTER_SECRET. */
function clusterSecret(where: string): { secret: string | undefined; from: string } {
  const inEnvironment = takeSecretEnv(CLUSTER_SECRET_ENV);
  const file = takeSecretEnv(CLUSTER_SECRET_FILE_ENV);
  if (file === undefined) return { secret: inEnvironment, from: CLUSTER_SECRET_ENV };
  if (inEnvironment !== undefined) {
    throw new HostError({
      where,
      what: `both ${CLUSTER_SECRET_ENV} and ${CLUSTER_SECRET_FILE_ENV} are set, so the cluster's shared key is ambiguous.`,
      fix: `unset ${CLUSTER_SECRET_ENV} and keep the key in the file only.`,
    });
  }
  return {
    secret: readSecretFile(file, where, `the cluster's shared key (${CLUSTER_SECRET_FILE_ENV})`).trim(),
    from: `the file ${file} (${CLUSTER_SECRET_FILE_ENV})`,
  };
}
