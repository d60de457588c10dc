/**
 * Soak: the host under load while it is reloaded and its external child is
 * killed. `mcp-host start --http` runs as a child process with four mounts:
 *
 * - `steady` (in process): never touched; the same package also mounted as
 *   `steadyproc` in a process of its own (`isolation: 'process'`) and, where
 *   bubblewrap is installed, as `steadybox` in the sandbox (`'sandbox'`);
 * - `churn` (in a worker thread, `isolation: 'worker'`): upgraded (new version,
 *   new code) every third reload, each upgrade a new worker;
 * - `extra` (in process): added and removed on alternate reloads;
 * - `child` (a stdio server): SIGKILLed every few seconds, and brought back
 *   by its supervisor;
 * - `faulty` (in process): each instance throws from a timer a few seconds
 *   after it is created (an uncaught exception outside any request), so its
 *   supervisor withdraws it and creates a fresh one, again and again.
 *
 * CLIENTS 2025-era clients over Streamable HTTP call tools continuously,
 * each picking from its own tools/list, which it refreshes on every
 * `tools/list_changed`, as a real client does. At the end, with reloads and
 * kills stopped and every mount back up, each client's list must equal a
 * fresh client's.
 *
 * It reports calls made and failed (and why), notifications received, the
 * host's memory (RSS, and live heap after full GCs) through the run, and
 * p50/p99 call latency. The goal:
 * zero failed calls that were not to a deliberately removed or killed mount,
 * every client's final tools/list equal to the host's, the live heap flat
 * once warm (see heapGrowthMiB).
 *
 * `npm run soak` (SOAK_SECONDS, default 60; SOAK_CLIENTS, default 20;
 * SOAK_RELOAD_MS, default 1000; SOAK_KILL_MS, default 3000; SOAK_FAULT_MS,
 * default 3000; 0 turns any of them off, for a baseline). Exits 1 when a goal is missed. `runSoak` is the same run, for the test suite's short one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { CLI } from '../test/helpers/host.js';
import { makeWorkspace, type Workspace } from '../test/helpers/packages.js';
import { findBubblewrap } from '../host/loader/sandbox-available.js';
import { median } from './median.js';

export interface SoakOptions {
  seconds: number;
  clients: number;
  reloadEveryMs: number;
  killEveryMs: number;
  /** How long after its creation each instance of `faulty` throws from a timer (0: never). */
  faultEveryMs: number;
  /** Progress lines (to stderr when run as a script). */
  log?: (line: string) => void;
}

export interface SoakReport {
  options: Omit<SoakOptions, 'log'>;
  reloads: { total: number; added: number; removed: number; upgraded: number; refused: number };
  /** Why each refused reload was refused, as the host logged it. */
  refusals: string[];
  kills: number;
  /** Faults of `faulty` the host logged (and recovered from). */
  faults: number;
  calls: number;
  /** Failures of calls to a mount that was deliberately removed or killed, by reason. */
  expectedFailures: Record<string, number>;
  /** Every other failure, by reason: the goal is none. */
  unexpectedFailures: Record<string, number>;
  notifications: number;
  latencyMs: { p50: number; p99: number };
  /**
   * The host's memory every SAMPLE_EVERY_MS through the run, in MiB: its
   * resident set, and its live heap after a full GC run then (what a leak
   * grows; RSS also holds what V8 has not given back); `heapGrowth` is what
   * `heapGrowthMiB` reads in those samples.
   */
  memoryMiB: { rss: number[]; heapAfterGc: number[]; fullGcs: number; heapGrowth: number };
  /** Clients whose final tools/list equals a fresh client's. */
  finalListsEqual: number;
  /** The host's final tools/list. */
  finalTools: string[];
}

/** How often the soak has the host collect garbage and reads the live heap it leaves. */
const SAMPLE_EVERY_MS = 500;

/** The most the live heap may grow (see heapGrowthMiB) for the soak to call memory flat. */
export const MAX_HEAP_GROWTH_MIB = 3;

/**
 * How much the live heap grew once the host was warm: the median of the
 * last quarter's samples less the median of the second quarter's. The first
 * quarter is warm-up (code compiled on first use, pools and caches filling
 * to their bounds: 25 to 28 MiB in its first 6 s, standalone), which is not
 * growth; a median, not one sample, because a sample taken while a replaced
 * generation or worker is still draining reads high for a moment. A leak
 * grows with the work done, so it shows between the two.
 */
export function heapGrowthMiB(samples: number[]): number {
  const quarter = Math.max(1, Math.floor(samples.length / 4));
  const growth = median(samples.slice(-quarter)) - median(samples.slice(quarter, 2 * quarter));
  return Math.round(growth * 10) / 10;
}

/**
 * The failures a call may meet by design, per mount, and nothing else:
 * `extra`, removed on every other reload, is gone (or its last calls are
 * cut at the drain); `child`, SIGKILLed, is down or went down mid-call, and
 * only while it is (see \`childDown\`: from a kill until the host is ready again);
 * `faulty`, which faults from a timer, is down or had its call cut by the fault.
 */
const REMOVED_EXTRA = /^extra\.echo: (Unknown tool "extra\.echo"|.*a reload removed or replaced this plugin)/;
const KILLED_CHILD =
  /^child\.echo: (plugin "child" \(soak-child\): is down|mount "child" closed the connection before answering|.*could not send to mount "child"|.*mount "child" is not connected)/;
const FAULTED_PLUGIN =
  /^faulty\.echo: (plugin "faulty" \(@soak\/faulty\): is down|mount "faulty" closed the connection before answering)/;

const text = (value: string) => `({ content: [{ type: 'text', text: ${value} }] })`;

function writePlugin(ws: Workspace, name: string, version: string, slowMs = 0): void {
  const dir = `node_modules/@soak/${name}`;
  const files = {
    'index.js': `import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { VERSION } from './version.js';
export default {
  create() {
    const server = new McpServer({ name: '${name}', version: VERSION });
    server.registerTool('echo', { description: 'Echo (' + VERSION + ')', inputSchema: z.object({ text: z.string() }) },
      async ({ text }) => {
        ${slowMs > 0 ? `await new Promise((resolve) => setTimeout(resolve, ${slowMs}));` : ''}
        return ${text("text + ' from ' + VERSION")};
      });
    return server;
  },
};
`,
    'version.js': `export const VERSION = '${version}';\n`,
  };
  const manifest = {
    name: `@soak/${name}`,
    version,
    type: 'module',
    exports: './index.js',
    'mcp-host': { prefix: name },
  };
  // As npm does an upgrade: the new package is written beside the old and
  // moved in, so a reload never reads a half-written one.
  const staging = `${dir}.next`;
  ws.writePackage(staging, manifest, files);
  rmSync(join(ws.dir, dir), { recursive: true, force: true });
  renameSync(join(ws.dir, staging), join(ws.dir, dir));
}

/** A stdio MCP server written by hand, recording its pid so that it can be killed. */
const CHILD_SERVER = `#!/usr/bin/env node
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
appendFileSync(process.env.PID_FILE, process.pid + '\\n');
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\\n');
createInterface({ input: process.stdin }).on('line', (line) => {
  const { id, method, params } = JSON.parse(line);
  if (method === 'initialize') {
    send({ id, result: { protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'soak-child', version: '1.0.0' } } });
  } else if (method === 'tools/list') {
    send({ id, result: { tools: [{ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }] } });
  } else if (method === 'tools/call') {
    send({ id, result: { content: [{ type: 'text', text: params.arguments.text + ' from the child' }] } });
  } else if (method === 'ping') {
    send({ id, result: {} });
  } else if (id !== undefined) {
    send({ id, error: { code: -32601, message: 'Method not found' } });
  }
});
`;

/**
 * A plugin whose every instance throws from a timer `faultAfterMs` after it
 * is created, until the file `calmFile` exists (the run is over).
 */
function writeFaultyPlugin(ws: Workspace): void {
  ws.writePackage(
    'node_modules/@soak/faulty',
    { name: '@soak/faulty', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': { prefix: 'faulty' } },
    {
      'index.js': `import { existsSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
export default {
  create({ options: { faultAfterMs, calmFile } }) {
    if (faultAfterMs > 0) {
      setTimeout(() => {
        if (!existsSync(calmFile)) throw new Error('soak: a fault from a timer');
      }, faultAfterMs).unref();
    }
    const server = new McpServer({ name: 'faulty', version: '1.0.0' });
    server.registerTool('echo', { description: 'Echo, until it faults', inputSchema: z.object({ text: z.string() }) },
      async ({ text }) => ${text("text + ' from faulty'")});
    return server;
  },
};
`,
    },
  );
}

interface SoakConfig {
  withExtra: boolean;
  pidFile: string;
  faultAfterMs: number;
  calmFile: string;
}

/**
 * The config, replaced whole (written beside it, then renamed over it): a reload still running from the last
 * step's SIGHUP, late on a loaded machine, may read the file at any moment, and a file rewritten in place is
 * empty for a moment; the host rightly refuses that reload, and the soak would count a refusal of its own making.
 */
function writeConfig(ws: Workspace, soakConfig: SoakConfig): string {
  const next = ws.writeConfig(soakConfigObject(soakConfig), 'mcp-host.config.next.js');
  const config = join(ws.dir, 'mcp-host.config.js');
  renameSync(next, config);
  return config;
}

function soakConfigObject({ withExtra, pidFile, faultAfterMs, calmFile }: SoakConfig): Record<string, unknown> {
  return {
    plugins: [
      { package: '@soak/steady' },
      { package: '@soak/steady', prefix: 'steadyproc', isolation: 'process' },
      ...(findBubblewrap() ? [{ package: '@soak/steady', prefix: 'steadybox', isolation: 'sandbox' }] : []),
      { package: '@soak/faulty', options: { faultAfterMs, calmFile } },
      { package: '@soak/churn', isolation: 'worker' },
      ...(withExtra ? [{ package: '@soak/extra' }] : []),
      { package: 'soak-child', prefix: 'child', env: { PID_FILE: pidFile } },
    ],
    // Reloads are driven by SIGHUP, one per step, so that each step is one reload.
    reload: { watch: false, drainTimeoutMs: 5_000 },
    upstreams: { reconnectDelayMs: 100, maxReconnectDelayMs: 400 },
    // Each session keeps its recent SSE events for clients that resume (http.eventStoreBytes, 1 MiB by
    // default): memory that fills up to its bound and then stays. A small bound fills within the first
    // seconds, so what the live heap does after that is the host's own growth, not a store filling.
    http: { host: '127.0.0.1', port: 0, eventStoreBytes: 16 * 1024 },
    log: { level: 'info' },
  };
}

/** One client: it calls tools from its own list, and relists on every tools/list_changed. */
class SoakClient {
  readonly client = new Client({ name: 'soak', version: '1.0.0' });
  known: string[] = [];
  notifications = 0;
  private relisting?: Promise<void>;
  private stale = false;

  async connect(url: string): Promise<void> {
    this.client.setNotificationHandler('notifications/tools/list_changed', () => {
      this.notifications++;
      this.relist();
    });
    await this.client.connect(new StreamableHTTPClientTransport(new URL(url)));
    await this.refresh();
  }

  /** Relist now, or once more after the relist in progress (notifications arrive in bursts). */
  relist(): void {
    if (this.relisting) {
      this.stale = true;
      return;
    }
    this.relisting = (async () => {
      do {
        this.stale = false;
        await this.refresh().catch(() => {
          this.stale = true; // a list refused mid-reload: try again after a beat
          return sleep(50);
        });
      } while (this.stale);
      this.relisting = undefined;
    })();
  }

  /** Wait for the relisting in progress, if any. */
  async settled(): Promise<void> {
    while (this.relisting) await this.relisting;
  }

  private async refresh(): Promise<void> {
    this.known = (await this.client.listTools()).tools.map((tool) => tool.name).sort();
  }
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? 0);
  return Math.round((kb / 1024) * 10) / 10;
}

/** How many times the child has started: each start appends its pid. */
function childStarts(pidFile: string): number {
  return readFileSync(pidFile, 'utf8').trim().split('\n').length;
}

/** A pid-less or dead child is simply not killed this time. */
function killChild(pidFile: string): boolean {
  const pid = Number(readFileSync(pidFile, 'utf8').trim().split('\n').at(-1));
  try {
    process.kill(pid, 'SIGKILL');
    return true;
  } catch {
    return false;
  }
}

/** The reason of a failure, without what varies from one to the next (pids, ids, timings). */
function reasonOf(error: unknown): string {
  return String((error as Error)?.message ?? error)
    .replace(/pid \d+/g, 'pid N')
    .replace(/\d+ ms/g, 'N ms')
    .slice(0, 200);
}

export interface SoakHost {
  url: string;
  child: ChildProcess;
  log: () => string;
  /** Each full (mark-compact) GC so far: when, and the live heap it left. */
  fullGcs: { at: number; heapMiB: number }[];
  /** Have the host run a full GC now; resolves with the live heap it left, in MiB. */
  collectGarbage(): Promise<number>;
}

/** Preloaded into the host: a full GC on SIGUSR2 (see gc-on-signal.ts). */
const GC_ON_SIGNAL = fileURLToPath(new URL('./gc-on-signal.js', import.meta.url));

/**
 * The host over HTTP, with V8's GC trace on its stdout (unused when serving
 * HTTP): a mark-compact line says how much heap was still live after it.
 */
export async function startHost(config: string, env: NodeJS.ProcessEnv): Promise<SoakHost> {
  const child = spawn(
    process.execPath,
    ['--trace-gc', '--expose-gc', '--import', GC_ON_SIGNAL, CLI, 'start', '--config', config, '--http', '127.0.0.1:0'],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const fullGcs: SoakHost['fullGcs'] = [];
  let hostIsolate: string | undefined;
  child.stdout!.setEncoding('utf8');
  let partial = '';
  child.stdout!.on('data', (text: string) => {
    const lines = (partial + text).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      // --trace-gc prints every isolate's collections, a worker plugin's too: the host's own heap is
      // the isolate heard first (its start-up collects before any worker exists).
      const isolate = /^\[\d+:(0x[0-9a-f]+)\]/.exec(line)?.[1];
      if (isolate === undefined) continue;
      hostIsolate ??= isolate;
      if (isolate !== hostIsolate) continue;
      const after = /Mark-Compact [\d.]+ \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB/.exec(line)?.[1];
      if (after) fullGcs.push({ at: Date.now(), heapMiB: Number(after) });
    }
  });
  let log = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      const match = /listening on (http:\/\/[^\s"]+)/.exec(log);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the host exited (${code}) before listening:\n${log}`)));
  });
  const collectGarbage = async () => {
    const before = fullGcs.length;
    child.kill('SIGUSR2');
    while (fullGcs.length === before) await sleep(10);
    return fullGcs.at(-1)!.heapMiB;
  };
  return { url, child, log: () => log, fullGcs, collectGarbage };
}

export async function waitUntilReady(url: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while ((await fetch(url.replace(/\/mcp$/, '/readyz')).catch(() => undefined))?.status !== 200) {
    if (Date.now() > deadline) throw new Error(`the host was not ready (every mount up) within ${ms} ms`);
    await sleep(50);
  }
}

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const log = options.log ?? (() => {});
  const ws = makeWorkspace();
  ws.writeFile('run/.keep', '');
  const pidFile = join(ws.dir, 'child.pids');
  writePlugin(ws, 'steady', '1.0.0');
  writePlugin(ws, 'churn', '1.0.0', 20);
  writePlugin(ws, 'extra', '1.0.0');
  ws.writePackage(
    'node_modules/soak-child',
    { name: 'soak-child', version: '1.0.0', type: 'module', bin: { 'soak-child': 'server.js' } },
    { 'server.js': CHILD_SERVER },
  );
  writeFaultyPlugin(ws);
  const soakConfig: SoakConfig = {
    withExtra: true,
    pidFile,
    faultAfterMs: options.faultEveryMs,
    calmFile: join(ws.dir, 'calm'),
  };
  const config = writeConfig(ws, soakConfig);
  const host = await startHost(config, { XDG_RUNTIME_DIR: join(ws.dir, 'run'), MCP_HOST_LOG_LEVEL: 'info' });
  const hostPid = host.child.pid!;
  const report: SoakReport = {
    options: {
      seconds: options.seconds,
      clients: options.clients,
      reloadEveryMs: options.reloadEveryMs,
      killEveryMs: options.killEveryMs,
      faultEveryMs: options.faultEveryMs,
    },
    reloads: { total: 0, added: 0, removed: 0, upgraded: 0, refused: 0 },
    refusals: [],
    kills: 0,
    faults: 0,
    calls: 0,
    expectedFailures: {},
    unexpectedFailures: {},
    notifications: 0,
    latencyMs: { p50: 0, p99: 0 },
    memoryMiB: { rss: [], heapAfterGc: [], fullGcs: 0, heapGrowth: 0 },
    finalListsEqual: 0,
    finalTools: [],
  };
  const clients = Array.from({ length: options.clients }, () => new SoakClient());
  try {
    await waitUntilReady(host.url, 10_000);
    await Promise.all(clients.map((client) => client.connect(host.url)));
    log(`soak: ${options.clients} clients connected to ${host.url}; running ${options.seconds} s`);

    const latencies: number[] = [];
    const count = (table: Record<string, number>, reason: string) => (table[reason] = (table[reason] ?? 0) + 1);
    /** From each kill of the child until the host reported every mount up again. */
    const childDown: { from: number; to: number }[] = [];
    /** Failed calls to the child, judged once the kills' windows are known. */
    const childFailures: { from: number; to: number; reason: string }[] = [];
    const deadline = Date.now() + options.seconds * 1000;
    let running = true;
    const callLoop = async (soaker: SoakClient, index: number) => {
      for (let n = 0; running; n++) {
        const tools = soaker.known.length > 0 ? soaker.known : ['steady.echo'];
        const name = tools[(index + n) % tools.length]!;
        const started = performance.now();
        try {
          await soaker.client.callTool({ name, arguments: { text: `call ${n}` } });
          latencies.push(performance.now() - started);
        } catch (error) {
          const reason = `${name}: ${reasonOf(error)}`;
          if (KILLED_CHILD.test(reason))
            childFailures.push({ from: Date.now() - (performance.now() - started), to: Date.now(), reason });
          else {
            const expected = REMOVED_EXTRA.test(reason) || FAULTED_PLUGIN.test(reason);
            count(expected ? report.expectedFailures : report.unexpectedFailures, reason);
          }
        }
        report.calls++;
      }
    };
    const loops = clients.map(callLoop);

    // Disruptions, each on its own clock: a reload every reloadEveryMs, a kill every killEveryMs.
    const reloads = (async () => {
      for (let step = 1; options.reloadEveryMs > 0 && Date.now() < deadline; step++) {
        await sleep(options.reloadEveryMs);
        soakConfig.withExtra = !soakConfig.withExtra;
        report.reloads[soakConfig.withExtra ? 'added' : 'removed']++;
        if (step % 3 === 0) {
          writePlugin(ws, 'churn', `1.0.${step}`, 20);
          report.reloads.upgraded++;
        }
        writeConfig(ws, soakConfig);
        process.kill(hostPid, 'SIGHUP');
        report.reloads.total++;
      }
    })();
    const kills = (async () => {
      while (options.killEveryMs > 0 && Date.now() < deadline) {
        await sleep(options.killEveryMs);
        const from = Date.now();
        const started = childStarts(pidFile);
        if (from < deadline && killChild(pidFile)) {
          report.kills++;
          // Down until its successor has started (so the host saw the death) and the host is ready again.
          while (childStarts(pidFile) === started) await sleep(20);
          await waitUntilReady(host.url, 10_000);
          childDown.push({ from, to: Date.now() });
        }
      }
    })();
    const started = Date.now();
    const sampleTimes = Array.from(
      { length: Math.floor((options.seconds * 1000) / SAMPLE_EVERY_MS) },
      (_, n) => started + SAMPLE_EVERY_MS * (n + 1),
    );
    const sampler = (async () => {
      for (const at of sampleTimes) {
        await sleep(Math.max(0, at - Date.now()));
        report.memoryMiB.rss.push(rssMiB(hostPid));
        report.memoryMiB.heapAfterGc.push(await host.collectGarbage());
      }
    })();

    await Promise.all([reloads, kills, sampler]);
    running = false;
    await Promise.all(loops);
    report.memoryMiB.fullGcs = host.fullGcs.filter((gc) => gc.at >= started).length;
    report.memoryMiB.heapGrowth = heapGrowthMiB(report.memoryMiB.heapAfterGc);
    for (const { from, to, reason } of childFailures) {
      const whileDown = childDown.some((down) => from <= down.to && to >= down.from);
      count(whileDown ? report.expectedFailures : report.unexpectedFailures, reason);
    }

    // Quiescence: the last reload done, no more faults, the child and faulty back, every client's relisting over.
    ws.writeFile('calm', '');
    report.faults = host.log().split('faulted: an exception was thrown outside any request').length - 1;
    await waitUntilReady(host.url, 10_000);
    await sleep(500);
    await Promise.all(clients.map((client) => client.settled()));
    const fresh = new SoakClient();
    await fresh.connect(host.url);
    report.finalTools = fresh.known;
    report.finalListsEqual = clients.filter((client) => client.known.join() === fresh.known.join()).length;
    await fresh.client.close();

    latencies.sort((a, b) => a - b);
    report.latencyMs = { p50: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)) };
    report.notifications = clients.reduce((sum, client) => sum + client.notifications, 0);
    report.refusals = host
      .log()
      .split('\n')
      .filter((line) => line.includes('reload refused'))
      .map((line) => String((JSON.parse(line) as { msg?: unknown }).msg));
    report.reloads.refused = report.refusals.length;
    return report;
  } finally {
    await Promise.allSettled(clients.map((client) => client.client.close()));
    host.child.kill('SIGTERM');
    await Promise.race([once(host.child, 'exit'), sleep(10_000)]);
    if (host.child.exitCode === null) host.child.kill('SIGKILL');
    ws.cleanup();
  }
}

export function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/** The report as printed, and whether it met the goals. */
export function formatSoak(report: SoakReport): { text: string; ok: boolean } {
  const { options, reloads } = report;
  const failed = (table: Record<string, number>) => Object.values(table).reduce((sum, n) => sum + n, 0);
  const reasons = (table: Record<string, number>) =>
    Object.entries(table)
      .sort(([, a], [, b]) => b - a)
      .map(([reason, n]) => `    ${n} × ${reason}`);
  const unexpected = failed(report.unexpectedFailures);
  const lines = [
    `mcp-host soak: ${options.seconds} s, ${options.clients} clients over Streamable HTTP`,
    `  reloads: ${reloads.total} (every ${options.reloadEveryMs} ms: ${reloads.added} added extra, ${reloads.removed} removed it, ${reloads.upgraded} upgraded churn), ${reloads.refused} refused`,
    ...report.refusals.map((why) => `    refused: ${why.replaceAll('\n', ' ')}`),
    `  child killed: ${report.kills} times (every ${options.killEveryMs} ms)`,
    `  faulty faulted: ${report.faults} times (${options.faultEveryMs} ms after each instance was created), and was re-created each time`,
    `  calls: ${report.calls} made, ${unexpected} failed unexpectedly, ${failed(report.expectedFailures)} failed as expected (to a removed or killed mount)`,
    ...reasons(report.expectedFailures),
    ...(unexpected > 0 ? ['  unexpected failures:', ...reasons(report.unexpectedFailures)] : []),
    `  latency: p50 ${report.latencyMs.p50} ms, p99 ${report.latencyMs.p99} ms`,
    `  notifications: ${report.notifications} tools/list_changed received`,
    `  host memory every ${SAMPLE_EVERY_MS} ms: RSS ${range(report.memoryMiB.rss)} MiB; live heap after a full GC ${range(report.memoryMiB.heapAfterGc)} MiB (${report.memoryMiB.fullGcs} full GCs in all)`,
    `    live heap grew ${report.memoryMiB.heapGrowth} MiB once warm (median of the last quarter's samples less the second quarter's; at most ${MAX_HEAP_GROWTH_MIB} is flat): ${report.memoryMiB.heapAfterGc.join(', ')}`,
    `  final tools/list: ${report.finalListsEqual} of ${options.clients} clients equal to the host's (${report.finalTools.join(', ')})`,
  ];
  return {
    text: lines.join('\n'),
    ok:
      unexpected === 0 &&
      report.finalListsEqual === options.clients &&
      reloads.refused === 0 &&
      report.memoryMiB.heapGrowth <= MAX_HEAP_GROWTH_MIB,
  };
}

/** First, lowest and highest of a series of samples. */
function range(samples: number[]): string {
  return `${samples[0]} at first, ${Math.min(...samples)} to ${Math.max(...samples)}`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
  const report = await runSoak({
    seconds: env('SOAK_SECONDS', 60),
    clients: env('SOAK_CLIENTS', 20),
    reloadEveryMs: env('SOAK_RELOAD_MS', 1000),
    killEveryMs: env('SOAK_KILL_MS', 3000),
    faultEveryMs: env('SOAK_FAULT_MS', 3000),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  const { text: summary, ok } = formatSoak(report);
  process.stdout.write(`${summary}\n`);
  process.exit(ok ? 0 : 1);
}
