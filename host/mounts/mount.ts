import type { ServerCapabilities } from '@modelcontextprotocol/server';
import type { PluginSpec } from '../loader/types.js';
import type { Logger } from '../log.js';
import { ALL_LIST_KINDS, LIST_KINDS, keyOf, type ListItem, type ListKind } from '../catalogue/list-kinds.js';
import { HostError } from '../errors.js';
import type { JSONRPCNotification } from '@modelcontextprotocol/server';
import type { CallHooks, Handshake, UpstreamPeer } from './upstream-peer.js';

/** Where a mount's own traffic goes: the host runtime, which outlives generations. */
export interface MountEvents {
  /** A notification the upstream sent that belongs to no call (list_changed, resources/updated, log messages). */
  onNotification(mount: Mount, notification: JSONRPCNotification): void;
  /** The upstream's connection ended. */
  onClose(mount: Mount): void;
}

/** How far the host follows one mount's pagination before calling it broken. */
export const MAX_LIST_PAGES = 1000;

export interface ListPage {
  items: ListItem[];
  nextCursor?: string;
}

/**
 * One mounted upstream, whatever kind it is: the peer that talks to it, what
 * it said at the handshake, and the last complete copy of each of its lists.
 *
 * The copy (drained at start, at reload and after the mount's own
 * `list_changed`) is what routing and collision checks read. Lists served to
 * clients are fetched live, so a client never sees a stale page.
 */
export class Mount {
  /** The last complete list of each kind, in the mount's own names. */
  readonly items: Record<ListKind, ListItem[]> = { tools: [], prompts: [], resources: [], resourceTemplates: [] };

  constructor(
    readonly spec: PluginSpec,
    readonly peer: UpstreamPeer,
    readonly handshake: Handshake,
    readonly logger: Logger,
    private readonly release: () => Promise<void> = async () => {},
  ) {}

  /** The prefix of a prefixed mount; the package, command or URL of a flat one. */
  get name(): string {
    return this.spec.prefix ?? this.spec.label;
  }

  /** How messages name this mount: `plugin "weather" (@acme/mcp-weather)`. */
  get description(): string {
    return this.spec.prefix !== undefined && this.spec.prefix !== this.spec.label
      ? `plugin "${this.spec.prefix}" (${this.spec.label})`
      : `plugin "${this.spec.label}"`;
  }

  get capabilities(): ServerCapabilities {
    return this.handshake.capabilities ?? {};
  }

  provides(kind: ListKind): boolean {
    return this.capabilities[LIST_KINDS[kind].capability] !== undefined;
  }

  /** One page of one list, straight from the upstream. */
  async list(kind: ListKind, cursor?: string, hooks?: CallHooks): Promise<ListPage> {
    const { method, field } = LIST_KINDS[kind];
    const result = await this.peer.request(method, cursor === undefined ? undefined : { cursor }, hooks);
    const items = result[field];
    if (!Array.isArray(items)) {
      throw new HostError({
        where: this.description,
        what: `answered ${method} without a "${field}" array.`,
        fix: 'fix the plugin: its list results must follow the MCP schema.',
      });
    }
    const next = result.nextCursor;
    return typeof next === 'string' && next !== ''
      ? { items: items as ListItem[], nextCursor: next }
      : { items: items as ListItem[] };
  }

  /** Follow a list to its end, refusing a mount that paginates forever. */
  async drain(kind: ListKind): Promise<ListItem[]> {
    if (!this.provides(kind)) return [];
    const all: ListItem[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const result = await this.list(kind, cursor);
      all.push(...result.items);
      if (result.nextCursor === undefined) return all;
      if (seen.has(result.nextCursor)) {
        throw new HostError({
          where: this.description,
          what: `repeated the ${LIST_KINDS[kind].method} cursor "${result.nextCursor}", so its list never ends.`,
          fix: "fix the plugin's pagination: each nextCursor must lead to a later page, and the last page has none.",
        });
      }
      seen.add(result.nextCursor);
      cursor = result.nextCursor;
    }
    throw new HostError({
      where: this.description,
      what: `${LIST_KINDS[kind].method} still had more after ${MAX_LIST_PAGES} pages.`,
      fix: "fix the plugin's pagination, or serve fewer, larger pages.",
    });
  }

  /** Refresh the copy of the given lists (all of them by default). */
  async refresh(kinds: readonly ListKind[] = ALL_LIST_KINDS): Promise<void> {
    const drained = await Promise.all(kinds.map((kind) => this.drain(kind)));
    kinds.forEach((kind, i) => {
      this.items[kind] = drained[i]!;
    });
  }

  /** The mount's own name for a composed key, when its copy has it. */
  has(kind: ListKind, key: string): boolean {
    return this.items[kind].some((item) => keyOf(kind, item) === key);
  }

  async close(): Promise<void> {
    try {
      await this.peer.close();
    } finally {
      await this.release();
    }
  }
}
