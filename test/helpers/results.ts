/** What the tests read out of MCP results. */

/** The text of a result's first content block; throws, showing the result, when that is not a text block. */
export function firstText(result: { content?: unknown }): string {
  const block = (result.content as { type?: string; text?: string }[] | undefined)?.[0];
  if (block?.type !== 'text' || typeof block.text !== 'string') {
    throw new Error(`no text block in ${JSON.stringify(result)}`);
  }
  return block.text;
}
