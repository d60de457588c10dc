/**
 * The cluster the cluster tests drive (test/cluster.test.ts,
 * test/cluster-trust.test.ts): replicas of `mcp-host start` serving the
 * plugin below, sharing a real Redis, behind a real HAProxy; and the
 * clients and probes the tests use on them.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createClient } from 'redis';
import { Client, StreamableHTTPClientTransport, type FetchLike } from '@modelcontextprotocol/client';
import { eventually, startHttpHost, type HttpHost, type Teardown, until } from './host.js';
import { freePort, redisCli, startHaproxy, startRedis, type Redis } from './engines.js';
import type { Workspace } from './packages.js';
import { clusterKey, COMMAND_CHANNEL } from '../../host/cluster/cluster-commands.js';

export type Result = Record<string, unknown>;

export const MODERN = '2026-07-28';
export const SECRET = 'a-cluster-secret-for-the-tests-0123456789';

/**
 * Asks its client twice in one call; grows a tool on demand (its
 * list_changed reaches the sessions' GET streams); with options.gate, its
 * creation waits for that file.
 */
const PLUGIN = `
import { existsSync, writeFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

const NAME = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
const text = (value) => ({ content: [{ type: 'text', text: value }] });

export default {
  async create({ options }) {
    // options.gate: creating waits for that file (a reload still running while the test acts).
    if (options.gate) {
      // One file per replica (each is a process of its own), so a test can wait for every replica's reload.
      writeFileSync(options.gate + '.waiting.' + process.pid, '');
      while (!existsSync(options.gate)) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const server = new McpServer({ name: 'replicated', version: '1.0.0' });
    server.registerTool('secret', { inputSchema: z.object({}) }, async () => text(String(process.env.MCP_HOST_CLUSTER_SECRET)));
    server.registerTool('hold', { inputSchema: z.object({}) }, async () => {
      writeFileSync(process.env.HOLD_RELEASE_FILE + '.held', '');
      while (!existsSync(process.env.HOLD_RELEASE_FILE)) await new Promise((resolve) => setTimeout(resolve, 20));
      return text('released');
    });
    server.registerTool('whoami', { inputSchema: z.object({}) }, async () => text(String(process.pid)));
    server.registerTool('ask_twice', { inputSchema: z.object({}) }, async (_args, ctx) => {
      const first = await ctx.mcpReq.elicitInput({ message: 'first?', requestedSchema: NAME });
      const second = await ctx.mcpReq.elicitInput({ message: 'second?', requestedSchema: NAME });
      return text(first.content.name + ' then ' + second.content.name + ' on ' + process.pid);
    });
    let grown = 0;
    server.registerTool('grow', { inputSchema: z.object({}) }, async () => {
      grown += 1;
      server.registerTool('grown_' + grown, { inputSchema: z.object({}) }, async () => text('grown'));
      return text('grew');
    });
    return server;
  },
};
`;

export interface Cluster {
  /** The replicas' config file. */
  config: string;
  replicas: HttpHost[];
  redis: Redis;
  /** The load balancer's MCP URL. */
  url: string;
  /** The replicas' environment (Redis, the cluster secret), for one more replica. */
  env: NodeJS.ProcessEnv;
}

/** The replicas' config: the plugin above, and a cluster named "test" (Redis and the secret come from the environment). */
export function writeClusterConfig(ws: Workspace, extra: Record<string, unknown> = {}, fileName?: string): string {
  ws.writePackage(
    'node_modules/@test/mcp-replicated',
    {
      name: '@test/mcp-replicated',
      version: '1.0.0',
      type: 'module',
      exports: './index.js',
      'mcp-host': { prefix: 'r' },
    },
    { 'index.js': PLUGIN },
  );
  return ws.writeConfig(
    {
      plugins: [{ package: '@test/mcp-replicated' }],
      reload: { watch: false },
      cluster: { name: 'test' },
      ...extra,
    },
    fileName,
  );
}

export async function startCluster(
  t: Teardown,
  ws: Workspace,
  {
    config: extra = {},
    env: extraEnv = {},
    replicas: count = 2,
  }: { config?: Record<string, unknown>; env?: NodeJS.ProcessEnv; replicas?: number } = {},
): Promise<Cluster> {
  const config = writeClusterConfig(ws, extra);
  const redis = await startRedis(t);
  const env = {
    MCP_HOST_REDIS_URL: redis.url,
    MCP_HOST_CLUSTER_SECRET: SECRET,
    MCP_HOST_LOG_LEVEL: 'debug',
    // The file whose creation ends r.hold's call.
    HOLD_RELEASE_FILE: join(ws.dir, 'release'),
    ...extraEnv,
  };
  const ports: number[] = [];
  for (let i = 0; i < count; i++) ports.push(await freePort());
  const replicas = await Promise.all(
    ports.map((port) => startHttpHost(t, config, { args: ['--http', `127.0.0.1:${port}`], env })),
  );
  for (const replica of replicas) await until('the replica to register', () => /registering/.test(replica.log()));
  await allListening(redis.port, count);
  const balancer = await startHaproxy(t, ws, ports);
  return { config, replicas, redis, url: balancer.url, env };
}

/** Two bearer tokens, for a cluster that counts each one's sessions (startTokenCluster). */
export const TOKENS = ['token-a-0123456789abcdef', 'token-b-0123456789abcdef'] as const;

/** A cluster whose replicas accept TOKENS, each holding at most `maxSessionsPerToken` sessions across the cluster. */
export function startTokenCluster(t: Teardown, ws: Workspace, maxSessionsPerToken: number): Promise<Cluster> {
  return startCluster(t, ws, {
    config: { http: { port: 0, auth: {}, maxSessionsPerToken } },
    env: { MCP_HOST_HTTP_TOKENS: TOKENS.join(',') },
  });
}

/** A legacy session opened on `url` with `token` as its bearer token, closed when the test ends. */
export async function openSession(t: Teardown, url: string, token: string): Promise<StreamableHTTPClientTransport> {
  const client = new Client({ name: 'counted', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  t.teardown(() => client.close());
  return transport;
}

/** A fetch that sends each POST to the next of `urls` in turn, whatever URL the client uses, and each GET (a stream) to `getsTo`. */
export function alternating(urls: readonly string[], getsTo = urls[0]!): FetchLike {
  let next = 0;
  return (_input, init) => fetch((init?.method ?? 'GET') === 'GET' ? getsTo : urls[next++ % urls.length]!, init);
}

/** A raw tools/list on a legacy session, sent to `url` (with `token` as its bearer token, when given). */
export function listOnSession(url: string, sessionId: string, version: string, token?: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      ...(token !== undefined && { authorization: `Bearer ${token}` }),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': version,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
}

export interface Readiness {
  ready: boolean;
  degraded?: string;
  generation: number;
}

/** The replica keys of the cluster "test" in the Redis on `port`. */
async function replicaKeys(port: number): Promise<string[]> {
  const stdout = await redisCli(port, '--scan', '--pattern', 'mcp-host:test:replica:*');
  return stdout.split('\n').filter(Boolean);
}

/** How many replicas of the cluster "test" are registered in the Redis on `port`. */
export async function registeredReplicas(port: number): Promise<number> {
  return (await replicaKeys(port)).length;
}

/**
 * Until `count` replicas are in the Redis on `port`, each subscribed to the
 * cluster's command channel. Both follow a replica's `registering` line (its
 * entry is written by its first heartbeat, its subscription takes a connection
 * of its own), and come back on their own after Redis restarts, the
 * subscription on its own connection's schedule: before then, another replica
 * cannot find its sessions, and a `reload --cluster` never reaches it.
 */
export async function allListening(port: number, count: number): Promise<void> {
  const channel = clusterKey('test', 'channel', COMMAND_CHANNEL);
  await eventually(`${count} replicas in Redis, each subscribed to the command channel`, async () => {
    const [, subscribers] = (await redisCli(port, 'PUBSUB', 'NUMSUB', channel)).split('\n');
    return Number(subscribers) === count && (await registeredReplicas(port)) === count;
  });
}

/** Each replica entry of the cluster "test" in the Redis on `port`, by key: a sealed record that names its URL. */
export async function replicaEntries(port: number): Promise<Map<string, string>> {
  const keys = await replicaKeys(port);
  return new Map(await Promise.all(keys.map(async (key) => [key, await redisCli(port, 'GET', key)] as const)));
}

/** The retry of a 2026-07-28 call that asked for input, every request answered. */
export function retryOf(asked: Result): never {
  return {
    name: 'r.ask_twice',
    arguments: {},
    requestState: asked.requestState,
    inputResponses: Object.fromEntries(
      Object.keys(asked.inputRequests as Result).map((key) => [key, { action: 'accept', content: { name: 'x' } }]),
    ),
  } as never;
}

/** A 2026-07-28 client that answers input requests itself (retryOf), not through handlers. */
export function manualClient(): Client {
  return new Client(
    { name: 'modern-manual', version: '1.0.0' },
    {
      versionNegotiation: { mode: { pin: MODERN } },
      capabilities: { elicitation: { form: {} } },
      inputRequired: { autoFulfill: false },
    },
  );
}

/** Start r.ask_twice on the replica at `url` and leave it waiting for its retry: the client is closed, not the call. */
export async function callWaitingOn(url: string): Promise<{ manual: Client; asked: Result }> {
  const manual = manualClient();
  await manual.connect(new StreamableHTTPClientTransport(new URL(url)));
  const asked = (await manual.callTool({ name: 'r.ask_twice', arguments: {} }, { allowInputRequired: true })) as Result;
  await manual.close();
  return { manual, asked };
}

/** What /readyz says about a replica (loopback, no auth: the details are shown). */
export async function readiness(replica: HttpHost): Promise<Readiness> {
  return (await fetch(new URL('/readyz', replica.url))).json() as Promise<Readiness>;
}

export function modernClient(): Client {
  return new Client(
    { name: 'modern', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN } }, capabilities: { elicitation: { form: {} } } },
  );
}

export function answering(client: Client): void {
  client.setRequestHandler('elicitation/create', async (request) => ({
    action: 'accept',
    content: { name: String(request.params.message).replace('?', '!') },
  }));
}

/** An HTTP server standing in for whoever an attacker would send a cluster's requests to: it counts what reaches it. */
export async function attackerServer(t: Teardown): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits += 1;
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        result: { content: [{ type: 'text', text: 'FORGED ANSWER FROM ATTACKER' }] },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, hits: () => hits };
}

/**
 * Someone who can write to the cluster's Redis but holds no cluster secret,
 * rewriting it as fast as it can: every value that holds an address points
 * at `attacker`, every session's owner is a replica "evil" registered there,
 * once in the clear and once as a record of the right shape with a MAC of
 * the right length; `pauseMs` between rounds. Stopped when the test ends,
 * or by `stop`.
 */
export function rewritingRedis(
  t: Teardown,
  redisUrl: string,
  cluster: string,
  attacker: string,
  pauseMs = 20,
): { rounds: () => number; stop: () => Promise<void> } {
  const redis = createClient({ url: redisUrl });
  let running = true;
  let rounds = 0;
  const forged = (value: string) => `${Date.now() + 60_000}.${'A'.repeat(43)}.${value}`;
  const loop = (async () => {
    await redis.connect();
    while (running) {
      for await (const keys of redis.scanIterator({ MATCH: `mcp-host:${cluster}:*`, COUNT: 1000 })) {
        for (const key of [keys].flat()) {
          if ((await redis.type(key)) !== 'string') continue;
          const value = (await redis.get(key)) ?? '';
          if (key.includes(':session:')) await redis.set(key, rounds % 2 ? 'evil' : forged('evil'), { KEEPTTL: true });
          else if (/https?:\/\//.test(value)) {
            await redis.set(key, value.replace(/https?:\/\/\S+$/, attacker), { KEEPTTL: true });
          }
        }
      }
      await redis.set(`mcp-host:${cluster}:replica:evil`, rounds % 2 ? attacker : forged(attacker));
      rounds += 1;
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
    await redis.close();
  })();
  const stop = async () => {
    running = false;
    await loop;
  };
  t.teardown(stop);
  return { rounds: () => rounds, stop };
}
