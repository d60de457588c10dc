/**
 * `npm run bench`: the host's cost over a direct connection, measured in the
 * same run. The same plugin is served directly and through `mcp-host start`,
 * over stdio and then over Streamable HTTP; directly means the fastest way
 * the SDK serves it (`serveStdio`, serve-direct-stdio.ts; `createMcpHandler`,
 * serve-handler-http.ts, with the sessionful wiring beside it for context),
 * and each call row is timed on a tool without an input schema (the path's
 * own cost) and on one with a zod schema; host and direct are measured in
 * alternating rounds so machine noise hits both alike, and each figure is
 * printed with the ratio host/direct of the time per call (1.00x = free):
 * the median of the rounds' own ratios, with their range.
 * A third server is measured beside them, over each transport: the plugin
 * behind the least proxy the SDK allows (`serve-sdk-proxy-stdio.ts`,
 * `serve-sdk-proxy-http.ts`), the floor any SDK-built proxy pays;
 * `sdk-proxy/direct` is that floor, `host/sdk-proxy` what the host adds on
 * top of it.
 * Then the same plugin through the host at each isolation level (worker,
 * process, sandbox) against in the host's thread, over stdio: per call,
 * start time and memory (BENCH_ONLY=isolation runs these rows alone).
 *
 * Both SDK lines' clients are measured, as users run both: v2
 * (`@modelcontextprotocol/client`) and v1 (`@modelcontextprotocol/sdk`, whose
 * lighter client shows the host's own cost more plainly), 2025-era sessions.
 * Then a 10,000-tool list, beside the floor of any server (the same list
 * answered from recorded bytes), the start rows (the host with 100 plugins x
 * 20 tools against the SDK-only proxy creating the same plugins, and the
 * host with no plugin against one plugin served directly), and the reload
 * figures. Each row carries its goal (issue #42's, #31's where #42 set
 * none) beside it, or says why it has none.
 * BENCH_ROUNDS and BENCH_CALLS scale the run; BENCH_CLIENTS (`v1,v2`) and
 * BENCH_TRANSPORTS (`stdio,http`) narrow it; BENCH_ONLY runs some parts
 * alone, a list of `calls`, `isolation`, `many-tools`, `start` and `scripts`
 * (the figures of the other bench scripts), e.g. BENCH_ONLY=calls,start
 * (BENCH_ONLY_CALLS=1 is BENCH_ONLY=calls); BENCH_STARTS (5) sets how many
 * starts of each server are timed. BENCH_CPUS=0 runs the call rows on one
 * CPU (bench-cpus.ts says why a 2-vCPU machine's call rows need it to be
 * read to a few percent), and the stdio rows unpinned beside them.
 */
import './abort-signal-warnings.js';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioClientTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as StreamableHTTPClientTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CLI } from '../test/helpers/host.js';
import { makeWorkspace, REPO_ROOT } from '../test/helpers/packages.js';
import { writeBenchConfig, writeBenchPlugin } from './plugin-workspace.js';
import type { Isolation } from '../host/config/types.js';
import { findBubblewrap } from '../host/loader/sandbox-available.js';
import { residentKb } from '../host/mounts/isolation/memory-watch.js';
import { median } from './median.js';
import { whilePinned } from './bench-cpus.js';
import { RATIO_GOALS, START_GOALS } from './goals.js';

const plugin = join(REPO_ROOT, 'bench/echo-plugin');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CALLS = Number(process.env.BENCH_CALLS ?? 400);
const CONCURRENCY = 10;
const WARMUP_ROUNDS = 5;
const CLIENT_LINES = (process.env.BENCH_CLIENTS ?? 'v1,v2').split(',') as ClientLine[];
const TRANSPORTS = (process.env.BENCH_TRANSPORTS ?? 'stdio,http').split(',');
const MANY_TOOLS = 10_000;
const START_PLUGINS = 100;
const START_TOOLS = 20;

const MANY_TOOLS_GOAL_MS = 20;
/** Which parts of the bench run (BENCH_ONLY; see the head of this file). */
const PARTS = new Set(
  (
    process.env.BENCH_ONLY ??
    (process.env.BENCH_ONLY_CALLS !== undefined ? 'calls' : 'calls,isolation,many-tools,start,scripts')
  ).split(','),
);
const PINNED_CPUS = process.env.BENCH_CPUS || undefined;

type ClientLine = 'v1' | 'v2';

/** What the workloads use of a client; both SDK lines' Clients have it. */
interface BenchClient {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  listTools(params?: { cursor?: string }): Promise<{ nextCursor?: string }>;
  close(): Promise<void>;
}

interface Target {
  /** How the figures name it: host, direct, worker, in-process. */
  name: string;
  client: BenchClient;
  /** What it puts before a plugin's own tool name: `bench.` through the host, nothing directly. */
  prefix: string;
}

async function connectStdio(line: ClientLine, command: string, args: string[]): Promise<BenchClient> {
  return (await connectStdioProcess(line, command, args)).client;
}

/**
 * A client of a server process on stdio, and the process's pid (to read its
 * memory). The process gets the SDK's default environment, as from an MCP
 * client, and `env`.
 */
async function connectStdioProcess(
  line: ClientLine,
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ client: BenchClient; pid: number }> {
  const info = { name: 'mcp-host-bench', version: '1.0.0' };
  const spawned = { command, args, stderr: 'ignore' as const, env: { ...getDefaultEnvironment(), ...env } };
  if (line === 'v1') {
    const client = new ClientV1(info);
    const transport = new StdioClientTransportV1(spawned);
    await client.connect(transport);
    return { client, pid: transport.pid! };
  }
  const client = new Client(info);
  const transport = new StdioClientTransport(spawned);
  await client.connect(transport);
  return { client, pid: transport.pid! };
}

/** Start a server process that prints `listening on URL` (on stdout or stderr), and connect to that URL. */
async function connectHttp(line: ClientLine, args: string[], children: ChildProcess[]): Promise<BenchClient> {
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
  const info = { name: 'mcp-host-bench', version: '1.0.0' };
  if (line === 'v1') {
    const client = new ClientV1(info);
    await client.connect(new StreamableHTTPClientTransportV1(new URL(url)));
    return client;
  }
  const client = new Client(info);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/**
 * The host's config; `cached: false` mounts the plugin without its promise
 * of `list_changed`, so the host cannot keep its list's pages.
 */
function hostConfig(cached: boolean, fillers = 20, isolation: Isolation = 'none'): string {
  const dir = join(REPO_ROOT, '.tmp', 'bench');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${cached ? 'cached' : 'uncached'}-${fillers}-${isolation}.config.js`);
  const entry = { package: plugin, isolation, options: { fillers, ...(cached ? {} : { announceChanges: false }) } };
  writeFileSync(file, `export default { plugins: [${JSON.stringify(entry)}], log: { level: 'info' } };\n`);
  return file;
}

type Workload = (target: Target) => Promise<number>;

/**
 * The plugin's two kinds of tool: `echo` validates a zod input schema (in
 * the plugin's server, whoever serves it), `noop_0` has no input schema, so
 * a call to it costs the plugin next to nothing and the path to it shows.
 */
const TOOLS = { zod: 'echo', bare: 'noop_0' } as const;
type ToolKind = keyof typeof TOOLS;
const TOOL_LABELS: Record<ToolKind, string> = { zod: 'zod schema', bare: 'no input schema' };

/** Sequential calls: one at a time, the latency of the path. */
const sequentialCalls =
  (kind: ToolKind): Workload =>
  async ({ client, prefix }) => {
    const name = prefix + TOOLS[kind];
    for (let i = 0; i < CALLS; i++) await client.callTool({ name, arguments: { text: `call ${i}` } });
    return CALLS;
  };

/** 10 calls in flight at once: the throughput of the path. */
const concurrentCalls =
  (kind: ToolKind): Workload =>
  async ({ client, prefix }) => {
    const name = prefix + TOOLS[kind];
    let next = 0;
    const worker = async () => {
      while (next < CALLS) {
        const i = next++;
        await client.callTool({ name, arguments: { text: `call ${i}` } });
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return CALLS;
  };

/** The whole list, every page of it. */
async function listAll(client: BenchClient): Promise<void> {
  let cursor: string | undefined;
  do cursor = (await client.listTools(cursor === undefined ? undefined : { cursor })).nextCursor;
  while (cursor !== undefined);
}

/** Listing 21 tools, one list at a time. */
const listTools: Workload = async ({ client }) => {
  const lists = CALLS / 4;
  for (let i = 0; i < lists; i++) await listAll(client);
  return lists;
};

/** Listing 10,000 tools, one whole list at a time. */
const listManyTools: Workload = async ({ client }) => {
  const lists = 10;
  for (let i = 0; i < lists; i++) await listAll(client);
  return lists;
};

async function timed(workload: Workload, target: Target): Promise<{ ops: number; ms: number }> {
  const started = process.hrtime.bigint();
  const ops = await workload(target);
  return { ops, ms: Number(process.hrtime.bigint() - started) / 1e6 };
}

/**
 * Which goal a row is held to: a ratio subject/baseline, or the subject's
 * time per operation; a row held to none says what it is there to show.
 */
type Goal = { ratio: number } | { ms: number } | { none: string };

/** The sequential and the concurrent `tools/call` rows of one tool kind, `subject` against `baseline`. */
async function measureCalls(
  kind: ToolKind,
  subject: Target,
  baseline: Target,
  sequentialGoal: Goal,
  concurrentGoal: Goal,
): Promise<void> {
  const what = TOOL_LABELS[kind];
  await measure(`tools/call sequential, ${what}`, sequentialCalls(kind), subject, baseline, sequentialGoal);
  await measure(
    `tools/call ${CONCURRENCY} concurrent, ${what}`,
    concurrentCalls(kind),
    subject,
    baseline,
    concurrentGoal,
  );
}

/**
 * `subject` (the host) against `baseline` (direct), in alternating rounds:
 * both figures, and the ratio of the time per operation. The ratio judged is
 * the median of each round's own (the subject's round over the baseline's
 * next to it), with their range beside it: this machine's speed drifts by
 * more than the host's cost within a run, and a ratio of the totals is moved
 * by one slow round on either side (in one quiet run the same host served
 * 3,425 and 5,444 calls/s in two rows a minute apart).
 */
async function measure(
  label: string,
  workload: Workload,
  subject: Target,
  baseline: Target,
  goal: Goal,
): Promise<void> {
  const totals = new Map([subject, baseline].map((target) => [target, { ops: 0, ms: 0 }]));
  const roundRatios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which goes first so neither always runs on a warmer machine.
    const order = round % 2 === 0 ? [subject, baseline] : [baseline, subject];
    const perOpThisRound = new Map<Target, number>();
    for (const target of order) {
      const { ops, ms } = await timed(workload, target);
      totals.get(target)!.ops += ops;
      totals.get(target)!.ms += ms;
      perOpThisRound.set(target, ms / ops);
    }
    roundRatios.push(perOpThisRound.get(subject)! / perOpThisRound.get(baseline)!);
  }
  const [s, b] = [totals.get(subject)!, totals.get(baseline)!];
  const perOp = (t: { ops: number; ms: number }) => t.ms / t.ops;
  const ratio = median(roundRatios);
  const spread = `(rounds ${Math.min(...roundRatios).toFixed(2)}-${Math.max(...roundRatios).toFixed(2)}x)`;
  const figure = (t: { ops: number; ms: number }) =>
    perOp(t) >= 10 ? `${perOp(t).toFixed(1)} ms` : `${((t.ops / t.ms) * 1000).toFixed(0)}/s`;
  const ratioName = `${subject.name}/${baseline.name}`;
  console.log(
    `${label.padEnd(46)} ${baseline.name} ${figure(b).padStart(8)}   ${subject.name} ${figure(s).padStart(8)}   ${ratioName} ${ratio
      .toFixed(2)
      .padStart(5)}x ${spread}   ${verdict(goal, ratio, perOp(s))}`,
  );
}

/** A row's goal and whether it was met, or why it has none. */
function verdict(goal: Goal, ratio: number, msPerOp: number): string {
  if ('none' in goal) return `no goal: ${goal.none}`;
  if ('ratio' in goal) return `goal <= ${goal.ratio.toFixed(2)}x ${ratio <= goal.ratio ? 'met' : 'NOT met'}`;
  return `goal <= ${goal.ms} ms ${msPerOp <= goal.ms ? 'met' : 'NOT met'}`;
}

/**
 * `uncached` is the host serving the plugin with no page cache (see
 * hostConfig); `floor`, when given, the plugin behind the least proxy the
 * SDK allows (bench/sdk-proxy.ts): host/floor is what the host adds to any
 * SDK-built proxy's cost, floor/direct that cost.
 */
async function compare(
  transport: string,
  goals: { sequential: number; concurrent: number },
  host: Target,
  direct: Target,
  uncached: Target,
  line: ClientLine,
  floor?: Target,
  alsoDirect?: Target,
): Promise<void> {
  console.log(
    `\n${transport}, ${line} client: ${ROUNDS} alternating rounds of ${CALLS} calls (load average ${loadAverage()})`,
  );
  // Warm-up to steady state: the host runs more code per call than the
  // direct server, so it needs more calls before the JIT has compiled its
  // hot paths; measuring earlier would charge it for compilation rather
  // than for routing.
  const targets = [host, direct, uncached, ...(floor ? [floor] : []), ...(alsoDirect ? [alsoDirect] : [])];
  for (const target of targets) {
    for (let i = 0; i < WARMUP_ROUNDS; i++) await sequentialCalls(i % 2 === 0 ? 'zod' : 'bare')(target);
  }
  for (const kind of ['bare', 'zod'] as const) {
    await measureCalls(kind, host, direct, { ratio: goals.sequential }, { ratio: goals.concurrent });
  }
  if (alsoDirect) {
    const context = { none: `the other direct server (${alsoDirect.name})` };
    await measureCalls('bare', host, alsoDirect, context, context);
  }
  if (floor) {
    // The floor of any proxy built on the SDK (a second SDK dispatch), re-stated against the fastest direct server.
    const asFloor = { none: 'what a second SDK dispatch costs' };
    const overFloor = { none: 'below 1.00x is under the SDK-proxy floor' };
    await measureCalls('bare', floor, direct, asFloor, asFloor);
    await measureCalls('bare', host, floor, overFloor, overFloor);
  }
  // The host keeps the pages of a plugin that announces its changes; the direct server rebuilds its list every time.
  await measure('tools/list (21, host cached)', listTools, host, direct, { none: 'the cached list, for context' });
  // The routing cost alone: every list reaches the plugin, as the first list after a change does.
  await measure('tools/list (21, first after change)', listTools, uncached, direct, {
    none: 'a list through to the plugin',
  });
  await Promise.all(targets.map((target) => target.client.close()));
}

function loadAverage(): string {
  return loadavg()
    .map((figure) => figure.toFixed(1))
    .join(' ');
}

/**
 * One full list of 10,000 tools over stdio, per client line: the host
 * (cached, and as the first list after a change) against direct, and the
 * cached host against the floor of any server: the same list answered from
 * bytes recorded in advance (serve-recorded-list-stdio.ts), which leaves
 * only what the pipe and the client itself spend.
 */
async function compareManyTools(): Promise<void> {
  const options = { fillers: MANY_TOOLS - 1 };
  const recorded = join(REPO_ROOT, '.tmp', 'bench', 'recorded-list.json');
  for (const line of CLIENT_LINES) {
    console.log(`\n${MANY_TOOLS} tools in one plugin, stdio, ${line} client (load average ${loadAverage()})`);
    const direct: Target = {
      name: 'direct',
      client: await connectStdio(line, node, [directStdio, join(plugin, 'index.js'), JSON.stringify(options)]),
      prefix: '',
    };
    const host = async (cached: boolean): Promise<Target> => ({
      name: 'host',
      client: await connectStdio(line, node, [CLI, 'start', '--config', hostConfig(cached, options.fillers)]),
      prefix: 'bench.',
    });
    const [cached, uncached] = [await host(true), await host(false)];
    // The host's own answer, recorded: the floor answers with the very bytes the host sends.
    writeFileSync(recorded, JSON.stringify(await cached.client.listTools()));
    const floor: Target = {
      name: 'recorded',
      client: await connectStdio(line, node, [recordedList, recorded]),
      prefix: '',
    };
    for (const target of [cached, uncached, direct, floor]) await listManyTools(target);
    await measure('tools/list (10,000, host cached)', listManyTools, cached, direct, { ms: MANY_TOOLS_GOAL_MS });
    await measure('tools/list (10,000, first after change)', listManyTools, uncached, direct, {
      ms: MANY_TOOLS_GOAL_MS,
    });
    await measure('tools/list (10,000, floor)', listManyTools, floor, direct, { ms: MANY_TOOLS_GOAL_MS });
    await measure('tools/list (10,000, host cached)', listManyTools, cached, floor, {
      none: 'the host over answering from recorded bytes',
    });
    await Promise.all([cached, uncached, direct, floor].map((target) => target.client.close()));
  }
}

/** Milliseconds from spawning a server to its first tools/list answered. */
async function timeToFirstList(command: string, args: string[], env?: Record<string, string>): Promise<number> {
  const started = performance.now();
  const { client } = await connectStdioProcess('v2', command, args, env);
  await listAll(client);
  const ms = performance.now() - started;
  await client.close();
  return ms;
}

/**
 * The start rows, to the first tools/list answered over stdio: the host
 * with 100 plugins x 20 tools against the SDK-only proxy importing and
 * creating the same plugins (the least a server of them must do before it
 * lists them), and the host with no plugin against one plugin served
 * directly. Beside them for context: the host with 100 plugins against that
 * direct start, and both hosts with Node's compile cache off
 * (NODE_DISABLE_COMPILE_CACHE; the SDK's servers do not use it). One
 * untimed start of each first, so that every start timed finds the files in
 * the page cache and the host its compile cache; then rounds of one start
 * of each, in turn; the medians are compared.
 */
async function compareStartTime(): Promise<void> {
  const starts = Number(process.env.BENCH_STARTS ?? 5);
  console.log(
    `\nStart to first tools/list answered, stdio (${starts} starts each after one untimed, load average ${loadAverage()})`,
  );
  const ws = makeWorkspace();
  try {
    for (let i = 0; i < START_PLUGINS; i++) writeBenchPlugin(ws, i, '1.0.0', START_TOOLS);
    const config = writeBenchConfig(ws, START_PLUGINS, false);
    const emptyConfig = writeBenchConfig(ws, 0, false, 'empty.config.js');
    const entries = Array.from({ length: START_PLUGINS }, (_, i) => join(ws.dir, `node_modules/@bench/p${i}/index.js`));
    const noCache = { NODE_DISABLE_COMPILE_CACHE: '1' };
    const servers: Record<string, () => Promise<number>> = {
      host: () => timeToFirstList(node, [CLI, 'start', '--config', config]),
      sdkProxy: () => timeToFirstList(node, [sdkProxy, ...entries]),
      emptyHost: () => timeToFirstList(node, [CLI, 'start', '--config', emptyConfig]),
      direct: () => timeToFirstList(node, [directStdio, join(plugin, 'index.js')]),
      hostNoCache: () => timeToFirstList(node, [CLI, 'start', '--config', config], noCache),
      emptyHostNoCache: () => timeToFirstList(node, [CLI, 'start', '--config', emptyConfig], noCache),
    };
    const samples = Object.fromEntries(Object.keys(servers).map((name) => [name, [] as number[]]));
    for (let round = -1; round < starts; round++) {
      for (const [name, start] of Object.entries(servers)) {
        const ms = await start();
        if (round >= 0) samples[name]!.push(ms);
      }
    }
    const at = (name: string) => median(samples[name]!);
    const figure = (name: string) =>
      `median ${at(name).toFixed(0)} ms (${Math.min(...samples[name]!).toFixed(0)}-${Math.max(...samples[name]!).toFixed(0)})`;
    console.log(
      `host, ${START_PLUGINS} plugins x ${START_TOOLS} tools: ${figure('host')}   SDK-only proxy, the same plugins: ${figure('sdkProxy')}   host, no plugin: ${figure('emptyHost')}   one plugin served directly: ${figure('direct')}`,
    );
    console.log(
      `without the compile cache: host, ${START_PLUGINS} plugins: ${figure('hostNoCache')}   host, no plugin: ${figure('emptyHostNoCache')}`,
    );
    const row = (label: string, subject: string, baseline: string, goal: Goal) => {
      const ratio = at(subject) / at(baseline);
      console.log(`${label.padEnd(46)} ${ratio.toFixed(2).padStart(5)}x   ${verdict(goal, ratio, at(subject))}`);
    };
    row(`start, host ${START_PLUGINS}/SDK-only proxy ${START_PLUGINS}`, 'host', 'sdkProxy', {
      ratio: START_GOALS.overSdkProxy,
    });
    row('start, empty host/one plugin direct', 'emptyHost', 'direct', { ratio: START_GOALS.emptyOverDirect });
    row(`start, host ${START_PLUGINS}/one plugin direct`, 'host', 'direct', {
      none: `${START_PLUGINS} plugins created before the first list (Preflight)`,
    });
    row(`start, SDK-only proxy ${START_PLUGINS}/one plugin direct`, 'sdkProxy', 'direct', {
      none: `what creating ${START_PLUGINS} plugins costs any server`,
    });
    row(`start, host ${START_PLUGINS} without/with compile cache`, 'hostNoCache', 'host', {
      none: 'what the compile cache saves',
    });
    row('start, empty host without/with compile cache', 'emptyHostNoCache', 'emptyHost', {
      none: 'what the compile cache saves',
    });
  } finally {
    ws.cleanup();
  }
}

/** The isolation levels and how the figures name them; 'sandbox' only where bubblewrap is installed. */
const LEVELS: [Isolation, string][] = [
  ['none', 'in-process'],
  ['worker', 'worker'],
  ['process', 'process'],
  ...(findBubblewrap() ? [['sandbox', 'sandbox'] as [Isolation, string]] : []),
];

/**
 * The same plugin through the host at each isolation level (docs/isolation.md),
 * over stdio, v2 client, each against in the host's thread: what isolation
 * costs a call (sequential and 10 concurrent), a start (to the first
 * tools/list answered), and memory (the host and every process under it,
 * resident, after the calls: a plugin's own process counts).
 */
async function compareIsolation(): Promise<void> {
  const start = async (name: string, isolation: Isolation): Promise<Target & { pid: number }> => ({
    name,
    prefix: 'bench.',
    ...(await connectStdioProcess('v2', node, [CLI, 'start', '--config', hostConfig(true, 20, isolation)])),
  });
  const targets = [];
  for (const [isolation, name] of LEVELS) targets.push(await start(name, isolation));
  const inProcess = targets[0]!;
  console.log(
    `\nstdio, v2 client, the plugin at each isolation level vs in the host's thread: ${ROUNDS} alternating rounds of ${CALLS} calls (load average ${loadAverage()})`,
  );
  for (const target of targets) for (let i = 0; i < WARMUP_ROUNDS; i++) await sequentialCalls('zod')(target);
  for (const target of targets.slice(1)) {
    const cost = { none: `what isolation '${target.name}' costs` };
    await measureCalls('zod', target, inProcess, cost, cost);
  }
  await measure('tools/list (21, host cached)', listTools, targets[1]!, inProcess, {
    none: 'what a worker thread costs',
  });
  const resident = targets.map((target) => `${target.name} ${(residentKb(target.pid) / 1024).toFixed(1)} MB`);
  console.log(`${'host and its processes, resident'.padEnd(34)} ${resident.join('   ')}`);
  await Promise.all(targets.map((target) => target.client.close()));

  const starts = Number(process.env.BENCH_STARTS ?? 5);
  const medians: string[] = [];
  for (const [isolation, name] of LEVELS) {
    const samples: number[] = [];
    const config = hostConfig(true, 20, isolation);
    for (let i = 0; i < starts; i++) samples.push(await timeToFirstList(node, [CLI, 'start', '--config', config]));
    medians.push(`${name} ${[...samples].sort((a, b) => a - b)[Math.floor(starts / 2)]!.toFixed(0)} ms`);
  }
  console.log(`${'start to first tools/list, median'.padEnd(34)} ${medians.join('   ')}`);
}

const node = process.execPath;
const directStdio = join(REPO_ROOT, 'dist/bench/serve-direct-stdio.js');
const sdkProxy = join(REPO_ROOT, 'dist/bench/serve-sdk-proxy-stdio.js');
const recordedList = join(REPO_ROOT, 'dist/bench/serve-recorded-list-stdio.js');
const directHttp = join(REPO_ROOT, 'dist/bench/serve-direct-http.js');
const handlerHttp = join(REPO_ROOT, 'dist/bench/serve-handler-http.js');
const sdkProxyHttp = join(REPO_ROOT, 'dist/bench/serve-sdk-proxy-http.js');
const config = hostConfig(true);
const uncachedConfig = hostConfig(false);
const pinnedNote = PINNED_CPUS
  ? `; BENCH_CPUS=${PINNED_CPUS}: the call rows on CPU ${PINNED_CPUS}, stdio's unpinned too`
  : '';
console.log(
  `mcp-host bench (node ${process.version}${pinnedNote}): host/direct is the time per call through the host over direct`,
);

/** The stdio call rows of one client line: host, direct, the uncached host and the SDK-only proxy, started now. */
async function compareStdio(line: ClientLine, placement: string): Promise<void> {
  await compare(
    `stdio${placement}`,
    RATIO_GOALS.stdio,
    { name: 'host', client: await connectStdio(line, node, [CLI, 'start', '--config', config]), prefix: 'bench.' },
    { name: 'direct', client: await connectStdio(line, node, [directStdio, join(plugin, 'index.js')]), prefix: '' },
    {
      name: 'host',
      client: await connectStdio(line, node, [CLI, 'start', '--config', uncachedConfig]),
      prefix: 'bench.',
    },
    line,
    {
      name: 'sdk-proxy',
      client: await connectStdio(line, node, [sdkProxy, join(plugin, 'index.js')]),
      prefix: '',
    },
  );
}

/** The Streamable HTTP call rows of one client line, against `createMcpHandler` (and the sessionful wiring beside). */
async function compareHttp(line: ClientLine, placement: string): Promise<void> {
  const children: ChildProcess[] = [];
  try {
    await compare(
      `Streamable HTTP${placement}`,
      RATIO_GOALS['Streamable HTTP'],
      {
        name: 'host',
        client: await connectHttp(line, [CLI, 'start', '--config', config, '--http', '127.0.0.1:0'], children),
        prefix: 'bench.',
      },
      {
        name: 'direct',
        client: await connectHttp(line, [handlerHttp, join(plugin, 'index.js'), '127.0.0.1:0'], children),
        prefix: '',
      },
      {
        name: 'host',
        client: await connectHttp(line, [CLI, 'start', '--config', uncachedConfig, '--http', '127.0.0.1:0'], children),
        prefix: 'bench.',
      },
      line,
      {
        name: 'sdk-proxy',
        client: await connectHttp(line, [sdkProxyHttp, join(plugin, 'index.js'), '127.0.0.1:0'], children),
        prefix: '',
      },
      {
        name: 'direct-sessions',
        client: await connectHttp(line, [directHttp, join(plugin, 'index.js'), '127.0.0.1:0'], children),
        prefix: '',
      },
    );
  } finally {
    for (const child of children) child.kill('SIGTERM');
  }
}

/** `work` on BENCH_CPUS when it is set (its servers started inside stay there), else as the kernel places it. */
const onBenchCpus = (work: (placement: string) => Promise<void>): Promise<void> =>
  PINNED_CPUS ? whilePinned(PINNED_CPUS, () => work(`, pinned to CPU ${PINNED_CPUS}`)) : work('');

if (PARTS.has('calls')) {
  for (const line of CLIENT_LINES) {
    if (TRANSPORTS.includes('stdio')) {
      await onBenchCpus((placement) => compareStdio(line, placement));
      // Beside the pinned rows, for context: where the kernel puts client and server is part of what a user sees.
      if (PINNED_CPUS) await compareStdio(line, ', unpinned (context: the pinned rows are judged)');
    }
    if (TRANSPORTS.includes('http')) await onBenchCpus((placement) => compareHttp(line, placement));
  }
}
if (PARTS.has('isolation')) await compareIsolation();
if (PARTS.has('many-tools')) await compareManyTools();
if (PARTS.has('start')) await compareStartTime();

// CPU per call (cpu-per-call.ts, which pins itself to BENCH_CPUS too), reload figures (latency from trigger to list_changed, memory across 1,000 reloads), curation's, telemetry's and OAuth token checks' and the access rules' cost, discovery's recall and search latency (discovery.ts), each in its own process.
for (const script of PARTS.has('scripts')
  ? [
      'cpu-per-call.js',
      'reload-latency.js',
      'reload-memory.js',
      'curation.js',
      'telemetry.js',
      'oauth-verification.js',
      'access-rules.js',
      'discovery.js',
    ]
  : []) {
  console.log('');
  if (spawnSync(node, [join(REPO_ROOT, 'dist/bench', script)], { stdio: 'inherit' }).status !== 0) process.exitCode = 1;
}
