import type { ServerCapabilities } from '@modelcontextprotocol/server';
import type { ResolvedConfig } from '../config/types.js';
import type { Mount } from '../mounts/mount.js';
import type { Problem } from '../errors.js';
import { driftProblem } from '../pins/drift.js';
import type { Lock } from '../pins/lock.js';
import { CatalogueIndex } from './catalogue-index.js';
import { Curation } from './curation.js';
import type { ListItem, ListKind } from '../vocabulary/list-kinds.js';
import { MountView } from './mount-view.js';

/**
 * One complete catalogue: a config, the mounts it names, how each is served
 * (its curation and the lock its definitions are judged by), and the index
 * of everything they expose. A reload builds the next generation beside the
 * live one and swaps it in whole, so a client never sees a half-built
 * catalogue or a list mixing two of them.
 */
export class Generation {
  private currentIndex: CatalogueIndex;
  private readonly views: Map<Mount, MountView>;

  /** `curations[i]` is what of `mounts[i]` is served (all of it when absent). */
  constructor(
    readonly id: number,
    readonly config: ResolvedConfig,
    readonly mounts: readonly Mount[],
    curations: readonly Curation[] = [],
    readonly lock?: Lock,
  ) {
    this.views = new Map(
      mounts.map((mount, i) => [mount, new MountView(mount, curations[i] ?? new Curation(), config, lock)]),
    );
    this.currentIndex = this.buildIndex();
  }

  /** How this generation serves one of its mounts. */
  viewOf(mount: Mount): MountView {
    return this.views.get(mount)!;
  }

  /** A mount's drained items as clients see them: curated, and without what the pins policy withholds. */
  served(mount: Mount, kind: ListKind): ListItem[] {
    const view = this.viewOf(mount);
    return mount.items[kind].flatMap((item): ListItem[] => {
      const served = view.present(kind, item);
      return served ? [served] : [];
    });
  }

  get index(): CatalogueIndex {
    return this.currentIndex;
  }

  /**
   * What is worth a warning but refuses nothing: curation that matches
   * nothing the mounts serve, and definitions that drifted from the lock
   * (under `pins: 'refuse'` those are withheld, and say so).
   */
  warnings(): Problem[] {
    const unmatched = this.mounts.filter((m) => m.isUp).flatMap((m) => this.viewOf(m).curation.unmatched(m.items));
    const drifted = this.index.drifts.map(({ mount, drift, withheld }) =>
      driftProblem(mount.description, drift, withheld),
    );
    return [...unmatched, ...drifted];
  }

  /** Rebuild the index after a mount's lists changed. */
  reindex(): void {
    this.currentIndex = this.buildIndex();
  }

  /**
   * Exactly what the mounts provide, with `listChanged` on tools, prompts and
   * resources: the host's catalogue changes at every reload even when no
   * plugin's does.
   */
  capabilities(): ServerCapabilities {
    const capabilities: ServerCapabilities = {};
    const provided = (key: keyof ServerCapabilities) => this.mounts.some((m) => m.capabilities[key] !== undefined);
    if (provided('tools')) capabilities.tools = { listChanged: true };
    if (provided('prompts')) capabilities.prompts = { listChanged: true };
    if (provided('resources')) {
      const subscribe = this.mounts.some((m) => (m.capabilities.resources as { subscribe?: boolean })?.subscribe);
      capabilities.resources = { listChanged: true, ...(subscribe ? { subscribe: true } : {}) };
    }
    if (provided('completions')) capabilities.completions = {};
    if (provided('logging')) capabilities.logging = {};
    return capabilities;
  }

  private buildIndex(): CatalogueIndex {
    return new CatalogueIndex([...this.views.values()], this.config.maxNameLength);
  }
}
