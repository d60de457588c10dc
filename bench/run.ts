/**
 * `npm run bench`: the host's cost over a direct connection, measured in the
 * same run. The same plugin is served directly and through `mcp-host start`,
 * over stdio and then over Streamable HTTP; host and direct are measured in
 * alternating rounds so machine noise hits both alike, and each figure is
 * printed with the ratio host/direct of the time per call (1.00x = free).
 *
 * The clients are the SDK's own v2 Client (2025-era sessions), as a user's
 * would be. BENCH_ROUNDS and BENCH_CALLS scale the run.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { CLI } from '../test/helpers/host.js';
import { REPO_ROOT } from '../test/helpers/packages.js';

const plugin = join(REPO_ROOT, 'bench/echo-plugin');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CALLS = Number(process.env.BENCH_CALLS ?? 400);
const CONCURRENCY = 10;
const WARMUP_ROUNDS = 5;

interface Target {
  name: 'host' | 'direct';
  client: Client;
  tool: string;
}

async function connectStdio(command: string, args: string[]): Promise<Client> {
  const client = new Client({ name: 'mcp-host-bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
  return client;
}

/** Start a server process that prints `listening on URL` (on stdout or stderr), and connect to that URL. */
async function connectHttp(args: string[], children: ChildProcess[]): Promise<Client> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const url = await new Promise<string>((resolveUrl, reject) => {
    let seen = '';
    const look = (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening on (http:\/\/\S+\/mcp)/.exec(seen);
      if (match) resolveUrl(match[1]!);
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}) before listening:\n${seen}`)));
  });
  const client = new Client({ name: 'mcp-host-bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/**
 * The host's config; `cached: false` mounts the plugin without its promise
 * of `list_changed`, so the host cannot keep its list's pages.
 */
function hostConfig(cached: boolean): string {
  const dir = join(REPO_ROOT, '.tmp', 'bench');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, cached ? 'mcp-host.config.js' : 'uncached.config.js');
  const entry = { package: plugin, ...(cached ? {} : { options: { announceChanges: false } }) };
  writeFileSync(file, `export default { plugins: [${JSON.stringify(entry)}], log: { level: 'info' } };\n`);
  return file;
}

type Workload = (target: Target) => Promise<number>;

/** Sequential calls: one at a time, the latency of the path. */
const sequentialCalls: Workload = async ({ client, tool }) => {
  for (let i = 0; i < CALLS; i++) await client.callTool({ name: tool, arguments: { text: `call ${i}` } });
  return CALLS;
};

/** 10 calls in flight at once: the throughput of the path. */
const concurrentCalls: Workload = async ({ client, tool }) => {
  let next = 0;
  const worker = async () => {
    while (next < CALLS) {
      const i = next++;
      await client.callTool({ name: tool, arguments: { text: `call ${i}` } });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return CALLS;
};

/** Listing 21 tools, one list at a time. */
const listTools: Workload = async ({ client }) => {
  const lists = CALLS / 4;
  for (let i = 0; i < lists; i++) await client.listTools();
  return lists;
};

async function timed(workload: Workload, target: Target): Promise<{ ops: number; ms: number }> {
  const started = process.hrtime.bigint();
  const ops = await workload(target);
  return { ops, ms: Number(process.hrtime.bigint() - started) / 1e6 };
}

async function measure(label: string, workload: Workload, host: Target, direct: Target): Promise<void> {
  const totals = { host: { ops: 0, ms: 0 }, direct: { ops: 0, ms: 0 } };
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which goes first so neither always runs on a warmer machine.
    const order = round % 2 === 0 ? [host, direct] : [direct, host];
    for (const target of order) {
      const { ops, ms } = await timed(workload, target);
      totals[target.name].ops += ops;
      totals[target.name].ms += ms;
    }
  }
  const rate = (t: { ops: number; ms: number }) => (t.ops / t.ms) * 1000;
  const ratio = totals.host.ms / totals.host.ops / (totals.direct.ms / totals.direct.ops);
  console.log(
    `${label.padEnd(28)} direct ${rate(totals.direct).toFixed(0).padStart(6)}/s   host ${rate(totals.host)
      .toFixed(0)
      .padStart(6)}/s   host/direct ${ratio.toFixed(2)}x`,
  );
}

/** `uncached` is the host serving the plugin with no page cache (see hostConfig). */
async function compare(transport: string, host: Target, direct: Target, uncached: Target): Promise<void> {
  console.log(`\n${transport}: ${ROUNDS} alternating rounds of ${CALLS} calls`);
  // Warm-up to steady state: the host runs more code per call than the
  // direct server (two SDK servers, the router), so it needs more calls
  // before the JIT has compiled its hot paths; measuring earlier would
  // charge it for compilation rather than for routing.
  for (const target of [host, direct, uncached]) for (let i = 0; i < WARMUP_ROUNDS; i++) await sequentialCalls(target);
  await measure('tools/call sequential', sequentialCalls, host, direct);
  await measure(`tools/call ${CONCURRENCY} concurrent`, concurrentCalls, host, direct);
  // The host keeps the pages of a plugin that announces its changes; the direct server rebuilds its list every time.
  await measure('tools/list (21, host cached)', listTools, host, direct);
  // The routing cost alone: every list reaches the plugin, as the first list after a change does.
  await measure('tools/list (21, uncached)', listTools, uncached, direct);
  await Promise.all([host.client.close(), direct.client.close(), uncached.client.close()]);
}

const node = process.execPath;
const config = hostConfig(true);
const uncachedConfig = hostConfig(false);
console.log(`mcp-host bench (node ${process.version}): host/direct is the time per call through the host over direct`);

await compare(
  'stdio',
  { name: 'host', client: await connectStdio(node, [CLI, 'start', '--config', config]), tool: 'bench.echo' },
  {
    name: 'direct',
    client: await connectStdio(node, [join(REPO_ROOT, 'dist/bench/serve-direct-stdio.js'), join(plugin, 'index.js')]),
    tool: 'echo',
  },
  { name: 'host', client: await connectStdio(node, [CLI, 'start', '--config', uncachedConfig]), tool: 'bench.echo' },
);

const children: ChildProcess[] = [];
try {
  await compare(
    'Streamable HTTP',
    {
      name: 'host',
      client: await connectHttp([CLI, 'start', '--config', config, '--http', '127.0.0.1:0'], children),
      tool: 'bench.echo',
    },
    {
      name: 'direct',
      client: await connectHttp(
        [join(REPO_ROOT, 'dist/bench/serve-direct-http.js'), join(plugin, 'index.js'), '127.0.0.1:0'],
        children,
      ),
      tool: 'echo',
    },
    {
      name: 'host',
      client: await connectHttp([CLI, 'start', '--config', uncachedConfig, '--http', '127.0.0.1:0'], children),
      tool: 'bench.echo',
    },
  );
} finally {
  for (const child of children) child.kill('SIGTERM');
}

// Reload figures (latency from trigger to list_changed, memory across 1,000 reloads), curation's and telemetry's cost, each in its own process.
for (const script of ['reload-latency.js', 'reload-memory.js', 'curation.js', 'telemetry.js']) {
  console.log('');
  if (spawnSync(node, [join(REPO_ROOT, 'dist/bench', script)], { stdio: 'inherit' }).status !== 0) process.exitCode = 1;
}
