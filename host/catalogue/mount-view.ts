import type { ResolvedConfig } from '../config/types.js';
import type { ListPage, Mount } from '../mounts/mount.js';
import { judgeDrift, type Drift } from '../pins/drift.js';
import type { Lock } from '../pins/lock.js';
import { Curation } from './curation.js';
import { keyOf, type ListItem, type ListKind } from '../vocabulary/list-kinds.js';
import { isRenamed, qualify, shortenName } from './names.js';
import { servedSkill, servedTool, servedUriField } from '../vocabulary/served-uris.js';

/**
 * A mount as one generation serves it: its items in the plugin's own names
 * (the mount's drained copy and its pages) become the items clients see,
 * curated, renamed, prefixed, shortened, and judged against the lock.
 *
 * Everything here is a pure function of the raw item for the generation's
 * life (its curation and lock are fixed), so results are cached per item and
 * per page object: listing a mount whose pages the mount keeps costs one
 * lookup, curated or not.
 */
export class MountView {
  private readonly pages = new WeakMap<ListPage, ListItem[]>();
  private readonly drifts = new WeakMap<ListItem, Drift | null>();

  constructor(
    readonly mount: Mount,
    readonly curation: Curation,
    private readonly config: ResolvedConfig,
    private readonly lock: Lock | undefined,
  ) {}

  /** The name clients see for the plugin's tool or prompt `own` (curation aside). */
  composedName(kind: 'tools' | 'prompts', own: string): string {
    const composed = qualify(this.mount.spec.prefix, this.curation.servedName(kind, own), this.config.separator);
    return this.config.shortenNames ? shortenName(composed, this.config.maxNameLength) : composed;
  }

  /**
   * The item as clients see it, or undefined when the entry's curation
   * leaves it out. Pins aside. Curation judges the plugin's own name or
   * URI; a prefixed mount's `ui://` and `skill://` URIs, and those its
   * tools name, are served under its prefix (served-uris.ts).
   */
  curate(kind: ListKind, item: ListItem): ListItem | undefined {
    const own = keyOf(kind, item);
    if (!this.curation.serves(kind, own)) return undefined;
    const { prefix } = this.mount.spec;
    if (kind === 'resources') return servedUriField(prefix, item, 'uri');
    if (kind === 'resourceTemplates') return servedUriField(prefix, item, 'uriTemplate');
    if (kind === 'skills') return servedSkill(prefix, item);
    const name = this.composedName(kind, own);
    const description = this.curation.description(kind, own);
    const named =
      name === own && description === undefined
        ? item
        : { ...item, name, ...(description !== undefined && { description }) };
    return kind === 'tools' ? servedTool(prefix, named) : named;
  }

  /** How a served tool or prompt differs from the lock, when there is a lock. */
  driftOf(kind: ListKind, item: ListItem, served: ListItem): Drift | undefined {
    if (!this.lock || !isRenamed(kind)) return undefined;
    let drift = this.drifts.get(item);
    if (drift === undefined) {
      drift = judgeDrift(this.lock, this.mount.pinName, kind, served) ?? null;
      this.drifts.set(item, drift);
    }
    return drift ?? undefined;
  }

  /** Whether the pins policy keeps a served item from clients. */
  withholds(kind: ListKind, item: ListItem, served: ListItem): boolean {
    return this.config.pins === 'refuse' && this.driftOf(kind, item, served) !== undefined;
  }

  /** The item as clients see it, or undefined when it is curated out or withheld. */
  present(kind: ListKind, item: ListItem): ListItem | undefined {
    const served = this.curate(kind, item);
    return served && !this.withholds(kind, item, served) ? served : undefined;
  }

  /** One page of the mount's list as clients see it. */
  presentPage(kind: ListKind, page: ListPage): ListItem[] {
    let items = this.pages.get(page);
    if (!items) {
      items = [];
      for (const item of page.items) {
        const served = this.present(kind, item);
        if (served) items.push(served);
      }
      this.pages.set(page, items);
    }
    return items;
  }
}
