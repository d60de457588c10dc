import { serializeMessage, type JSONRPCMessage } from '@modelcontextprotocol/server';
import type { Generation } from '../catalogue/generation.js';
import { checkedText } from '../vocabulary/checked-result-text.js';
import { LIST_KINDS, type ListKind } from '../vocabulary/list-kinds.js';

type ListResult = Record<string, unknown>;

/**
 * Composed list pages that nothing has changed in are answered with the
 * same result object each time, and that object's JSON text is made once.
 *
 * The host keeps the pages of mounts that promise `list_changed`, so the
 * same page is composed again and again out of the same items; what a large
 * list then cost the host was serialising it anew for every answer (4-5 ms
 * for 10,000 tools, most of the host's time on it). A page is reused only
 * when it holds the very same item objects in the same order and the same
 * cursor, so a change of any mount's page, a mount going down or a reload
 * (another generation) makes a new result, and a new text.
 *
 * The text is used by the stdio wire; over HTTP the SDK's transport writes
 * the answer, and a reused result only spares composing it.
 */
const lastResults = new WeakMap<Generation, Map<string, ListResult>>();
/**
 * How many pages a generation keeps. A cursor comes from the client, which
 * could otherwise grow the map with every cursor it makes up; past this the
 * oldest is dropped (a list paged finer than this is composed and written
 * anew each time, as without the reuse).
 */
const KEPT_PAGES = 16;
const texts = new WeakMap<object, string | undefined>();

/**
 * The result last answered for the page of `kind` at `cursor` in
 * `generation` if it is the same as `result` (its items, and `nextCursor`),
 * else `result`, kept as the one to compare the next answer with. Either way
 * its text is kept once made: nothing changes a list result after it is
 * composed. `audience` names the access rules the page was filtered by
 * (access-rules.ts): clients matched by other rules are answered pages of
 * their own.
 */
export function reuseUnchangedPage(
  generation: Generation,
  kind: ListKind,
  cursor: string | undefined,
  result: ListResult,
  audience = '*',
): ListResult {
  let pages = lastResults.get(generation);
  if (!pages) lastResults.set(generation, (pages = new Map()));
  const page = `${audience} ${kind} ${cursor ?? ''}`;
  const { field } = LIST_KINDS[kind];
  const last = pages.get(page);
  if (last && last.nextCursor === result.nextCursor && sameItems(last[field], result[field])) return last;
  pages.delete(page);
  if (pages.size >= KEPT_PAGES) pages.delete(pages.keys().next().value!);
  pages.set(page, result);
  texts.set(result, undefined);
  return result;
}

function sameItems(a: unknown, b: unknown): boolean {
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The line for `message` on a newline-delimited wire: a shared list
 * result's text made only once, and a checked result's written from the
 * text its check made (vocabulary/checked-result-text.ts).
 */
export function messageLine(message: JSONRPCMessage): string {
  if (!('result' in message)) return serializeMessage(message);
  const text = checkedText(message.result) ?? sharedText(message.result);
  if (text === undefined) return serializeMessage(message);
  return `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":${text}}\n`;
}

/** The text of a shared list result, made the first time it is written; undefined for any other result. */
function sharedText(result: object): string | undefined {
  if (!texts.has(result)) return undefined;
  let text = texts.get(result);
  if (text === undefined) texts.set(result, (text = JSON.stringify(result)));
  return text;
}
