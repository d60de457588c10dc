/**
 * The JSON text of a result as its mount's result check measured it
 * (mounts/result-check.ts), kept until the result is written, or for as long
 * as the result object lives. The check serialises every result anyway, for its size
 * bound, and the stdio wire then serialised it again to write the answer:
 * the wire now writes an answer carrying that very object from this text
 * (proxy/shared-list-results.ts), one `JSON.stringify` of each result in
 * place of two. What a client is sent is then also what was checked, even
 * if an in-process plugin changes the object it answered with after the
 * check.
 *
 * The stdio wire is the only reader: texts are kept once it serves
 * (`keepCheckedTexts`), and a host serving Streamable HTTP, whose SDK
 * transport writes each answer itself, or serving nothing (`check`,
 * `list`), stores none.
 */
let texts: WeakMap<object, string> | undefined;

/**
 * The result checked last and its text, not yet written: one call at a time (nearly every call over stdio) is
 * written from here, and makes no entry in the WeakMap, whose set showed in a call's CPU profile (an entry is
 * an ephemeron, which every scavenge then traces: docs/performance.md, the seventh round). A result checked
 * while another waits in the slot moves that one to the map, so calls in flight at once each keep their own.
 */
let lastResult: object | undefined;
let lastText = '';

/** From now on, keep each checked result's text for the stdio wire. */
export function keepCheckedTexts(): void {
  texts ??= new WeakMap();
}

export function recordCheckedText(result: object, text: string): void {
  if (!texts) return;
  if (lastResult !== undefined) texts.set(lastResult, lastText);
  lastResult = result;
  lastText = text;
}

/** The text `result`'s check made; taken from the slot, which holds no result once it is written. */
export function checkedText(result: object): string | undefined {
  if (result !== lastResult) return texts?.get(result);
  const text = lastText;
  lastResult = undefined;
  lastText = '';
  return text;
}
