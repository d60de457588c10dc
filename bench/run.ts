/**
 * `npm run bench`: the host's cost over a direct connection, measured in the
 * same run. The same plugin is served directly and through `mcp-host start`,
 * over stdio and then over Streamable HTTP; host and direct are measured in
 * alternating rounds so machine noise hits both alike, and each figure is
 * printed with the ratio host/direct of the time per call (1.00x = free).
 * Then the same plugin through the host in a worker thread (`isolation:
 * 'worker'`) against in the host's thread, over stdio: worker/in-process.
 *
 * The clients are the SDK's own v2 Client (2025-era sessions), as a user's
 * would be. BENCH_ROUNDS and BENCH_CALLS scale the run.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
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
  /** How the figures name it: host, direct, worker, in-process. */
  name: string;
  client: Client;
  tool: string;
}

async function connectStdio(command: string, args: string[]): Promise<Client> {
  return (await connectStdioProcess(command, args)).client;
}

/** A client of a server process on stdio, and the process's pid (to read its memory). */
async function connectStdioProcess(command: string, args: string[]): Promise<{ client: Client; pid: number }> {
  const client = new Client({ name: 'mcp-host-bench', version: '1.0.0' });
  const transport = new StdioClientTransport({ command, args, stderr: 'ignore' });
  await client.connect(transport);
  return { client, pid: transport.pid! };
}

/** A process's resident set, in MB. */
function rssMb(pid: number): number {
  return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)]).toString()) / 1024;
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
function hostConfig(cached: boolean, isolation: 'none' | 'worker' = 'none'): string {
  const dir = join(REPO_ROOT, '.tmp', 'bench');
  mkdirSync(dir, { recursive: true });
  const file = join(
    dir,
    isolation === 'worker' ? 'worker.config.js' : cached ? 'mcp-host.config.js' : 'uncached.config.js',
  );
  const entry = { package: plugin, isolation, ...(cached ? {} : { options: { announceChanges: false } }) };
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

/** `subject` against `baseline`, in alternating rounds: both rates, and subject/baseline of the time per call. */
async function measure(label: string, workload: Workload, subject: Target, baseline: Target): Promise<void> {
  const totals = new Map([subject, baseline].map((target) => [target, { ops: 0, ms: 0 }]));
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which goes first so neither always runs on a warmer machine.
    const order = round % 2 === 0 ? [subject, baseline] : [baseline, subject];
    for (const target of order) {
      const { ops, ms } = await timed(workload, target);
      totals.get(target)!.ops += ops;
      totals.get(target)!.ms += ms;
    }
  }
  const [s, b] = [totals.get(subject)!, totals.get(baseline)!];
  const rate = (t: { ops: number; ms: number }) => (t.ops / t.ms) * 1000;
  const ratio = s.ms / s.ops / (b.ms / b.ops);
  console.log(
    `${label.padEnd(28)} ${baseline.name} ${rate(b).toFixed(0).padStart(6)}/s   ${subject.name} ${rate(s)
      .toFixed(0)
      .padStart(6)}/s   ${subject.name}/${baseline.name} ${ratio.toFixed(2)}x`,
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

/**
 * The same plugin through the host in a worker thread (`isolation: 'worker'`)
 * and in the host's thread, over stdio: what isolation costs a call, and the
 * host's resident set with each.
 */
async function compareIsolation(): Promise<void> {
  const start = async (name: string, isolation: 'none' | 'worker') => ({
    name,
    tool: 'bench.echo',
    ...(await connectStdioProcess(node, [CLI, 'start', '--config', hostConfig(true, isolation)])),
  });
  const [worker, inProcess] = [await start('worker', 'worker'), await start('in-process', 'none')];
  console.log(
    `\nstdio, the plugin in a worker thread vs in the host's thread: ${ROUNDS} alternating rounds of ${CALLS} calls`,
  );
  for (const target of [worker, inProcess]) for (let i = 0; i < WARMUP_ROUNDS; i++) await sequentialCalls(target);
  await measure('tools/call sequential', sequentialCalls, worker, inProcess);
  await measure(`tools/call ${CONCURRENCY} concurrent`, concurrentCalls, worker, inProcess);
  await measure('tools/list (21, host cached)', listTools, worker, inProcess);
  console.log(
    `${'resident set after the calls'.padEnd(28)} in-process ${rssMb(inProcess.pid).toFixed(1)} MB   worker ${rssMb(worker.pid).toFixed(1)} MB`,
  );
  await Promise.all([worker.client.close(), inProcess.client.close()]);
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

await compareIsolation();

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

// Reload figures (latency from trigger to list_changed, memory across 1,000 reloads) and curation's cost, each in its own process.
for (const script of ['reload-latency.js', 'reload-memory.js', 'curation.js']) {
  console.log('');
  if (spawnSync(node, [join(REPO_ROOT, 'dist/bench', script)], { stdio: 'inherit' }).status !== 0) process.exitCode = 1;
}
