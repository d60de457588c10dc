import { TASKS_EXTENSION } from '../vocabulary/task-extension.js';
import { offersTasks } from './offered-extensions.js';
import type { ServerCapabilities } from '@modelcontextprotocol/server';
import type { ResolvedConfig } from '../config/types.js';
import type { Mount } from '../mounts/mount.js';
import type { Problem } from '../errors.js';
import { driftProblem } from '../pins/drift.js';
import type { Lock } from '../pins/lock.js';
import { CatalogueIndex } from './catalogue-index.js';
import { Curation } from './curation.js';
import { ALL_LIST_KINDS, type ListItem, type ListKind } from '../vocabulary/list-kinds.js';
import { configTwinsWarning } from '../config/config-twins.js';
import { accessWarnings } from './access-warnings.js';
import { MountView } from './mount-view.js';
import { ERAS, type Era } from '../protocol-versions.js';
import type { ToolSearch } from './tool-search.js';
import { SEARCH_TOOL_NAME } from './search-tool-name.js';
import { extensionCapabilities } from './extension-capabilities.js';
import { searchModeOf, serverWarnings } from './virtual-server.js';

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
  /**
   * What legacy clients are served, when a mount's upstream speaks both eras:
   * the same catalogue with each such mount's 2025-era face in its place,
   * composed, curated, pinned, indexed and announced on its own. Without
   * such a mount both eras are served this generation.
   */
  private readonly legacyView?: Generation;
  /** The search index of this view's tools, once asked for (tool-search.ts). */
  private search?: Promise<ToolSearch>;
  /** The index the next search index is built from by difference: the last generation's, or this one's before a reindex. */
  private searchPredecessor?: Promise<ToolSearch>;

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
    if (mounts.some((mount) => mount.legacyFace)) {
      const faces = mounts.map((mount) => mount.legacyFace ?? mount);
      this.legacyView = new Generation(id, config, faces, curations, lock);
    }
  }

  /** The catalogue a client of `era` is served. */
  view(era: Era): Generation {
    return era === 'legacy' ? (this.legacyView ?? this) : this;
  }

  /** This generation's views: one, or two when some mount shows each era its own face. */
  get eraViews(): Generation[] {
    return this.legacyView ? [this, this.legacyView] : [this];
  }

  /**
   * The eras whose clients a mount serves in this generation: both for a
   * mount of one face, one for each face of a mount that has two; none
   * for a mount not in it.
   */
  erasServedBy(mount: Mount): Era[] {
    if (this.mounts.includes(mount)) return mount.legacyFace ? ['modern'] : ['legacy', 'modern'];
    return this.legacyView?.mounts.includes(mount) ? ['legacy'] : [];
  }

  /** Collisions and bad names in any view: a catalogue either era could not be served is refused. */
  get problems(): Problem[] {
    const seen = new Set<string>();
    return this.eraViews
      .flatMap((view) => [...view.index.allProblems, ...view.searchToolProblems()])
      .filter((problem) => {
        const text = JSON.stringify(problem);
        return !seen.has(text) && seen.add(text);
      });
  }

  /** A served tool that would take the search tool's name where clients may be served search. */
  private searchToolProblems(): Problem[] {
    const mode = searchModeOf(this.config);
    const owner = this.index.owners.tools.get(SEARCH_TOOL_NAME);
    if (!mode || !owner) return [];
    return [
      {
        where: owner.mount.description,
        what: `serves a tool named "${SEARCH_TOOL_NAME}", the name of the host's own search tool under discovery.mode '${mode}', and a client could not tell them apart.`,
        fix: `mount it under a prefix, or rename the tool in its entry (tools.rename: { ${JSON.stringify(owner.own)}: "…" }).`,
      },
    ];
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
   * What is worth a warning but refuses nothing: a second config file beside
   * the one read, curation that matches nothing the mounts serve,
   * definitions that drifted from the lock (under `pins: 'refuse'` those are
   * withheld, and say so), access rules that match no client or globs
   * of theirs that match nothing served, and virtual servers' globs that
   * match nothing served.
   */
  warnings(): Problem[] {
    const twins = configTwinsWarning(this.config.file);
    const served = Object.fromEntries(
      ALL_LIST_KINDS.map((kind) => [
        kind,
        new Set(this.eraViews.flatMap((view) => [...view.index.owners[kind].keys()])),
      ]),
    ) as Record<ListKind, Set<string>>;
    return [
      ...(twins ? [twins] : []),
      ...this.eraViews.flatMap((view) => view.ownWarnings()),
      ...accessWarnings(this.config, served),
      ...serverWarnings(this.config, served),
    ];
  }

  private ownWarnings(): Problem[] {
    const unmatched = this.mounts.filter((m) => m.isUp).flatMap((m) => this.viewOf(m).curation.unmatched(m.items));
    const drifted = this.index.drifts.map(({ mount, drift, withheld }) =>
      driftProblem(mount.description, drift, withheld),
    );
    return [...unmatched, ...drifted];
  }

  /** Rebuild the index after a mount's lists changed. */
  reindex(): void {
    this.currentIndex = this.buildIndex();
    this.searchPredecessor = this.search ?? this.searchPredecessor;
    this.search = undefined;
    this.legacyView?.reindex();
    this.prepareSearch();
  }

  /** The search index of the tools this view serves, built at first need from its predecessor's. */
  toolSearch(): Promise<ToolSearch> {
    return (this.search ??= this.buildSearch());
  }

  /**
   * Build each view's search index from `before`'s (a reload's swap): only
   * what the reload changed is indexed again.
   */
  succeed(before: Generation): void {
    for (const era of ERAS) {
      const view = this.view(era);
      view.searchPredecessor ??= before.view(era).search;
    }
    this.prepareSearch();
  }

  /**
   * Where clients may be served search, build the index now, after the
   * current request, so that no search waits for it.
   */
  private prepareSearch(): void {
    if (!searchModeOf(this.config)) return;
    setImmediate(() => {
      // An index that cannot be built (WordNet unreadable) is each search's answer, naming the fix; built
      // ahead of need, its failure has no one waiting, and must not reach the host's unhandled-rejection guard.
      for (const view of this.eraViews) view.toolSearch().catch(() => {});
    });
  }

  private async buildSearch(): Promise<ToolSearch> {
    const predecessor = await this.searchPredecessor;
    this.searchPredecessor = undefined;
    const tools = [...this.index.owners.tools].map(([name, { mount, item, served }]) => ({
      name,
      item,
      served,
      mount: mount.spec.prefix,
    }));
    // Loaded here, at the first index built: a host that never serves search never loads it.
    const { ToolSearch } = await import('./tool-search.js');
    return ToolSearch.build(tools, predecessor);
  }

  /**
   * Tools, prompts and resources always, with `listChanged`: the host's
   * catalogue changes at every reload even when no plugin's does, and a host
   * with no mounts yet answers empty lists and announces what a reload adds.
   * Beyond those, what this view's mounts provide (a dual-era upstream's
   * faces differ: `logging`, completions and subscriptions are often its
   * legacy face's alone).
   *
   * For 2026-07-28 clients (`era` 'modern') completions are offered too
   * when a mount spoken to at 2026-07-28 serves prompts or resources: such a
   * server may answer `completion/complete` without declaring it (the
   * conformance suite's reference server does), and a client gets through
   * the host what it gets directly, the owning mount's answer or its
   * "Method not found".
   */
  capabilities(era: Era): ServerCapabilities {
    const provided = (key: keyof ServerCapabilities) => this.mounts.some((m) => m.capabilities[key] !== undefined);
    const subscribe = this.mounts.some((m) => (m.capabilities.resources as { subscribe?: boolean })?.subscribe);
    const capabilities: ServerCapabilities = {
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { listChanged: true, ...(subscribe ? { subscribe: true } : {}) },
    };
    const completable = (m: Mount) => m.peer.speaksModern && (m.provides('prompts') || m.provides('resources'));
    if (provided('completions') || (era === 'modern' && this.mounts.some(completable))) capabilities.completions = {};
    if (provided('logging')) capabilities.logging = {};
    const extensions = extensionCapabilities(this.mounts);
    if (extensions)
      capabilities.extensions = { ...capabilities.extensions, ...(extensions as ServerCapabilities['extensions']) };
    // An extension is advertised only when a mount offers it, and tasks only to 2026-07-28 clients (SEP-2663).
    if (era === 'modern' && this.mounts.some(offersTasks))
      capabilities.extensions = { ...capabilities.extensions, [TASKS_EXTENSION]: {} };
    return capabilities;
  }

  private buildIndex(): CatalogueIndex {
    return new CatalogueIndex([...this.views.values()], this.config.maxNameLength);
  }
}
