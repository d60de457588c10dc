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
  /** The server's process, when it is a child of the bench. */
  pid?: number;
}

/** A client of a server process on stdio, and the process's pid (to read its memory). */
async function connectStdio(command: string, args: string[]): Promise<{ client: Client; pid: number }> {
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

function hostConfig(isolation: 'none' | 'worker' = 'none'): string {
  const dir = join(REPO_ROOT, '.tmp', 'bench', isolation);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'mcp-host.config.js');
  writeFileSync(
    file,
    `export default { isolation: '${isolation}', plugins: [{ package: ${JSON.stringify(plugin)} }], log: { level: 'info' } };\n`,
  );
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

/** `subject` against `baseline`, in alternating rounds; prints both rates and subject/baseline of the time per call. */
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

async function compare(title: string, subject: Target, baseline: Target): Promise<void> {
  console.log(`\n${title}: ${ROUNDS} alternating rounds of ${CALLS} calls`);
  // Warm-up to steady state: the host runs more code per call than the
  // direct server (two SDK servers, the router), so it needs more calls
  // before the JIT has compiled its hot paths; measuring earlier would
  // charge it for compilation rather than for routing.
  for (const target of [subject, baseline]) for (let i = 0; i < WARMUP_ROUNDS; i++) await sequentialCalls(target);
  await measure('tools/call sequential', sequentialCalls, subject, baseline);
  await measure(`tools/call ${CONCURRENCY} concurrent`, concurrentCalls, subject, baseline);
  await measure('tools/list (21 tools)', listTools, subject, baseline);
  if (subject.pid !== undefined && baseline.pid !== undefined) {
    console.log(
      `${'resident set after the calls'.padEnd(28)} ${baseline.name} ${rssMb(baseline.pid).toFixed(1)} MB   ${subject.name} ${rssMb(subject.pid).toFixed(1)} MB`,
    );
  }
  await Promise.all([subject.client.close(), baseline.client.close()]);
}

const node = process.execPath;
const config = hostConfig();
console.log(`mcp-host bench (node ${process.version}): host/direct is the time per call through the host over direct`);

await compare(
  'stdio',
  { name: 'host', ...(await connectStdio(node, [CLI, 'start', '--config', config])), tool: 'bench.echo' },
  {
    name: 'direct',
    ...(await connectStdio(node, [join(REPO_ROOT, 'dist/bench/serve-direct-stdio.js'), join(plugin, 'index.js')])),
    tool: 'echo',
  },
);

await compare(
  "stdio, the plugin in a worker thread vs in the host's thread",
  {
    name: 'worker',
    ...(await connectStdio(node, [CLI, 'start', '--config', hostConfig('worker')])),
    tool: 'bench.echo',
  },
  { name: 'in-process', ...(await connectStdio(node, [CLI, 'start', '--config', config])), tool: 'bench.echo' },
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
  );
} finally {
  for (const child of children) child.kill('SIGTERM');
}

// Reload figures: latency from trigger to list_changed, and memory across 1,000 reloads (each in its own process).
for (const script of ['reload-latency.js', 'reload-memory.js']) {
  console.log('');
  if (spawnSync(node, [join(REPO_ROOT, 'dist/bench', script)], { stdio: 'inherit' }).status !== 0) process.exitCode = 1;
}
