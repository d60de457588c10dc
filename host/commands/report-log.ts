import { pino, type LevelWithSilent } from 'pino';
import type { Logger } from '../log.js';

/** A line of the log, as pino wrote it. */
interface LogLine {
  level?: number;
  msg?: unknown;
  plugin?: unknown;
  err?: { message?: unknown };
}

/**
 * The log of a command whose output is a report (`mcp-host check`): what is
 * logged while it runs is kept, not written, and the report says it in
 * words, one `warning:` line each (`reportLines`). An operator reading the
 * report, or a CI job gating on it, never meets a JSON log line in it.
 */
export class ReportLog {
  readonly logger: Logger;
  private readonly lines: LogLine[] = [];

  constructor(level: LevelWithSilent = 'warn') {
    this.logger = pino(
      { name: 'mcp-host', level },
      {
        write: (text: string) => {
          const line = JSON.parse(text) as LogLine;
          // A fatal line is the last before the process exits: said now, in words, or it would never be.
          if ((line.level ?? 0) >= FATAL) process.stderr.write(`mcp-host: ${wording(line)}\n`);
          else this.lines.push(line);
        },
      },
    );
  }

  /**
   * What was logged, one `warning:` line per distinct message, naming the
   * plugin it came from; none of them says what `known` (the report's own
   * lines) says already, nor is about a plugin `known` names.
   */
  reportLines(known: string): string {
    const said = new Set<string>();
    for (const line of this.lines) {
      // A plugin the report names has its problem said there: its log lines are that problem's detail.
      if (line.plugin !== undefined && known.includes(`plugin "${String(line.plugin)}"`)) continue;
      if (repeats(String(line.err?.message ?? line.msg), known)) continue;
      said.add(`warning: ${wording(line)}\n`);
    }
    return [...said].join('');
  }
}

/** The shortest sentence taken for a repeat of the report's own: shorter ones are common words. */
const REPEATED_CHARS = 40;

/**
 * Whether a logged message says what the report says already: whole (an
 * error the report quotes), or a sentence of it after a `what: ` lead (a
 * mount's "connecting failed: CAUSE. Reconnecting…", whose cause is a
 * problem of the report).
 */
function repeats(message: string, known: string): boolean {
  if (known.includes(message)) return true;
  for (let at = message.indexOf(': '); at !== -1; at = message.indexOf(': ', at + 2)) {
    const rest = message.slice(at + 2);
    const end = rest.indexOf('. ');
    const sentence = end === -1 ? rest : rest.slice(0, end + 1);
    if (sentence.length >= REPEATED_CHARS && known.includes(sentence)) return true;
  }
  return false;
}

/** pino's level of `fatal`. */
const FATAL = 60;

/** A log line in words: the plugin it came from, its message, and the error's own words. */
function wording(line: LogLine): string {
  const from = line.plugin === undefined ? '' : `plugin "${String(line.plugin)}": `;
  const cause = line.err?.message === undefined ? '' : `: ${String(line.err.message)}`;
  return `${from}${String(line.msg ?? '')}${cause}`;
}
