/**
 * Discovery's figures (docs/discovery.md): how often `search_tools` ranks
 * the right tool first (recall@1) and in its top 5 (recall@5, goal ≥ 0.9)
 * on the catalogue recorded from real npm MCP servers
 * (test/fixtures/tool-catalogue/), for its two task sets: `tasks.json`
 * (developers' requests about developer tools) and `paraphrases.json`
 * (everyday requests as people say them, in none of the tool's words). Each
 * stage of the ranking is measured on its own (words as they are, stemmed,
 * widened by meaning), so that each is justified by its figure; and one
 * stage measured and not served, sentence embeddings alone and fused with the
 * served ranking (bench/sentence-embeddings.ts), with what they cost. Then what a
 * client spends in tokens with search (the list, one search, the found
 * definitions) against the whole list, on the same tasks; and what one
 * search costs (goal: under 5 ms) on that catalogue and on 10,000 tools
 * (the same real definitions mounted again under numbered prefixes).
 *
 * The index is the host's own (host/catalogue/tool-search.ts), built and
 * asked in this process as a search-mode host builds and asks it; the
 * request around it (a tools/call over a transport) is measured by the call
 * rows of bench/run.ts. Tokens are counted with the o200k_base encoding
 * (`gpt-tokenizer`), the one of OpenAI's current models; other models'
 * tokenizers count within a few percent of it on JSON.
 *
 *   npm run build && node dist/bench/discovery.js      (BENCH_MISSES=1 lists every task not ranked first)
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { countTokens } from 'gpt-tokenizer';
import { searchToolDefinition } from '../host/proxy/tool-discovery.js';
import { ToolSearch, type RankingStage } from '../host/catalogue/tool-search.js';
import { EmbeddingSearch, SentenceEncoder } from './sentence-embeddings.js';
import {
  catalogueTasks,
  catalogueTools,
  recordedServers,
  rightToolsOf,
  type CatalogueTask,
} from '../test/helpers/tool-catalogue.js';

const LARGE = 10_000;
/** Each task's search is timed this many times at each size. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** What a search returns unless told otherwise (`discovery.results`' default). */
const RESULTS = 5;
const STAGES: { stage: RankingStage; label: string }[] = [
  { stage: 'lexical', label: 'words as they are' },
  { stage: 'stemmed', label: '+ stemming' },
  { stage: 'wordnet', label: '+ WordNet (served)' },
];
const SERVED: RankingStage = 'wordnet';

const servers = recordedServers();
const taskSets = { tasks: catalogueTasks('tasks'), paraphrases: catalogueTasks('paraphrases') };
const everyone = () => true;

/** What the rows ask: the served index, or a stage measured beside it. */
type Search = Pick<ToolSearch, 'search' | 'size'>;

/** Where the first right tool ranks for each task (0-based; -1 beyond the top 5). */
async function ranks(index: Search, tasks: readonly CatalogueTask[]): Promise<number[]> {
  const found = [];
  for (const task of tasks) {
    const right = rightToolsOf(servers, task);
    const results = await index.search(task.task, { limit: RESULTS, usable: everyone });
    found.push(results.findIndex((tool) => right.includes(tool.name!)));
  }
  return found;
}

/**
 * For each task, 0 when a search allowed to return only its right tools returns one, else -1: whether a right tool
 * shares a word with the request at all, as the served search matches words (stemmed, with a typo, as a prefix,
 * by the synonym list, by WordNet's words for the tool's own). A tool that shares none is found by no weighting of
 * these words, so its recall bounds every ranking built on them.
 */
async function sharesAWord(index: Search, tasks: readonly CatalogueTask[]): Promise<number[]> {
  const found = [];
  for (const task of tasks) {
    const right = new Set(rightToolsOf(servers, task));
    const results = await index.search(task.task, { limit: 1, usable: (name) => right.has(name) });
    found.push(results.length > 0 ? 0 : -1);
  }
  return found;
}

/** Recall@k over the tasks (all, or only those held out / tuned on), as a fixed-width figure. */
function recall(found: readonly number[], tasks: readonly CatalogueTask[], k: number, heldOut?: boolean): string {
  const ranked = found.filter((_, i) => heldOut === undefined || (tasks[i]!.heldOut ?? false) === heldOut);
  return (ranked.filter((rank) => rank >= 0 && rank < k).length / ranked.length).toFixed(2);
}

/** A stage's row: recall@1 and @5 over all the tasks, and recall@5 over those tuned on and those held out. */
function recallRow(label: string, found: readonly number[], tasks: readonly CatalogueTask[]): string {
  return (
    `  ${label.padEnd(32)} recall@1 ${recall(found, tasks, 1)}  recall@5 ${recall(found, tasks, 5)}` +
    `   (tuned on / held out: recall@5 ${recall(found, tasks, 5, false)} / ${recall(found, tasks, 5, true)})`
  );
}

/**
 * Milliseconds per search over every task, ROUNDS times: the wall time's
 * median and 95th percentile, and the median CPU time of the process (on a
 * shared machine the wall time also counts the waits for a core).
 */
async function latency(index: Search, tasks: readonly CatalogueTask[]) {
  const times: number[] = [];
  const cpuTimes: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const task of tasks) {
      const cpuStart = process.cpuUsage();
      const start = performance.now();
      await index.search(task.task, { limit: RESULTS, usable: everyone });
      times.push(performance.now() - start);
      const { user, system } = process.cpuUsage(cpuStart);
      cpuTimes.push((user + system) / 1000);
    }
  }
  const at = (list: number[], quantile: number) => list.sort((a, b) => a - b)[Math.floor(list.length * quantile)]!;
  return { median: at(times, 0.5), p95: at(times, 0.95), cpu: at(cpuTimes, 0.5) };
}

async function timedBuild(copies: number, stage: RankingStage = SERVED) {
  const tools = catalogueTools(servers, copies);
  const start = performance.now();
  const index = await ToolSearch.build(tools, undefined, stage);
  return { index, tools, ms: performance.now() - start };
}

/**
 * Tokens a client's model reads to reach the right tool, per task: with search, the list (`search_tools` alone),
 * one search's call (its arguments) and its result (the found tools' full definitions, as the text content the
 * host returns); without, the whole list. A task whose right tool the search misses is counted as found on a second
 * search of the same size: the cost of a miss, not its failure, is what this row is about.
 */
function tokens(index: ToolSearch, tools: { served: unknown }[], tasks: readonly CatalogueTask[]) {
  const whole = countTokens(JSON.stringify({ tools: tools.map((tool) => tool.served) }));
  const list = countTokens(JSON.stringify({ tools: [searchToolDefinition(tools.length)] }));
  return Promise.all(
    tasks.map(async (task) => {
      const found = await index.search(task.task, { limit: RESULTS, usable: everyone });
      const search =
        countTokens(JSON.stringify({ name: 'search_tools', arguments: { query: task.task } })) +
        countTokens(JSON.stringify({ tools: found }));
      return {
        withSearch: list + search * (found.some((tool) => rightToolsOf(servers, task).includes(tool.name!)) ? 1 : 2),
        whole,
      };
    }),
  );
}

const rssBefore = process.memoryUsage().rss;
const small = await timedBuild(1);
const rssAfter = process.memoryUsage().rss;
console.log(
  `discovery (load average ${loadavg()[0]!.toFixed(1)}, node ${process.version}): search_tools over ${small.index.size} real tools from ${servers.length} npm MCP server packages`,
);
console.log(
  `served index (reads WordNet once): built in ${small.ms.toFixed(0)} ms, process RSS ${(rssBefore / 1e6).toFixed(0)} MB before it, ${(rssAfter / 1e6).toFixed(0)} MB after`,
);

// Sentence embeddings (bench/sentence-embeddings.ts), measured and not served: the model's load, every tool's
// embedding, and what the process holds after them.
const encoderStart = performance.now();
const encoder = await SentenceEncoder.load();
const encoderLoaded = performance.now() - encoderStart;
const embedStart = performance.now();
const fused = await EmbeddingSearch.build(small.tools, small.index, 'fused', encoder);
const embedded = performance.now() - embedStart;
const alone = await EmbeddingSearch.build(small.tools, small.index, 'alone', encoder);
const gated = await EmbeddingSearch.build(small.tools, small.index, 'gated', encoder);
const rssEmbedded = process.memoryUsage().rss;
console.log(
  `sentence embeddings (Universal Sentence Encoder lite, TensorFlow.js on WebAssembly): model loaded in ${encoderLoaded.toFixed(0)} ms, ` +
    `${small.index.size} tools embedded in ${embedded.toFixed(0)} ms, process RSS ${(rssEmbedded / 1e6).toFixed(0)} MB after (${((rssEmbedded - rssAfter) / 1e6).toFixed(0)} MB more)`,
);
const EMBEDDING_ROWS = [
  { index: alone, label: 'sentence embeddings alone' },
  { index: fused, label: '+ sentence embeddings (RRF)' },
  { index: gated, label: '+ sentence embeddings (gated)' },
];

for (const [set, tasks] of Object.entries(taskSets)) {
  const heldOut = tasks.filter((task) => task.heldOut).length;
  console.log(`${set}.json: ${tasks.length} tasks (${tasks.length - heldOut} tuned on, ${heldOut} held out)`);
  for (const { stage, label } of STAGES) {
    const built = stage === SERVED ? small : await timedBuild(1, stage);
    const found = await ranks(built.index, tasks);
    console.log(
      recallRow(label, found, tasks) +
        `   index built in ${built.ms.toFixed(0)} ms` +
        (stage === SERVED ? '   (goal: recall@5 ≥ 0.90)' : ''),
    );
    if (stage === SERVED) {
      const shared = await sharesAWord(built.index, tasks);
      console.log(
        `  ${'a right tool shares a word'.padEnd(32)} ${recall(shared, tasks, 1)}` +
          `                        (tuned on / held out: ${recall(shared, tasks, 1, false)} / ${recall(shared, tasks, 1, true)})` +
          '   the most any weighting of these words can reach',
      );
    }
    if (process.env.BENCH_MISSES && stage === SERVED) {
      for (const [i, task] of tasks.entries()) {
        if (found[i] !== 0)
          console.log(`    rank ${found[i]}: ${task.task} -> ${rightToolsOf(servers, task).join(' | ')}`);
      }
    }
  }
  for (const { index, label } of EMBEDDING_ROWS) {
    const found = await ranks(index, tasks);
    console.log(`${recallRow(label, found, tasks)}   not served`);
  }
  const spent = await tokens(small.index, small.tools, tasks);
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const withSearch = mean(spent.map((task) => task.withSearch));
  console.log(
    `  tokens per task                  with search ${withSearch.toFixed(0)} (list + a search + found definitions), ` +
      `whole list ${spent[0]!.whole}: ${(spent[0]!.whole / withSearch).toFixed(0)}x fewer with search`,
  );
}

const everyTask = [...taskSets.tasks, ...taskSets.paraphrases];
const copies = Math.ceil(LARGE / small.index.size);
const large = await timedBuild(copies);
const largeEmbedStart = performance.now();
const largeGated = await EmbeddingSearch.build(large.tools, large.index, 'gated', encoder);
const largeEmbedded = performance.now() - largeEmbedStart;
for (const [label, { index, ms }] of [
  [`${small.index.size} tools`, small],
  [`${large.index.size} tools (${copies} copies)`, large],
  [`${small.index.size} tools, + embeddings`, { index: gated, ms: small.ms + embedded }],
  // The copies' texts are the first copy's, already embedded: this build time is the lexical index's and the lookups.
  [`${large.index.size} tools, + embeddings`, { index: largeGated, ms: large.ms + largeEmbedded }],
] as const) {
  const { median, p95, cpu } = await latency(index, everyTask);
  console.log(
    `${`one search, ${label}`.padEnd(34)} median ${median.toFixed(2)} ms (CPU ${cpu.toFixed(2)} ms), p95 ${p95.toFixed(2)} ms   (goal < 5 ms); index built in ${ms.toFixed(0)} ms`,
  );
}
