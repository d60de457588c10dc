import type { ServerCapabilities } from '@modelcontextprotocol/server';
import type { ResolvedConfig } from '../config/types.js';
import type { Mount } from '../mounts/mount.js';
import { CatalogueIndex } from './catalogue-index.js';

/**
 * One complete catalogue: a config, the mounts it names, and the index of
 * everything they expose. A reload builds the next generation beside the
 * live one and swaps it in whole, so a client never sees a half-built
 * catalogue or a list mixing two of them.
 */
export class Generation {
  private currentIndex: CatalogueIndex;

  constructor(
    readonly id: number,
    readonly config: ResolvedConfig,
    readonly mounts: readonly Mount[],
  ) {
    this.currentIndex = this.buildIndex();
  }

  get index(): CatalogueIndex {
    return this.currentIndex;
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
    return new CatalogueIndex(this.mounts, this.config.separator, this.config.maxNameLength);
  }
}
