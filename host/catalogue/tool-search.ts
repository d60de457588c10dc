import type MiniSearch from 'minisearch';
import type { ListItem } from '../vocabulary/list-kinds.js';
import { queryWords, splitWords, synonymsOf, termOf } from './search-terms.js';
import type { WordNet } from './wordnet.js';

/** A served tool as the search index takes it. */
export interface SearchableTool {
  /** The name clients call it by (curated, prefixed, shortened): the document's id. */
  name: string;
  /** The tool as its mount lists it: unchanged between two indexes means its document is too. */
  item: ListItem;
  /** The tool as clients see it. */
  served: ListItem;
  /** The prefix of its mount (a facet a search can be narrowed to); undefined for a flat mount. */
  mount: string | undefined;
}

interface ToolDocument {
  id: string;
  name: string;
  title: string;
  description: string;
  parameters: string;
  parameterText: string;
  /** The words its name, title and first sentence stand for, by WordNet (stage 'wordnet'; empty before it). */
  related: string;
}

/**
 * How much a match in each field counts: a tool's name says what it does
 * most plainly, its parameters least (BM25 within each field, MiniSearch's
 * ranking), and the words WordNet relates to its own words less than any
 * word of its own. The mount's prefix is in the name (`github.create_issue`);
 * a field of its own cost a search more time than it gave results.
 */
const FIELD_WEIGHTS = {
  name: 3,
  title: 2,
  description: 1,
  parameters: 1,
  parameterText: 0.5,
  related: 0.4,
};
/** Words this long or longer may have one typo: shorter ones would match too many others. */
const TYPO_LENGTH = 5;
/** Words this long or longer also match the words they begin ("repo" finds "repositories"). */
const PREFIX_LENGTH = 4;
/**
 * A tool of a mount the query names ("...on GitHub" for the mount `github`)
 * scores this many times its match: the user said where the tool is.
 */
const NAMED_MOUNT_BOOST = 3;
/** Tools indexed between two turns of the event loop when an index is built from scratch (about a millisecond's work). */
const INDEX_CHUNK = 50;
/** A synonym's match counts this much of the query's own word's. */
const SYNONYM_WEIGHT = 0.4;

/**
 * The stages of the ranking, each added to the one before: words as they
 * are, then stemmed, then each tool's words widened by WordNet (what they
 * stand for: wordnet.ts). Served search uses them all; bench/discovery.ts builds
 * an index at each stage so that every stage is justified by its own recall
 * (docs/discovery.md).
 */
export type RankingStage = 'lexical' | 'stemmed' | 'wordnet';

/**
 * Lexical search over a generation's served tools (DESIGN.md, "Discovery for
 * big catalogues"): every field of a definition a user's words may meet
 * (name with its mount's prefix, title, description, parameter names and
 * descriptions), the mount as a facet (a search narrowed to it, and a boost
 * for the mount a query names), stemmed, with typo tolerance (fuzzy terms of five letters or
 * more) and prefix matches, ranked by BM25 over weighted fields; offline,
 * in the host's process.
 *
 * An index is built once per catalogue index (catalogue-index.ts: a reload,
 * or a mount's own list_changed, makes a new one), off the request path
 * (generation.ts). It takes over its predecessor's engine when there is one,
 * and re-indexes only the tools whose definition changed: a reload that
 * changes one mount re-indexes that mount's tools.
 */
export class ToolSearch {
  /** Set when a successor took this index's engine: it no longer answers for this catalogue, and is rebuilt if asked. */
  private handedOn = false;

  /** Each term of a mount's prefix, and the mounts whose prefix has it. */
  private readonly mountTerms = new Map<string, Set<string>>();

  private constructor(
    private engine: MiniSearch<ToolDocument>,
    private readonly tools: ReadonlyMap<string, SearchableTool>,
    private readonly stage: RankingStage,
  ) {
    for (const { mount } of tools.values()) {
      for (const word of splitWords(mount ?? '')) {
        const term = this.termOf(word);
        if (term === undefined) continue;
        let mounts = this.mountTerms.get(term);
        if (!mounts) this.mountTerms.set(term, (mounts = new Set()));
        mounts.add(mount!);
      }
    }
  }

  /** The index of `tools`, from scratch or (with `predecessor`) by the difference from the predecessor's. */
  static async build(
    tools: readonly SearchableTool[],
    predecessor?: ToolSearch,
    stage: RankingStage = 'wordnet',
  ): Promise<ToolSearch> {
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const wordNet = stage === 'wordnet' ? await loadWordNet() : undefined;
    const documentOf = (tool: SearchableTool) => toolDocument(tool, wordNet);
    if (predecessor && !predecessor.handedOn && predecessor.stage === stage) {
      const { engine } = predecessor;
      predecessor.handedOn = true;
      for (const [name, before] of predecessor.tools) {
        const now = byName.get(name);
        if (!now || !sameDefinition(before, now)) engine.discard(name);
      }
      for (const tool of tools) {
        const before = predecessor.tools.get(tool.name);
        if (!before || !sameDefinition(before, tool)) engine.add(documentOf(tool));
      }
      return new ToolSearch(engine, byName, stage);
    }
    const engine = await newEngine(stage);
    // In chunks, yielding between them: a big catalogue is indexed without holding up the requests being served.
    await engine.addAllAsync(tools.map(documentOf), { chunkSize: INDEX_CHUNK });
    return new ToolSearch(engine, byName, stage);
  }

  /** How many tools it holds. */
  get size(): number {
    return this.tools.size;
  }

  /**
   * The served tools that best match `query`, best first: at most `limit`,
   * only those `usable` accepts (the searcher's identity), and only the
   * mount `mount` (a prefix) when given.
   */
  async search(
    query: string,
    options: { limit: number; usable: (name: string) => boolean; mount?: string },
  ): Promise<ListItem[]> {
    if (this.handedOn) {
      return (await ToolSearch.build([...this.tools.values()], undefined, this.stage)).search(query, options);
    }
    // Each term once: a word repeated to the length bound would otherwise cost a search per copy (a 500-character
    // query of one four-letter word said a hundred times took several times the worst query of distinct words).
    const terms = [...new Set(queryWords(query).flatMap((word) => this.termOf(word) ?? []))];
    const synonyms = [...new Set(terms.flatMap(synonymsOf))].filter((synonym) => !terms.includes(synonym));
    const named = new Set(terms.flatMap((term) => [...(this.mountTerms.get(term) ?? [])]));
    const filter = ({ id }: { id: string }) =>
      options.usable(id) && (options.mount === undefined || this.tools.get(id)?.mount === options.mount);
    const results = this.engine.search(
      {
        combineWith: 'OR',
        queries: [
          {
            queries: terms,
            fuzzy: (term: string) => term.length >= TYPO_LENGTH,
            maxFuzzy: 1,
            prefix: (term: string) => term.length >= PREFIX_LENGTH,
          },
          { queries: synonyms, boostTerm: () => SYNONYM_WEIGHT },
        ],
      },
      {
        filter,
        tokenize: (text) => [text],
        processTerm: (term) => term,
      },
    );
    const toolOf = (id: unknown) => this.tools.get(id as string)!;
    // A common word matches thousands of tools: only a named mount can reorder them, so only then are all looked at.
    if (named.size === 0) return results.slice(0, options.limit).map(({ id }) => toolOf(id).served);
    const found = results.map(({ id, score }) => {
      const tool = toolOf(id);
      // Once per result, after scoring: MiniSearch's own boostDocument would be asked once per result and term.
      return { tool, score: named.has(tool.mount ?? '') ? score * NAMED_MOUNT_BOOST : score };
    });
    found.sort((a, b) => b.score - a.score);
    return found.slice(0, options.limit).map(({ tool }) => tool.served);
  }

  private termOf(word: string): string | undefined {
    return termOf(word, this.stage !== 'lexical');
  }
}

async function newEngine(stage: RankingStage): Promise<MiniSearch<ToolDocument>> {
  // Loaded by the first index built: a host that never serves search never reads it.
  const { default: MiniSearchEngine } = await import('minisearch');
  return new MiniSearchEngine<ToolDocument>({
    fields: Object.keys(FIELD_WEIGHTS),
    tokenize: splitWords,
    processTerm: (term) => termOf(term, stage !== 'lexical'),
    searchOptions: { boost: FIELD_WEIGHTS },
  });
}

/** Whether two index entries would make the same document: the mount's item and the served form are unchanged. */
function sameDefinition(a: SearchableTool, b: SearchableTool): boolean {
  return a.item === b.item && a.mount === b.mount && a.served.description === b.served.description;
}

/** WordNet, read once by the first index of stage 'wordnet': a host that never searches never reads it. */
let wordNetLoading: Promise<WordNet> | undefined;
function loadWordNet(): Promise<WordNet> {
  wordNetLoading ??= import('./wordnet.js').then(({ WordNet }) => WordNet.load());
  return wordNetLoading;
}

function toolDocument({ name, served }: SearchableTool, wordNet: WordNet | undefined): ToolDocument {
  const schema = served.inputSchema as { properties?: Record<string, { description?: unknown }> } | undefined;
  const properties = Object.entries(schema?.properties ?? {});
  const annotations = served.annotations as { title?: unknown } | undefined;
  const title = text(served.title ?? annotations?.title);
  const description = text(served.description);
  return {
    id: name,
    name,
    title,
    description,
    parameters: properties.map(([parameter]) => parameter).join(' '),
    parameterText: properties.map(([, property]) => text(property?.description)).join(' '),
    related: wordNet ? relatedWords(wordNet, name, title, description) : '',
  };
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Words shorter than this are not looked up in WordNet: "id", "url", "pr" are abbreviations it reads as other words. */
const MIN_WORDNET_LENGTH = 3;

/**
 * What a tool's words stand for (WordNet.related): the nouns of its name,
 * title and first sentence, and the verbs of its name (a description's
 * verbs are too general: "get", "return", "use").
 */
function relatedWords(wordNet: WordNet, name: string, title: string, description: string): string {
  const firstSentence = description.split(/(?<=[.!?])\s|\n/)[0]!;
  const related = new Set<string>();
  const add = (words: string[], verbsToo: boolean) => {
    for (const word of words) {
      if (word.length < MIN_WORDNET_LENGTH || termOf(word, false) === undefined || !/^[a-z]+$/.test(word)) continue;
      for (const other of wordNet.related(word, 'noun')) related.add(other);
      if (verbsToo) for (const other of wordNet.related(word, 'verb')) related.add(other);
    }
  };
  add(
    splitWords(name).map((word) => word.toLowerCase()),
    true,
  );
  add(queryWords(`${title} ${firstSentence}`), false);
  return [...related].join(' ');
}
