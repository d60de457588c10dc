/**
 * A differential CPU profile of one `tools/call`: the direct server
 * (`serveStdio`) and the host serving the same plugin, each under
 * `--cpu-prof`, called by the same client in the same run, in alternating
 * rounds after a warm-up, and the two profiles' self time compared per
 * call: by category (the host's code, the SDK, zod, Node's internals,
 * native code, garbage collection, idle) and by function, largest
 * difference first. Only the samples taken inside the timed rounds count
 * (V8's profile clock and this process's `process.hrtime` are both the
 * system's monotonic clock), so neither start-up nor shutdown is in the
 * figures. What the host does that the direct server does not is then the
 * difference, item by item (docs/performance.md, the seventh round).
 *
 * Run it pinned (`BENCH_CPUS=0`), as the CPU-per-call rows are judged:
 * unpinned, a call's hand-over between two vCPUs shows as idle time.
 * BENCH_PROFILE_CALLS (4,000) calls per round, BENCH_PROFILE_ROUNDS (5)
 * rounds, BENCH_PROFILE_TOOL (`noop_0`, or `echo`), BENCH_CLIENTS (`v1`, or
 * `v2`: the client line), BENCH_OTHER_CLI (another build's cli.js, profiled
 * as the host instead of this one's); BENCH_PROFILE_TOP (40) rows of
 * functions. The profiles stay in .tmp/bench/differential-profile.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioClientTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI } from '../test/helpers/host.js';
import { REPO_ROOT } from '../test/helpers/packages.js';
import { cpusNote, runOnBenchCpus } from './bench-cpus.js';

runOnBenchCpus();

const CALLS = Number(process.env.BENCH_PROFILE_CALLS ?? 4_000);
const ROUNDS = Number(process.env.BENCH_PROFILE_ROUNDS ?? 5);
const TOOL = process.env.BENCH_PROFILE_TOOL ?? 'noop_0';
const LINE = process.env.BENCH_CLIENTS === 'v2' ? 'v2' : 'v1';
const TOP = Number(process.env.BENCH_PROFILE_TOP ?? 40);
const WARMUP = 3_000;
const plugin = join(REPO_ROOT, 'bench/echo-plugin');
const dir = join(REPO_ROOT, '.tmp', 'bench', 'differential-profile');

interface Profiled {
  name: 'direct' | 'host';
  tool: string;
  call(): Promise<unknown>;
  close(): Promise<void>;
  /** The timed rounds, in microseconds of the monotonic clock. */
  rounds: [number, number][];
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const micros = () => Number(process.hrtime.bigint() / 1000n);

async function profiled(name: Profiled['name'], args: string[], tool: string): Promise<Profiled> {
  const argv = ['--cpu-prof', `--cpu-prof-dir=${join(dir, name)}`, '--cpu-prof-interval=100', ...args];
  const info = { name: 'mcp-host-bench', version: '1.0.0' };
  const params = { name: tool, arguments: TOOL === 'echo' ? { text: 'x' } : {} };
  if (LINE === 'v1') {
    const client = new ClientV1(info);
    await client.connect(new StdioClientTransportV1({ command: process.execPath, args: argv, stderr: 'ignore' }));
    return { name, tool, call: () => client.callTool(params), close: () => client.close(), rounds: [] };
  }
  const client = new Client(info);
  await client.connect(new StdioClientTransport({ command: process.execPath, args: argv, stderr: 'ignore' }));
  return { name, tool, call: () => client.callTool(params), close: () => client.close(), rounds: [] };
}

/** Where a sampled function's time is counted. */
function category(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : 'native';
  if (url.includes('/dist/host/')) return 'host';
  if (url.startsWith('node:')) return 'node';
  const scope = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (scope?.startsWith('@modelcontextprotocol/')) return 'SDK';
  return scope ?? 'plugin';
}

/** Self time per call, in µs, by category and by function, over the samples inside the timed rounds. */
function selfTimes(server: Profiled): { categories: Map<string, number>; functions: Map<string, number> } {
  const file = readdirSync(join(dir, server.name)).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error(`${server.name} wrote no CPU profile in ${join(dir, server.name)}`);
  const profile = JSON.parse(readFileSync(join(dir, server.name, file), 'utf8')) as CpuProfile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const categories = new Map<string, number>();
  const functions = new Map<string, number>();
  const calls = CALLS * ROUNDS;
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i]!;
    if (!server.rounds.some(([from, to]) => at >= from && at < to)) continue;
    const frame = nodes.get(profile.samples[i]!)!;
    const spent = (profile.timeDeltas[i + 1] ?? 0) / calls;
    const kind = category(frame.url, frame.functionName);
    const where = frame.url.replace(/.*\/(dist|node_modules)\//, '').replace(/^node:internal\//, '');
    const name = `${kind} ${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`;
    categories.set(kind, (categories.get(kind) ?? 0) + spent);
    functions.set(name, (functions.get(name) ?? 0) + spent);
  }
  return { categories, functions };
}

function table(title: string, direct: Map<string, number>, host: Map<string, number>, rows: number): void {
  console.log(`\n${title.padEnd(70)}   direct     host     diff (µs per call)`);
  const keys = [...new Set([...direct.keys(), ...host.keys()])].map((key) => {
    const [a, b] = [direct.get(key) ?? 0, host.get(key) ?? 0];
    return { key, a, b, diff: b - a };
  });
  keys.sort((x, y) => Math.abs(y.diff) - Math.abs(x.diff));
  const at = (n: number) => n.toFixed(2).padStart(8);
  for (const { key, a, b, diff } of keys.slice(0, rows))
    console.log(`${key.slice(0, 70).padEnd(70)} ${at(a)} ${at(b)} ${at(diff)}`);
  const sum = (map: Map<string, number>) => [...map.values()].reduce((s, n) => s + n, 0);
  console.log(`${'total sampled'.padEnd(70)} ${at(sum(direct))} ${at(sum(host))} ${at(sum(host) - sum(direct))}`);
}

rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const config = join(dir, 'differential-profile.config.js');
writeFileSync(
  config,
  `export default { plugins: [${JSON.stringify({ package: plugin })}], log: { level: 'warn' } };\n`,
);
const servers = [
  await profiled('direct', [join(REPO_ROOT, 'dist/bench/serve-direct-stdio.js'), join(plugin, 'index.js')], TOOL),
  await profiled('host', [process.env.BENCH_OTHER_CLI ?? CLI, 'start', '--config', config], `bench.${TOOL}`),
];
for (const server of servers) for (let i = 0; i < WARMUP; i++) await server.call();
for (let round = 0; round < ROUNDS; round++) {
  for (const server of servers) {
    const from = micros();
    for (let i = 0; i < CALLS; i++) await server.call();
    server.rounds.push([from, micros()]);
  }
}
// Each server writes its profile as it exits, once its stdin closes.
await Promise.all(servers.map((server) => server.close()));
await new Promise((resolve) => setTimeout(resolve, 3_000));
const [direct, host] = servers.map(selfTimes) as [ReturnType<typeof selfTimes>, ReturnType<typeof selfTimes>];
const wall = (server: Profiled) => server.rounds.reduce((sum, [from, to]) => sum + to - from, 0) / (CALLS * ROUNDS);
console.log(
  `Differential CPU profile: ${TOOL}, ${LINE} client, ${CALLS * ROUNDS} sequential calls each in ${ROUNDS} alternating rounds after ${WARMUP}${cpusNote()}; a call took ${wall(servers[0]!).toFixed(1)} µs directly and ${wall(servers[1]!).toFixed(1)} µs through the host (wall clock)`,
);
table('category', direct.categories, host.categories, Infinity);
table('function (self time)', direct.functions, host.functions, TOP);
