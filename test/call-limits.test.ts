// Rate limits per identity (limits.callsPerMinute, docs/access.md): a limit
// of N calls a minute refuses call N+1, naming the limit, with
// data.retryAfterSeconds and, where the answer is whole JSON (2026-07-28
// over HTTP), a Retry-After header; over stdio too; and in a two-replica
// cluster sharing a real Redis the count is shared. The hosts run as child
// processes, driven by the SDK's own Client.
import { join } from 'node:path';
import t from 'tap';
import { Client, StreamableHTTPClientTransport, type FetchLike } from '@modelcontextprotocol/client';
import { runCli, startHttpHost, startStdioHost, until } from './helpers/host.js';
import { makeWorkspace } from './helpers/packages.js';
import { alternating, modernClient, SECRET, writeClusterConfig } from './helpers/cluster.js';
import { freePort, startRedis } from './helpers/engines.js';
import { ALICE, CI, secretOf } from './helpers/named-tokens.js';

/** A client sending a named token (alice's by default), and the headers of the last answer it got. */
async function connect(url: string, era: 'legacy' | 'modern', named = ALICE) {
  let lastHeaders = new Headers();
  const recording: FetchLike = async (input, init) => {
    const response = await fetch(input, init);
    lastHeaders = response.headers;
    return response;
  };
  const client = era === 'modern' ? modernClient() : new Client({ name: 'limits-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      fetch: recording,
      requestInit: { headers: { authorization: `Bearer ${secretOf(named)}` } },
    }),
  );
  t.teardown(() => client.close());
  return { client, headers: () => lastHeaders };
}

async function refusal(attempt: Promise<unknown>): Promise<{ code?: number; message: string; data?: unknown }> {
  try {
    await attempt;
  } catch (error) {
    return error as { code?: number; message: string; data?: unknown };
  }
  throw new Error('expected the call to be refused');
}

t.test('a limit of N calls a minute refuses call N+1, naming the limit, with Retry-After where it can', async (t) => {
  const ws = makeWorkspace(t);
  const config = ws.writeConfig({
    reload: { watch: false },
    http: { port: 0, auth: { tokens: [ALICE] } },
    plugins: [{ package: '@mcp-host/clock' }],
    limits: { callsPerMinute: { default: 5, perTool: { 'clock.now': 2 } } },
  });
  const host = await startHttpHost(t, config, { env: { MCP_HOST_HTTP_TOKENS: undefined } });
  const { client, headers } = await connect(host.url, 'modern');
  for (let i = 0; i < 2; i++) await client.callTool({ name: 'clock.now', arguments: {} });
  const refused = await refusal(client.callTool({ name: 'clock.now', arguments: {} }));
  t.equal(refused.code, -32029);
  t.match(
    refused.message,
    /^Rate limit: token "alice" has made 2 calls this minute, the limit limits\.callsPerMinute\.perTool\["clock\.now"\]; retry in \d+ s\. Fix: wait, or ask the host's operator to raise limits\.callsPerMinute\.perTool\["clock\.now"\]\.$/,
  );
  t.match(refused.data, {
    limit: 'limits.callsPerMinute.perTool["clock.now"]',
    identity: 'alice',
    callsPerMinute: 2,
    retryAfterSeconds: Number,
  });
  const { retryAfterSeconds } = refused.data as { retryAfterSeconds: number };
  t.ok(retryAfterSeconds >= 1 && retryAfterSeconds <= 60);
  t.equal(headers().get('retry-after'), String(retryAfterSeconds), 'a whole JSON answer carries Retry-After');

  // The other tools count against the default: 5 calls in all, the 2 above included, then refused.
  for (let i = 0; i < 3; i++) await client.callTool({ name: 'clock.list_time_zones', arguments: {} });
  const legacy = await connect(host.url, 'legacy');
  const overall = await refusal(legacy.client.callTool({ name: 'clock.list_time_zones', arguments: {} }));
  t.match(overall, { code: -32029, data: { limit: 'limits.callsPerMinute.default', callsPerMinute: 5 } });
  t.equal(legacy.headers().get('retry-after'), null, 'an answer on an SSE stream carries the error data alone');
});

t.test('each identity has its own count: two static tokens are two buckets', async (t) => {
  const ws = makeWorkspace(t);
  const config = ws.writeConfig({
    reload: { watch: false },
    http: { port: 0, auth: { tokens: [ALICE, CI] } },
    plugins: [{ package: '@mcp-host/clock' }],
    limits: { callsPerMinute: { default: 1 } },
  });
  const host = await startHttpHost(t, config, { env: { MCP_HOST_HTTP_TOKENS: undefined } });
  const alice = await connect(host.url, 'modern');
  const ci = await connect(host.url, 'legacy', CI);
  await alice.client.callTool({ name: 'clock.now', arguments: {} });
  await ci.client.callTool({ name: 'clock.now', arguments: {} });
  t.pass("ci's first call is not counted against alice's");
  for (const [client, name] of [
    [alice.client, 'alice'],
    [ci.client, 'ci'],
  ] as const) {
    const refused = await refusal(client.callTool({ name: 'clock.now', arguments: {} }));
    t.match(refused, { code: -32029, data: { identity: name } }, `${name}'s second call is refused`);
  }
});

t.test('over stdio the limit holds too (the hot path counts)', async (t) => {
  const ws = makeWorkspace(t);
  const config = ws.writeConfig({
    reload: { watch: false },
    plugins: [{ package: '@mcp-host/clock' }],
    limits: { callsPerMinute: { default: 1 } },
  });
  const { client } = await startStdioHost(t, config);
  await client.callTool({ name: 'clock.now', arguments: {} });
  const refused = await refusal(client.callTool({ name: 'clock.now', arguments: {} }));
  t.match(refused, { code: -32029, data: { limit: 'limits.callsPerMinute.default', identity: 'stdio' } });
  t.match(refused.message, /^Rate limit: stdio "stdio" has made 1 calls this minute/);
});

t.test('limits config: each problem named', async (t) => {
  const ws = makeWorkspace(t);
  const config = ws.writeConfig({
    plugins: [],
    limits: { callsPerMinute: { default: 0, perTool: { 'a[': 3, 'b.*': 'ten' } }, perMinute: 3 },
  });
  const run = await runCli(['check', '--config', config]);
  t.equal(run.code, 1);
  t.match(run.stdout, 'limits.perMinute: unknown key "perMinute".');
  t.match(run.stdout, 'limits.callsPerMinute.default: expected a positive integer, got 0.');
  t.match(
    run.stdout,
    'limits.callsPerMinute.perTool: expected a glob of composed tool names, but "a[" is not one: Missing closing: "]"',
  );
  t.match(
    run.stdout,
    `limits.callsPerMinute.perTool: the limit for "b.*" must be a positive integer, got "ten". Fix: e.g. perTool: { 'search.*': 10 }`,
  );
  const missing = await runCli(['check', '--config', ws.writeConfig({ plugins: [], limits: {} }, 'b.config.js')]);
  t.match(missing.stdout, 'limits.callsPerMinute: expected an object, got undefined.');
  const odd = await runCli([
    'check',
    '--config',
    ws.writeConfig({ plugins: [], limits: { callsPerMinute: { perTool: 'search.*' } } }, 'c.config.js'),
  ]);
  t.match(odd.stdout, 'limits.callsPerMinute.perTool: expected an object of globs to numbers, got "search.*".');
  const blank = await runCli([
    'check',
    '--config',
    ws.writeConfig({ plugins: [], limits: { callsPerMinute: { perTool: { '': 1 } } } }, 'd.config.js'),
  ]);
  t.match(blank.stdout, 'limits.callsPerMinute.perTool: expected a glob of composed tool names, got "".');
});

t.test('in a two-replica cluster the count is shared through Redis', async (t) => {
  const ws = makeWorkspace(t);
  const config = writeClusterConfig(ws, {
    http: { port: 0, auth: { tokens: [ALICE] } },
    limits: { callsPerMinute: { default: 3 } },
    access: [{ who: { token: 'alice' }, tools: ['r.*'] }],
  });
  const redis = await startRedis(t);
  const env = {
    MCP_HOST_REDIS_URL: redis.url,
    MCP_HOST_CLUSTER_SECRET: SECRET,
    MCP_HOST_HTTP_TOKENS: undefined,
    HOLD_RELEASE_FILE: join(ws.dir, 'release'),
  };
  const replicas = await Promise.all(
    [await freePort(), await freePort()].map((port) =>
      startHttpHost(t, config, { args: ['--http', `127.0.0.1:${port}`], env }),
    ),
  );
  for (const replica of replicas) await until('the replica to register', () => /registering/.test(replica.log()));
  const [a, b] = await Promise.all(replicas.map((replica) => connect(replica.url, 'modern')));
  await a!.client.callTool({ name: 'r.whoami', arguments: {} });
  await b!.client.callTool({ name: 'r.whoami', arguments: {} });
  await a!.client.callTool({ name: 'r.whoami', arguments: {} });
  const refused = await refusal(b!.client.callTool({ name: 'r.whoami', arguments: {} }));
  t.match(refused, { code: -32029, data: { limit: 'limits.callsPerMinute.default', identity: 'alice' } });

  // A 2025-era session lives on one replica; its requests through the other are forwarded there, and
  // served as the identity that opened it (the forwarding stamp names only the token's session owner).
  const urls = replicas.map((replica) => replica.url);
  const legacy = new Client({ name: 'limits-test', version: '1.0.0' });
  await legacy.connect(
    new StreamableHTTPClientTransport(new URL(urls[0]!), {
      fetch: alternating(urls),
      requestInit: { headers: { authorization: `Bearer ${ALICE.slice('alice:'.length)}` } },
    }),
  );
  t.teardown(() => legacy.close());
  const here = (await legacy.listTools()).tools.map((tool) => tool.name);
  const forwarded = (await legacy.listTools()).tools.map((tool) => tool.name);
  t.ok(here.includes('r.whoami'), 'alice sees the tools her rule allows');
  t.same(forwarded, here, 'the same through the other replica');
});
