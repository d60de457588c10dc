import type { ListKind } from '../vocabulary/list-kinds.js';

/**
 * One mount's list refreshes after its own `list_changed`, coalesced: at
 * most one runs at a time, and the kinds announced meanwhile wait for a
 * single next one. A plugin that announces a change ten thousand times in a
 * burst costs two drains and two notifications to each client, not ten
 * thousand of each.
 */
export class RefreshCoalescer {
  private running = false;
  private readonly waiting = new Set<ListKind>();

  /** `refresh` must not reject: it reports its own failures. */
  constructor(private readonly refresh: (kinds: ListKind[]) => Promise<void>) {}

  request(kinds: readonly ListKind[]): void {
    for (const kind of kinds) this.waiting.add(kind);
    if (!this.running) void this.run();
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      while (this.waiting.size > 0) {
        const kinds = [...this.waiting];
        this.waiting.clear();
        await this.refresh(kinds);
      }
    } finally {
      this.running = false;
    }
  }
}
