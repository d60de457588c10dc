/**
 * What a search_tools query built to cost the host costs (docs/discovery.md):
 * at 10,000 tools (the recorded catalogue mounted again under numbered
 * prefixes), each query filled to the 500-character bound, beside a plain
 * sentence. The index is the host's own, asked in this process.
 *
 *   npm run build && node dist/bench/search-adversarial.js
 */
import { performance } from 'node:perf_hooks';
import { ToolSearch } from '../host/catalogue/tool-search.js';
import { catalogueTools, recordedServers } from '../test/helpers/tool-catalogue.js';

const TOOLS = 10_000;
const MAX_QUERY_LENGTH = 500;
const ROUNDS = 5;

const servers = recordedServers();
const copies = Math.ceil(TOOLS / catalogueTools(servers).length);
const tools = catalogueTools(servers, copies).slice(0, TOOLS);
const index = await ToolSearch.build(tools);

const words = new Set<string>();
for (const { served } of tools) {
  for (const word of String(served.description ?? '')
    .toLowerCase()
    .split(/[^a-z]+/)) {
    if (word.length >= 4) words.add(word);
  }
}
/** Words from `next` joined up to the length bound. */
function filled(next: (i: number) => string): string {
  let query = next(0);
  for (let i = 1; `${query} ${next(i)}`.length <= MAX_QUERY_LENGTH; i++) query = `${query} ${next(i)}`;
  return query;
}
const prefixCounts = new Map<string, number>();
for (const word of words) prefixCounts.set(word.slice(0, 4), (prefixCounts.get(word.slice(0, 4)) ?? 0) + 1);
const commonestPrefixes = [...prefixCounts].sort((a, b) => b[1] - a[1]).map(([prefix]) => prefix);
const fiveLetterWords = [...words].filter((word) => word.length === 5);

const queries: Record<string, string> = {
  'a plain sentence': 'create a github issue for the failing build and notify the team on slack',
  'one word repeated': filled(() => 'files'),
  'distinct five-letter words (fuzzy)': filled((i) => fiveLetterWords[i % fiveLetterWords.length]!),
  'distinct commonest 4-letter prefixes': filled((i) => commonestPrefixes[i % commonestPrefixes.length]!),
};
const options = { limit: 10, usable: () => true };
for (const [name, query] of Object.entries(queries)) {
  await index.search(query, options);
  const started = performance.now();
  for (let round = 0; round < ROUNDS; round++) await index.search(query, options);
  const ms = (performance.now() - started) / ROUNDS;
  console.log(`${name.padEnd(40)} ${String(query.length).padStart(4)} chars  ${ms.toFixed(1)} ms per search`);
}
