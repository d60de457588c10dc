/**
 * A differential CPU profile of one `tools/call`: the direct server
 * (`serveStdio`) and the host serving the same plugin, called by the same
 * client in the same run, in alternating rounds after a warm-up, sampled by
 * Linux `perf record -e task-clock -g` over both processes (every thread)
 * during the timed rounds only. `task-clock` samples a thread only while it
 * runs, so on a busy machine the figures are CPU time, not the waiting for
 * a core that V8's own profiler (`--cpu-prof`, which samples by the wall
 * clock) counts into whatever function was preempted. Each sample goes to
 * the first JavaScript frame on its stack (so a builtin, a native call or
 * the kernel's side of a write counts for the function that called it),
 * or to the helper threads (the GC's, the compiler's), the main thread's
 * garbage collection, or native code with no JavaScript on the stack; and
 * each such item is compared between the two servers, per call, largest
 * difference first (docs/performance.md, the seventh round). The servers run
 * with `--perf-basic-prof-only-functions`, so perf names their JIT code.
 *
 * Run it pinned (`BENCH_CPUS=0`), as the CPU-per-call rows are judged, as a
 * user perf may attach to (root, or kernel.perf_event_paranoid <= 1).
 * BENCH_PROFILE_CALLS (4,000) calls per round, BENCH_PROFILE_ROUNDS (5)
 * rounds, BENCH_PROFILE_TOOL (`noop_0`, or `echo`), BENCH_CLIENTS (`v1`, or
 * `v2`: the client line), BENCH_OTHER_CLI (another build's cli.js, profiled
 * as the host in place of this one's); BENCH_PROFILE_TOP (40) rows of
 * items. perf's data stays in .tmp/bench/differential-profile.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
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
  pid: number;
  call(): Promise<unknown>;
  close(): Promise<void>;
}

async function profiled(name: Profiled['name'], args: string[], tool: string): Promise<Profiled> {
  const argv = ['--perf-basic-prof-only-functions', ...args];
  const info = { name: 'mcp-host-bench', version: '1.0.0' };
  const params = { name: tool, arguments: TOOL === 'echo' ? { text: 'x' } : {} };
  if (LINE === 'v1') {
    const client = new ClientV1(info);
    const transport = new StdioClientTransportV1({ command: process.execPath, args: argv, stderr: 'ignore' });
    await client.connect(transport);
    return { name, pid: transport.pid!, call: () => client.callTool(params), close: () => client.close() };
  }
  const client = new Client(info);
  const transport = new StdioClientTransport({ command: process.execPath, args: argv, stderr: 'ignore' });
  await client.connect(transport);
  return { name, pid: transport.pid!, call: () => client.callTool(params), close: () => client.close() };
}

/** Where a sample's JavaScript frame belongs, by its script's URL. */
function category(url: string): string {
  if (url.includes('/dist/bundle/') || url.includes('/dist/host/')) return 'host';
  if (url.startsWith('node:')) return 'node';
  const scope = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (scope?.startsWith('@modelcontextprotocol/')) return 'SDK';
  if (scope) return scope;
  // No script: code made by `new Function`, which here is zod's compiled object parsers.
  return url.startsWith('file:') ? 'plugin' : 'generated (zod)';
}

const GARBAGE_COLLECTION = /Heap::CollectGarbage|Scavenger|MarkCompact|Heap::PerformGarbageCollection|MinorMarkSweep/;

/** The category and the item one sample (perf script's block: a header line, then its stack, leaf first) counts for. */
function attribute(thread: string, frames: string[]): [string, string] {
  if (thread !== 'MainThread') return ['helper threads (GC, compiler)', `helper threads ${thread}`];
  if (frames.some((frame) => GARBAGE_COLLECTION.test(frame))) return ['GC (main thread)', 'GC (main thread)'];
  const js = frames.find((frame) => frame.startsWith('JS:'));
  if (!js) return ['native, no JS on the stack', `native ${frames[0] ?? '?'}`];
  // `JS:*name file:///…/x.js:12:3` (`*` optimised, `+` Maglev, `~` interpreted), or `JS:~ file:///…` for an anonymous one.
  const [, name, url = ''] = /^JS:[*+~^']*(\S*)\s+(\S+)$/.exec(js) ?? [js, js];
  const kind = category(url);
  const where = url.replace(/.*\/(dist|node_modules)\//, '').replace(/^node:internal\//, '');
  return [kind, `${kind} ${name || '(anonymous)'} ${where}`];
}

function table(title: string, figures: Record<Profiled['name'], Map<string, number>>, rows: number): void {
  console.log(`\n${title.padEnd(76)}   direct     host     diff (µs of CPU per call)`);
  const { direct, host } = figures;
  const keys = [...new Set([...direct.keys(), ...host.keys()])].map((key) => {
    const [a, b] = [direct.get(key) ?? 0, host.get(key) ?? 0];
    return { key, a, b };
  });
  keys.sort((x, y) => Math.abs(y.b - y.a) - Math.abs(x.b - x.a));
  const at = (n: number) => n.toFixed(2).padStart(8);
  for (const { key, a, b } of keys.slice(0, rows))
    console.log(`${key.slice(0, 76).padEnd(76)} ${at(a)} ${at(b)} ${at(b - a)}`);
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
const data = join(dir, 'perf.data');
const pids = servers.map((server) => server.pid).join(',');
const perf = spawn('perf', ['record', '-q', '-g', '-e', 'task-clock', '-F', '4000', '-o', data, '-p', pids], {
  stdio: ['ignore', 'inherit', 'inherit'],
});
const perfFailed = once(perf, 'error');
// perf attaches to the processes before the first timed round.
await Promise.race([new Promise((resolve) => setTimeout(resolve, 1_000)), perfFailed]);
if (perf.exitCode !== null || perf.pid === undefined) {
  throw new Error(
    `perf record could not attach to ${pids} (exit ${perf.exitCode}): install linux perf, and run as root or with kernel.perf_event_paranoid <= 1`,
  );
}
for (let round = 0; round < ROUNDS; round++) {
  for (const server of servers) for (let i = 0; i < CALLS; i++) await server.call();
}
perf.kill('SIGINT');
await once(perf, 'exit');
const script = spawnSync('perf', ['script', '-i', data, '-F', 'comm,pid,tid,period,ip,sym'], {
  encoding: 'utf8',
  maxBuffer: 1 << 30,
});
await Promise.all(servers.map((server) => server.close()));
const calls = CALLS * ROUNDS;
const byPid = new Map(servers.map((server) => [String(server.pid), server.name]));
const categories = { direct: new Map<string, number>(), host: new Map<string, number>() };
const items = { direct: new Map<string, number>(), host: new Map<string, number>() };
const totals = { direct: 0, host: 0 };
for (const block of script.stdout.split('\n\n')) {
  const [header, ...stack] = block.split('\n').filter((line) => line.trim() !== '');
  // `MainThread 1234/1234     250000`: thread name, pid/tid, the sample's period in nanoseconds of CPU.
  const fields = /^\s*(\S+)\s+(\d+)\/\d+\s+(\d+)/.exec(header ?? '');
  const name = fields && byPid.get(fields[2]!);
  if (!fields || !name) continue;
  const micros = Number(fields[3]) / 1000 / calls;
  const frames = stack.map((line) => line.trim().replace(/^[0-9a-f]+\s+/, ''));
  const [kind, item] = attribute(fields[1]!, frames);
  totals[name] += micros;
  categories[name].set(kind, (categories[name].get(kind) ?? 0) + micros);
  items[name].set(item, (items[name].get(item) ?? 0) + micros);
}
console.log(
  `Differential CPU profile (perf task-clock): ${TOOL}, ${LINE} client, ${calls} sequential calls each in ${ROUNDS} alternating rounds after ${WARMUP}${cpusNote()}. CPU per call: direct ${totals.direct.toFixed(1)} µs, host ${totals.host.toFixed(1)} µs`,
);
table('category', categories, Infinity);
table('item: the first JavaScript frame on the stack, with what it calls', items, TOP);
