/**
 * The host's refusals. An error message is part of the interface: every
 * refusal says what was wrong, where (file, config path, plugin, key), and the
 * fix, so an operator can act on it without reading the source.
 */
export interface Problem {
  /** Where the problem is: `mcp-host.config.js: plugins[2].prefix`, `plugin "weather"`, … */
  where: string;
  /** What is wrong, in one sentence. */
  what: string;
  /** What to do about it. */
  fix?: string;
}

export function formatProblem(problem: Problem): string {
  return `${problem.where}: ${problem.what}${problem.fix ? ` Fix: ${problem.fix}` : ''}`;
}

/** One refusal with a known place and fix. */
export class HostError extends Error implements Problem {
  readonly where: string;
  readonly what: string;
  readonly fix?: string;

  constructor(problem: Problem, options?: ErrorOptions) {
    super(formatProblem(problem), options);
    this.name = 'HostError';
    this.where = problem.where;
    this.what = problem.what;
    if (problem.fix !== undefined) this.fix = problem.fix;
  }
}

/**
 * Several refusals at once: `mcp-host check`, a reload and start-up report
 * every problem they find, not the first.
 */
export class ProblemsError extends Error {
  readonly problems: readonly Problem[];

  constructor(problems: readonly Problem[]) {
    super(
      problems.length === 1
        ? formatProblem(problems[0]!)
        : `${problems.length} problems:\n${problems.map((p) => `- ${formatProblem(p)}`).join('\n')}`,
    );
    this.name = 'ProblemsError';
    this.problems = problems;
  }
}

/** The problems an error carries, whatever threw it (a plugin may throw anything). */
export function problemsOf(error: unknown, where: string): Problem[] {
  if (error instanceof ProblemsError) return [...error.problems];
  if (error instanceof HostError)
    return [{ where: error.where, what: error.what, ...(error.fix ? { fix: error.fix } : {}) }];
  return [{ where, what: describeThrown(error) }];
}

/** A readable one-line description of anything thrown. */
export function describeThrown(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    // JSON has no word for a symbol, a function or undefined: String names them (`Symbol(why)`).
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
