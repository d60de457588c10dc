/**
 * The fenced code blocks of the README and docs/, for the tests that run
 * them (test/docs-examples.test.ts) and walk them (test/install.test.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './packages.js';

export interface Block {
  /** `docs/operators.md:42`: where the block's opening fence is. */
  where: string;
  language: string;
  body: string;
  /** The `<!-- example: … -->` line just before the fence (blank lines between, as prettier writes them), if any. */
  marker: string | undefined;
}

const MARKER = /^\s*<!-- example: (.*) -->\s*$/;
const FENCE = /^(\s*)```(.*)$/;

/** The fenced blocks of one Markdown file, in order. */
export function fencedBlocks(file: string): Block[] {
  const lines = readFileSync(join(REPO_ROOT, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const body: string[] = [];
    let end = i + 1;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end]!)) body.push(lines[end++]!.slice(indent));
    blocks.push({
      where: `${file}:${i + 1}`,
      language: open[2]!.trim(),
      body: `${body.join('\n')}\n`,
      marker: MARKER.exec(lines.slice(0, i).findLast((line) => line.trim() !== '') ?? '')?.[1],
    });
    i = end;
  }
  return blocks;
}
