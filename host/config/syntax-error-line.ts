/**
 * Where a config's syntax error is, in the words of its refusal. A parser
 * reports the first token it cannot take; for the commonest mistakes in a
 * config (a comma left out at the end of a line, a bracket not closed) that
 * token begins the next line, so the line it names is the one after the
 * mistake. When the token begins its line and the code line before it does
 * not end where more must follow (`,` `{` `[` `(`), the refusal names that
 * earlier line.
 */
import type { Problem } from '../errors.js';
import { endSentence } from './problem-wording.js';

/**
 * The refusal of a syntax error the parser reported at `line` (1-based) and
 * `column` (0-based; unknown: the line as reported is taken as it is).
 */
export function syntaxErrorProblem(
  file: string,
  source: string,
  reason: string,
  line: number,
  column?: number,
): Problem {
  const lines = source.split(/\r?\n/);
  const code = lines[line - 1] ?? '';
  const before = column !== undefined && startsLine(code, column) ? previousCodeLine(lines, line) : undefined;
  if (before === undefined || /[,{[(]$/.test(withoutComment(lines[before - 1]!))) {
    return {
      where: `${file}:${line}`,
      what: `syntax error: ${endSentence(reason)}`,
      fix: `correct line ${line}, which reads: ${code.trim()}`,
    };
  }
  return {
    where: `${file}:${before}`,
    what: `syntax error: ${reason.replace(/\.$/, '')} at the start of line ${line}, so the mistake is at the end of line ${before}: a comma or a closing bracket missing there?`,
    fix: `correct line ${before}, which reads: ${lines[before - 1]!.trim()}`,
  };
}

/** A line's code without a trailing `// comment` (one after white space, so that `https://` stays). */
function withoutComment(text: string): string {
  return text.replace(/\s\/\/.*$/, '').trimEnd();
}

/** Whether `column` is at the first character of `code` that is not white space. */
function startsLine(code: string, column: number): boolean {
  return column <= code.length - code.trimStart().length;
}

/** The nearest line above `line` holding code: not blank, not only a `//` comment. */
function previousCodeLine(lines: readonly string[], line: number): number | undefined {
  for (let at = line - 1; at >= 1; at--) {
    const text = lines[at - 1]!.trim();
    if (text !== '' && !text.startsWith('//')) return at;
  }
  return undefined;
}
