/**
 * Memory across reloads: a host (in this process, so its heap is the one
 * measured) reloaded RELOADS times in each of three ways, printing heap and
 * RSS growth per reload after a full GC:
 *
 * - unchanged: nothing changed on disk; only the config file is read again.
 * - options: one plugin's options change each time, so it is re-created
 *   but its code is the same.
 * - upgraded: one plugin's version changes each time (as `npm install` of a
 *   new version), so its code (an entry and a lib file) is imported fresh.
 * - upgraded-worker: the same, the plugin in a worker thread
 *   (`isolation: 'worker'`): each version's code lives in its own worker,
 *   terminated when the next replaces it.
 *
 * Run with `node dist/bench/reload-memory.js` after `npm run build`
 * (it re-runs itself with --expose-gc). RELOADS defaults to 1000.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { HostRuntime } from '../host/runtime.js';
import { retireMounts } from '../host/mounts/retire.js';
import { composeCatalogue } from '../host/catalogue/compose.js';
import { Reloader } from '../host/reload/reloader.js';
import { createLogger } from '../host/log.js';
import { makeWorkspace, type Workspace } from '../test/helpers/packages.js';

const RELOADS = Number(process.env.RELOADS ?? 1000);
const CHECKPOINTS = 10;

type Scenario = 'unchanged' | 'options' | 'upgraded' | 'upgraded-worker';
const SCENARIOS: Scenario[] = ['unchanged', 'options', 'upgraded', 'upgraded-worker'];

// Each scenario in a process of its own, so one's leftovers do not count in another's figures.
if (typeof globalThis.gc !== 'function') {
  process.stdout.write(`Memory across reloads: heap after a full GC, growth per reload fitted over the last 90%\n`);
  for (const scenario of process.argv[2]?.split(',') ?? SCENARIOS) {
    const run = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), scenario], {
      stdio: 'inherit',
    });
    if (run.status !== 0) process.exit(run.status ?? 1);
  }
  process.exit(0);
}

function writePlugin(ws: Workspace, name: string, version: string): void {
  ws.writePackage(
    `node_modules/@bench/${name}`,
    { name: `@bench/${name}`, version, type: 'module', exports: './index.js', 'mcp-host': { prefix: name } },
    {
      'index.js': `import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { describe } from './lib.js';
export default {
  create({ options }) {
    const server = new McpServer({ name: '${name}', version: '${version}' });
    for (let i = 0; i < 10; i++) {
      server.registerTool('tool_' + i, { description: describe(i), inputSchema: z.object({ text: z.string() }) },
        async ({ text }) => ({ content: [{ type: 'text', text: text + (options.suffix ?? '') }] }));
    }
    return server;
  },
};
`,
      'lib.js': `export const describe = (i) => 'Tool number ' + i + ' of ${name} ${version}.';\n`,
    },
  );
}

function writeConfig(ws: Workspace, suffix: string, isolation: 'none' | 'worker'): string {
  return ws.writeConfig({
    plugins: [{ package: '@bench/steady' }, { package: '@bench/churn', options: { suffix }, isolation }],
    reload: { watch: false, drainTimeoutMs: 1000 },
  });
}

interface Sample {
  reloads: number;
  heap: number;
  rss: number;
}

async function measure(reloads: number): Promise<Sample> {
  // Retired mounts close once drained (next tick here: no calls are running).
  await sleep(50);
  for (let i = 0; i < 3; i++) globalThis.gc!();
  const { heapUsed, rss } = process.memoryUsage();
  return { reloads, heap: heapUsed, rss };
}

/** Least-squares slope of bytes over reloads, past the first checkpoint (warm-up). */
function slope(samples: Sample[], key: 'heap' | 'rss'): number {
  const points = samples.slice(1);
  const mx = points.reduce((s, p) => s + p.reloads, 0) / points.length;
  const my = points.reduce((s, p) => s + p[key], 0) / points.length;
  const num = points.reduce((s, p) => s + (p.reloads - mx) * (p[key] - my), 0);
  const den = points.reduce((s, p) => s + (p.reloads - mx) ** 2, 0);
  return num / den;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function run(scenario: Scenario): Promise<void> {
  const ws = makeWorkspace();
  try {
    writePlugin(ws, 'steady', '1.0.0');
    writePlugin(ws, 'churn', '1.0.0');
    const isolation = scenario === 'upgraded-worker' ? 'worker' : 'none';
    const configFile = writeConfig(ws, '', isolation);
    const logger = createLogger('silent');
    const runtime = new HostRuntime(logger);
    const { generation } = await composeCatalogue({
      configPath: configFile,
      cwd: ws.dir,
      logger,
      events: runtime.events,
      id: 1,
    });
    runtime.swap(generation);
    const reloader = new Reloader(runtime, { configPath: configFile, cwd: ws.dir, logger });

    const samples = [await measure(0)];
    const started = performance.now();
    for (let i = 1; i <= RELOADS; i++) {
      if (scenario === 'options') writeConfig(ws, `#${i}`, isolation);
      if (scenario.startsWith('upgraded')) writePlugin(ws, 'churn', `1.0.${i}`);
      const outcome = await reloader.reload('bench');
      const replaced = outcome.ok && outcome.diff.plugins.replaced.includes('churn');
      if (!outcome.ok || replaced !== (scenario !== 'unchanged')) {
        throw new Error(`reload ${i} did not do what the scenario needs: ${JSON.stringify(outcome)}`);
      }
      if (i % (RELOADS / CHECKPOINTS) === 0) samples.push(await measure(i));
    }
    const ms = (performance.now() - started) / RELOADS;
    await retireMounts(runtime.current.mounts, 1000);
    const last = samples.at(-1)!;
    process.stdout.write(
      `${scenario.padEnd(15)}  ${RELOADS} reloads, ${ms.toFixed(1)} ms each: heap ${mb(samples[0]!.heap)} -> ${mb(last.heap)} ` +
        `(${kb(slope(samples, 'heap'))}/reload), rss ${mb(samples[0]!.rss)} -> ${mb(last.rss)} (${kb(slope(samples, 'rss'))}/reload)   no goal: growth, for context\n`,
    );
  } finally {
    ws.cleanup();
  }
}

await run(process.argv[2] as Scenario);
