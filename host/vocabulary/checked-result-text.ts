/**
 * The JSON text of a result as its mount's result check measured it
 * (mounts/result-check.ts), kept by the result object for as long as the
 * object lives. The check serialises every result anyway, for its size
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

/** From now on, keep each checked result's text for the stdio wire. */
export function keepCheckedTexts(): void {
  texts ??= new WeakMap();
}

export function recordCheckedText(result: object, text: string): void {
  texts?.set(result, text);
}

export function checkedText(result: object): string | undefined {
  return texts?.get(result);
}
