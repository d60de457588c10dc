/**
 * The tools a 2025-era session's searches found, added to that session's
 * `tools/list` (DESIGN.md, "Discovery for big catalogues"): a client that
 * only calls what it lists gets the real tools, with their real schemas.
 * Bounded (`discovery.maxSurfaced`): the tool found longest ago leaves
 * first, and a tool found again counts as found now.
 */
export class SurfacedTools {
  /** Served names, oldest found first (a Set keeps insertion order). */
  private readonly found = new Set<string>();

  /** Add what a search found, best first, keeping at most `limit`; whether the session's list changed. */
  surface(names: readonly string[], limit: number): boolean {
    const before = [...this.found].join('\n');
    // The best result is the one to keep longest: it goes in last.
    for (const name of [...names].reverse()) {
      this.found.delete(name);
      this.found.add(name);
    }
    for (const name of this.found) {
      if (this.found.size <= limit) break;
      this.found.delete(name);
    }
    return [...this.found].join('\n') !== before;
  }

  /** The names surfaced, oldest found first. */
  get names(): readonly string[] {
    return [...this.found];
  }
}
