/**
 * Loading a TypeScript config (`.ts`, `.mts`, `.cts`) with jiti, which strips
 * the types itself: the project's own `typescript` is never asked for, so a
 * config loads whichever TypeScript the project installed, or none. (The
 * compiler's JavaScript API, which cosmiconfig's own loader calls, is gone
 * from TypeScript 7.)
 */
import { readFileSync } from 'node:fs';
import { describeThrown, HostError } from '../errors.js';
import { syntaxErrorProblem } from './syntax-error-line.js';

/**
 * What the config file at `file` exports by default. Each load evaluates the
 * file and what it imports afresh (no module cache), so a reload sees the
 * config as it is now; and no compiled copy is written to disk, since the
 * config's directory may not be writable.
 */
export async function loadTypeScriptConfig(file: string): Promise<unknown> {
  // Loaded here, not with the host: it costs a start about 45 ms of CPU, and most configs are JavaScript.
  const { createJiti } = await import('jiti');
  const jiti = createJiti(file, { moduleCache: false, fsCache: false });
  try {
    return await jiti.import(file, { default: true });
  } catch (error) {
    throw asSyntaxError(file, error) ?? error;
  }
}

/**
 * jiti reports a file it cannot parse as `ParseError: <reason>` followed by
 * `<file>:<line>:<column>`; that becomes the same refusal a JavaScript
 * config's syntax error gets: the line, and what it reads.
 */
function asSyntaxError(file: string, error: unknown): HostError | undefined {
  const parsed = /^ParseError: ([^\n]*?)\s*\n\s*(.+):(\d+):(\d+)$/.exec(describeThrown(error));
  if (!parsed || parsed[2] !== file) return undefined;
  const source = readFileSync(file, 'utf8');
  return new HostError(syntaxErrorProblem(file, source, parsed[1]!, Number(parsed[3]), Number(parsed[4])), {
    cause: error,
  });
}
