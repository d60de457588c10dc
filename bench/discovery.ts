/**
 * Discovery's figures (docs/discovery.md): how often `search_tools` ranks
 * the right tool first (recall@1) and in its top 5 (recall@5, goal ≥ 0.9),
 * over the natural-language tasks of test/fixtures/tool-catalogue/tasks.json
 * on the catalogue recorded from real npm MCP servers beside them; and what
 * one search costs (goal: under 5 ms) on that catalogue and on 10,000 tools
 * (the same real definitions mounted again under numbered prefixes).
 *
 * The index is the host's own (host/catalogue/tool-search.ts), built and
 * asked in this process as a search-mode host builds and asks it; the
 * request around it (a tools/call over a transport) is measured by the call
 * rows of bench/run.ts.
 *
 *   npm run build && node dist/bench/discovery.js
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { ToolSearch } from '../host/catalogue/tool-search.js';
import {
  catalogueTasks,
  catalogueTools,
  recordedServers,
  servedNameOf,
  type CatalogueTask,
} from '../test/helpers/tool-catalogue.js';

const LARGE = 10_000;
/** Each task's search is timed this many times at each size. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const servers = recordedServers();
const tasks = catalogueTasks();
const everyone = () => true;

/** Where the right tool ranks for each task (0-based; -1 beyond the top 5). */
async function ranks(index: ToolSearch, wanted: readonly CatalogueTask[]): Promise<number[]> {
  const found = [];
  for (const task of wanted) {
    const results = await index.search(task.task, { limit: 5, usable: everyone });
    found.push(results.findIndex((tool) => tool.name === servedNameOf(servers, task)));
  }
  return found;
}

/**
 * Milliseconds per search over every task, ROUNDS times: the wall time's
 * median and 95th percentile, and the median CPU time of the process (on a
 * shared machine the wall time also counts the waits for a core).
 */
async function latency(index: ToolSearch): Promise<{ median: number; p95: number; cpu: number }> {
  const times: number[] = [];
  const cpuTimes: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const task of tasks) {
      const cpuStart = process.cpuUsage();
      const start = performance.now();
      await index.search(task.task, { limit: 5, usable: everyone });
      times.push(performance.now() - start);
      const { user, system } = process.cpuUsage(cpuStart);
      cpuTimes.push((user + system) / 1000);
    }
  }
  const at = (list: number[], quantile: number) => list.sort((a, b) => a - b)[Math.floor(list.length * quantile)]!;
  return { median: at(times, 0.5), p95: at(times, 0.95), cpu: at(cpuTimes, 0.5) };
}

async function timedBuild(copies: number): Promise<{ index: ToolSearch; ms: number }> {
  const tools = catalogueTools(servers, copies);
  const start = performance.now();
  const index = await ToolSearch.build(tools);
  return { index, ms: performance.now() - start };
}

const small = await timedBuild(1);
const found = await ranks(small.index, tasks);
const recall = (k: number, heldOut?: boolean) => {
  const ranked = found.filter((_, i) => heldOut === undefined || (tasks[i]!.heldOut ?? false) === heldOut);
  return (ranked.filter((rank) => rank >= 0 && rank < k).length / ranked.length).toFixed(2);
};
const heldOut = tasks.filter((task) => task.heldOut).length;
const copies = Math.ceil(LARGE / small.index.size);
const large = await timedBuild(copies);

console.log(
  `discovery (load average ${loadavg()[0]!.toFixed(1)}): search_tools over ${small.index.size} real tools from ${servers.length} npm MCP server packages, ${tasks.length} tasks`,
);
console.log(`${'recall@1'.padEnd(34)} ${recall(1)}   (no goal: the top 5 is what a client is shown)`);
console.log(`${'recall@5'.padEnd(34)} ${recall(5)}   (goal ≥ 0.90)`);
console.log(
  `${`  tasks tuned on (${tasks.length - heldOut}), held out (${heldOut})`.padEnd(34)} recall@1 ${recall(1, false)} / ${recall(1, true)}, recall@5 ${recall(5, false)} / ${recall(5, true)}`,
);
for (const [label, { index, ms }] of [
  [`${small.index.size} tools`, small],
  [`${large.index.size} tools (${copies} copies)`, large],
] as const) {
  const { median, p95, cpu } = await latency(index);
  console.log(
    `${`one search, ${label}`.padEnd(34)} median ${median.toFixed(2)} ms (CPU ${cpu.toFixed(2)} ms), p95 ${p95.toFixed(2)} ms   (goal < 5 ms); index built in ${ms.toFixed(0)} ms`,
  );
}
if (process.env.BENCH_MISSES) {
  for (const [i, task] of tasks.entries()) {
    if (found[i] !== 0) console.log(`  rank ${found[i]}: ${task.task} -> ${servedNameOf(servers, task)}`);
  }
}
