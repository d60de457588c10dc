/**
 * The cluster the cluster benchmarks measure: `count` replicas of
 * `mcp-host start --http` serving bench/echo-plugin, sharing a real Redis
 * (redis-server on a free port), each on a port of its own; all stopped by
 * `teardown`.
 */
import { join } from 'node:path';
import { startHttpHost, type HttpHost, type Teardown } from '../test/helpers/host.js';
import { freePort, startRedis } from '../test/helpers/engines.js';
import { makeWorkspace, REPO_ROOT, type Workspace } from '../test/helpers/packages.js';

export interface EchoCluster {
  ws: Workspace;
  config: string;
  /** The replicas' environment (Redis URL, cluster secret): `mcp-host reload --cluster` needs it too. */
  env: NodeJS.ProcessEnv;
  ports: number[];
  replicas: HttpHost[];
  /** Start a replica on `port` (again, after it stopped). */
  start(port: number): Promise<HttpHost>;
}

export async function startEchoCluster(teardown: Teardown, count: number): Promise<EchoCluster> {
  const ws = makeWorkspace(teardown);
  const config = ws.writeConfig({
    plugins: [{ package: join(REPO_ROOT, 'bench/echo-plugin') }],
    reload: { watch: false },
    cluster: { name: 'bench' },
  });
  const redis = await startRedis(teardown);
  const env = { MCP_HOST_REDIS_URL: redis.url, MCP_HOST_CLUSTER_SECRET: 'bench-cluster-secret-0123456789' };
  const ports: number[] = [];
  for (let i = 0; i < count; i++) ports.push(await freePort());
  const start = (port: number) => startHttpHost(teardown, config, { args: ['--http', `127.0.0.1:${port}`], env });
  return { ws, config, env, ports, replicas: await Promise.all(ports.map(start)), start };
}
