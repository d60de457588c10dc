/**
 * Curation's cost (part of `npm run bench`): one host serving a 10,000-tool
 * plugin uncurated, and hosts serving it curated, measured in alternating
 * rounds so machine noise hits them alike.
 *
 * - tools/call: curation must add nothing measurable (the lookup stays one
 *   map read; a renamed tool is found under its served name the same way).
 * - tools/list of the whole catalogue (all pages): an include glob matching
 *   every tool measures the cost of judging 10,000 names; one matching a
 *   ninth of them shows what a client gains.
 *
 * BENCH_ROUNDS and BENCH_CALLS scale the run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Curation } from '../host/catalogue/curation.js';
import { CLI } from '../test/helpers/host.js';
import { REPO_ROOT } from '../test/helpers/packages.js';
import { median } from './median.js';

const TOOLS = 10_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CALLS = Number(process.env.BENCH_CALLS ?? 400);
const LISTS = 10;

/** A low-level server listing 10,000 tools in pages of 500, announcing list changes (so the host keeps its pages). */
const MANY = `import { Server } from '@modelcontextprotocol/server';
const tools = Array.from({ length: ${TOOLS} }, (_, i) => ({
  name: 'tool_' + i,
  description: 'Tool number ' + i,
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
}));
export default {
  create() {
    const server = new Server({ name: 'many', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
    server.setRequestHandler('tools/list', async (request) => {
      const start = request.params?.cursor ? Number(request.params.cursor) : 0;
      const next = start + 500;
      return { tools: tools.slice(start, next), ...(next < tools.length ? { nextCursor: String(next) } : {}) };
    });
    server.setRequestHandler('tools/call', async (request) => ({ content: [{ type: 'text', text: request.params.name }] }));
    return server;
  },
};
`;

interface Variant {
  label: string;
  /** The entry's curation keys. */
  curation: Record<string, unknown>;
  /** The served name of the plugin's tool_1. */
  tool: string;
  client?: Client;
  /** Milliseconds per whole listing, one sample each. */
  list: number[];
  /** Microseconds per call, one sample per batch. */
  call: number[];
}

const variants: Variant[] = [
  { label: 'uncurated', curation: {}, tool: 'many.tool_1' },
  {
    label: 'include matching all',
    curation: { tools: { include: ['tool_*'], exclude: ['*_none'], describe: { tool_2: 'Two' } } },
    tool: 'many.tool_1',
  },
  {
    label: 'include 1/9, rename',
    curation: { tools: { include: ['tool_1*'], rename: { tool_1: 'first' } } },
    tool: 'many.first',
  },
].map((variant) => ({ ...variant, list: [], call: [] }));

function writeWorkspace(): string {
  const dir = join(REPO_ROOT, '.tmp', 'bench-curation');
  const pkg = join(dir, 'node_modules', 'bench-many');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'bench-curation', private: true, type: 'module' }));
  writeFileSync(
    join(pkg, 'package.json'),
    JSON.stringify({
      name: 'bench-many',
      version: '1.0.0',
      type: 'module',
      exports: './index.js',
      'mcp-host': { prefix: 'many' },
    }),
  );
  writeFileSync(join(pkg, 'index.js'), MANY);
  return dir;
}

async function connect(configFile: string): Promise<Client> {
  const client = new Client({ name: 'mcp-host-bench', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'start', '--config', configFile],
      stderr: 'ignore',
    }),
  );
  return client;
}

/** Every page of tools/list; returns how many tools were listed. */
async function listAll(client: Client): Promise<number> {
  let count = 0;
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    count += page.tools.length;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return count;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const dir = writeWorkspace();
for (const [i, variant] of variants.entries()) {
  const file = join(dir, `v${i}.config.js`);
  writeFileSync(
    file,
    `export default ${JSON.stringify({ plugins: [{ package: 'bench-many', ...variant.curation }] })};\n`,
  );
  variant.client = await connect(file);
}
const listed = new Map<Variant, number>();
// Warm-up: the host drains and keeps the pages; the JIT compiles the hot paths.
for (const variant of variants) {
  for (let i = 0; i < 3; i++) listed.set(variant, await listAll(variant.client!));
  for (let i = 0; i < CALLS; i++) await variant.client!.callTool({ name: variant.tool, arguments: {} });
}
const BATCH = 20;
// Fine-grained interleaving: each sample of each variant sits between samples of the others.
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < LISTS; i++) {
    for (const variant of rotated(round + i)) variant.list.push(await timed(() => listAll(variant.client!)));
  }
  for (let i = 0; i < CALLS / BATCH; i++) {
    for (const variant of rotated(round + i)) {
      const ms = await timed(async () => {
        for (let j = 0; j < BATCH; j++) await variant.client!.callTool({ name: variant.tool, arguments: {} });
      });
      variant.call.push((ms * 1000) / BATCH);
    }
  }
}

/** The variants, starting from a different one each time, so that none always runs first. */
function rotated(start: number): Variant[] {
  return variants.map((_, i) => variants[(i + start) % variants.length]!);
}

const [base] = variants;
console.log(
  `curation: a ${TOOLS}-tool mount over stdio; medians of ${ROUNDS * LISTS} listings and ${(ROUNDS * CALLS) / BATCH} batches of ${BATCH} calls (ratio to uncurated)`,
);
for (const variant of variants) {
  const list = median(variant.list);
  const call = median(variant.call);
  console.log(
    `${variant.label.padEnd(22)} tools/list ${String(listed.get(variant)).padStart(5)} tools ${list.toFixed(1).padStart(6)} ms (${(list / median(base!.list)).toFixed(2)}x)` +
      `   tools/call ${call.toFixed(0).padStart(5)} µs (${(call / median(base!.call)).toFixed(2)}x)   no goal: curation's cost, for context`,
  );
}
await Promise.all(variants.map((variant) => variant.client!.close()));

// The curation step alone, in process: what a listing pays per name when the
// host has no presented copy of the page yet (after a list_changed).
const names = Array.from({ length: TOOLS }, (_, i) => `tool_${i}`);
const judge = (curation: Curation) => () => {
  let served = 0;
  for (const name of names) if (curation.serves('tools', name) && curation.servedName('tools', name)) served++;
  return Promise.resolve(served);
};
const curations = {
  uncurated: new Curation(),
  'include, exclude, rename': new Curation({
    tools: { include: ['tool_1*', 'tool_2*'], exclude: ['*_9'], rename: { tool_1: 'first' } },
  }),
};
for (const [label, curation] of Object.entries(curations)) {
  for (let i = 0; i < 20; i++) await judge(curation)(); // warm-up
  const samples = [];
  for (let i = 0; i < 50; i++) samples.push(await timed(judge(curation)));
  console.log(`judging ${TOOLS} names, ${label.padEnd(24)} ${median(samples).toFixed(2)} ms   no goal: for context`);
}
