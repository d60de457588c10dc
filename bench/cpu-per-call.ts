/**
 * CPU time per call (part of `npm run bench`): what the serving process
 * spends on each `tools/call`, through the host and served directly
 * (`serveStdio`), read from the kernel's account of every thread of the
 * process (`/proc/PID/task/TID/schedstat`, in nanoseconds) over a fixed
 * number of sequential calls after a warm-up. Unlike a wall-clock rate it
 * hardly moves with the machine's load (other processes' time is not
 * counted), so the host's own cost can be judged on a busy machine. The
 * servers compared are all started at once and measured in alternating
 * rounds (BENCH_CPU_ROUNDS, 10), so that a drift in the machine's speed
 * during the run, which on a shared 2-core machine moves a server's figure
 * by more than the host's whole cost, falls on all of them alike. Each
 * client line is measured, since the client is the same on both sides; the
 * client's own CPU per call is printed too, and the sequential ratio it
 * implies when the client, the server and the pipe take turns (as one call
 * at a time does): (client + host) / (client + direct). The SDK-only proxy
 * (sdk-proxy.ts) is measured beside them: the floor of a second SDK
 * dispatch.
 *
 * Over Streamable HTTP (2025-era sessions) the direct server is
 * `createMcpHandler` (serve-handler-http.ts), the goal's baseline, and the
 * SDK-only proxy is served on the sessionful wiring (streamable-http.ts);
 * the implied ratio is judged against HTTP's goal (goals.ts).
 *
 * Each row also prints the median wall-clock time of one call to each
 * server: the typical call, without the garbage collections a mean
 * spreads over every call. Run with BENCH_CPUS=0 (bench-cpus.ts: every
 * process on one CPU) it is the steadiest figure of what the host adds to
 * a call's latency on a 2-vCPU machine, where unpinned calls take 40 µs or
 * 180 µs depending on where the kernel puts the two processes.
 *
 * BENCH_CPU_CALLS (10,000) sets the number of calls measured, over
 * BENCH_CPU_ROUNDS (10) rounds;
 * BENCH_TRANSPORTS (`stdio,http`) narrows the transports;
 * BENCH_OTHER_CLI names another build's `dist/bundle/cli.js` to measure
 * beside this one (e.g. the commit before a change).
 */
import './abort-signal-warnings.js';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioClientTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as StreamableHTTPClientTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CLI } from '../test/helpers/host.js';
import { REPO_ROOT } from '../test/helpers/packages.js';
import { cpusNote, runOnBenchCpus } from './bench-cpus.js';
import { median } from './median.js';
import { RATIO_GOALS } from './goals.js';

runOnBenchCpus();

const CALLS = Number(process.env.BENCH_CPU_CALLS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_CPU_ROUNDS ?? 10);
const TRANSPORTS = (process.env.BENCH_TRANSPORTS ?? 'stdio,http').split(',') as Transport[];
const WARMUP = 3_000;
/** Issue #42's sequential goal per transport (goals.ts), held to the ratio the CPU times imply. */
const SEQUENTIAL_GOAL: Record<Transport, number> = {
  stdio: RATIO_GOALS.stdio.sequential,
  http: RATIO_GOALS['Streamable HTTP'].sequential,
};
const plugin = join(REPO_ROOT, 'bench/echo-plugin');

type Transport = 'stdio' | 'http';

interface Served {
  name: string;
  tool: string;
  call(name: string): Promise<unknown>;
  pid: number;
  close(): Promise<void>;
}

/** CPU seconds a process's threads have run (the GC's and the compiler's helpers included). */
function cpuSeconds(pid: number): number {
  let nanoseconds = 0;
  for (const thread of readdirSync(`/proc/${pid}/task`)) {
    try {
      nanoseconds += Number(readFileSync(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended between the listing and the read: its time is in no later reading either.
    }
  }
  return nanoseconds / 1e9;
}

const info = { name: 'mcp-host-bench', version: '1.0.0' };
const call =
  (client: { callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown> }) =>
  (n: string) =>
    client.callTool({ name: n, arguments: { text: 'x' } });

async function serve(over: Transport, line: 'v1' | 'v2', name: string, args: string[], tool: string): Promise<Served> {
  if (over === 'http') return serveHttp(line, name, args, tool);
  if (line === 'v1') {
    const client = new ClientV1(info);
    const transport = new StdioClientTransportV1({ command: process.execPath, args, stderr: 'ignore' });
    await client.connect(transport);
    return { name, tool, call: call(client), pid: transport.pid!, close: () => client.close() };
  }
  const client = new Client(info);
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' });
  await client.connect(transport);
  return { name, tool, call: call(client), pid: transport.pid!, close: () => client.close() };
}

/** `args` serve over HTTP on a free port of 127.0.0.1 and print the URL they listen on (the host logs it at info). */
async function serveHttp(line: 'v1' | 'v2', name: string, args: string[], tool: string): Promise<Served> {
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, MCP_HOST_LOG_LEVEL: 'info' },
  });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const look = (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening on (http:\/\/\S+\/mcp)/.exec(seen);
      if (match) resolve(match[1]!);
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}) before listening:\n${seen}`)));
  });
  const stop = async () => {
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
  };
  const client = line === 'v1' ? new ClientV1(info) : new Client(info);
  await client.connect(
    line === 'v1' ? new StreamableHTTPClientTransportV1(new URL(url)) : new StreamableHTTPClientTransport(new URL(url)),
  );
  return {
    name,
    tool,
    call: call(client),
    pid: child.pid!,
    close: async () => {
      await client.close();
      await stop();
    },
  };
}

/**
 * CPU ms per call of each server and of this (the client's) process for
 * it, and the median µs of one call: every target warmed up, then CALLS
 * sequential calls each, in ROUNDS alternating rounds; then they are closed.
 */
async function measure(targets: Served[]): Promise<{ server: number; client: number; medianCall: number }[]> {
  for (const target of targets) for (let i = 0; i < WARMUP; i++) await target.call(target.tool);
  const used = targets.map(() => ({ server: 0, client: 0, callMs: [] as number[] }));
  const perRound = Math.ceil(CALLS / ROUNDS);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, target] of targets.entries()) {
      const account = used[index]!;
      const [server, client] = [cpuSeconds(target.pid), process.cpuUsage()];
      for (let i = 0; i < perRound; i++) {
        const started = performance.now();
        await target.call(target.tool);
        account.callMs.push(performance.now() - started);
      }
      const clientUsed = process.cpuUsage(client);
      account.server += cpuSeconds(target.pid) - server;
      account.client += (clientUsed.user + clientUsed.system) / 1e6;
    }
  }
  for (const target of targets) await target.close();
  return used.map(({ server, client, callMs }) => ({
    server: (server * 1000) / callMs.length,
    client: (client * 1000) / callMs.length,
    medianCall: median(callMs) * 1000,
  }));
}

const dir = join(REPO_ROOT, '.tmp', 'bench');
mkdirSync(dir, { recursive: true });
const config = join(dir, 'cpu-per-call.config.js');
writeFileSync(
  config,
  `export default { plugins: [${JSON.stringify({ package: plugin })}], log: { level: 'warn' } };\n`,
);
const hosts = [
  { name: 'host', cli: CLI },
  ...(process.env.BENCH_OTHER_CLI ? [{ name: 'other host', cli: process.env.BENCH_OTHER_CLI }] : []),
];

/** What each transport serves the plugin with: directly, and behind the SDK-only proxy. */
const SERVERS: Record<Transport, { direct: string[]; floor: string[]; host: string[] }> = {
  stdio: {
    direct: [join(REPO_ROOT, 'dist/bench/serve-direct-stdio.js'), join(plugin, 'index.js')],
    floor: [join(REPO_ROOT, 'dist/bench/serve-sdk-proxy-stdio.js'), join(plugin, 'index.js')],
    host: [],
  },
  http: {
    direct: [join(REPO_ROOT, 'dist/bench/serve-handler-http.js'), join(plugin, 'index.js'), '127.0.0.1:0'],
    floor: [join(REPO_ROOT, 'dist/bench/serve-sdk-proxy-http.js'), join(plugin, 'index.js'), '127.0.0.1:0'],
    host: ['--http', '127.0.0.1:0'],
  },
};

for (const transport of TRANSPORTS) {
  const servers = SERVERS[transport];
  for (const line of ['v1', 'v2'] as const) {
    console.log(
      `\nCPU time per tools/call, ${transport}, ${line} client, ${CALLS} sequential calls in ${ROUNDS} alternating rounds after ${WARMUP}${transport === 'http' ? ' (direct: createMcpHandler)' : ''}${cpusNote()}`,
    );
    for (const tool of ['noop_0', 'echo']) {
      const kind = tool === 'echo' ? 'zod schema' : 'no input schema';
      // The floor of any SDK-built proxy (a second SDK dispatch) is measured beside them: the host is to be under it.
      const results = await measure([
        await serve(transport, line, 'direct', servers.direct, tool),
        await serve(transport, line, 'sdk-proxy', servers.floor, tool),
        ...(await Promise.all(
          hosts.map(({ name, cli }) =>
            serve(transport, line, name, [cli, 'start', '--config', config, ...servers.host], `bench.${tool}`),
          ),
        )),
      ]);
      // In the order served: direct, the floor, then each host.
      const [direct, floor] = [results[0]!, results[1]!];
      for (const [index, { name }] of hosts.entries()) {
        const host = results[2 + index]!;
        const implied = (direct.client + host.server) / (direct.client + direct.server);
        console.log(
          `${`tools/call ${kind}, ${name}`.padEnd(46)} direct ${direct.server.toFixed(3)} ms   ${name} ${host.server.toFixed(3)} ms   client ${direct.client.toFixed(3)} ms   implied ${name}/direct ${implied.toFixed(2)}x   goal <= ${SEQUENTIAL_GOAL[transport].toFixed(2)}x ${implied <= SEQUENTIAL_GOAL[transport] ? 'met' : 'NOT met'}   median call ${direct.medianCall.toFixed(0)} / ${host.medianCall.toFixed(0)} µs (${(host.medianCall / direct.medianCall).toFixed(2)}x)`,
        );
      }
      console.log(
        `${`tools/call ${kind}, sdk-proxy`.padEnd(46)} direct ${direct.server.toFixed(3)} ms   sdk-proxy ${floor.server.toFixed(3)} ms   no goal: the floor the host is to be under`,
      );
    }
  }
}
process.exit();
