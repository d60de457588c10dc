import type { ServerCapabilities } from '@modelcontextprotocol/server';
import type { PluginSpec } from '../loader/types.js';
import type { Logger } from '../log.js';
import { ALL_LIST_KINDS, LIST_KINDS, type ListItem, type ListKind } from '../vocabulary/list-kinds.js';
import { HostError, formatProblem, type Problem } from '../errors.js';
import { ErrorCode, RpcError } from '../rpc-error.js';
import type { JSONRPCNotification } from '@modelcontextprotocol/server';
import type { Handshake, UpstreamPeer } from './upstream-peer.js';
import type { CallHooks } from '../vocabulary/call-hooks.js';
import type { ClientScope } from '../vocabulary/client-scope.js';
import { resultProblem } from './result-check.js';
import { hintOf, type CacheHint } from '../vocabulary/cache-hints.js';
import { isPlainObject } from '../plain-object.js';

/** Where a mount's own traffic goes: the host runtime, which outlives generations. */
export interface MountEvents {
  /** A notification the upstream sent that belongs to no call (list_changed, resources/updated, log messages). */
  onNotification(mount: Mount, notification: JSONRPCNotification): void;
  /** The upstream's connection ended. */
  onClose(mount: Mount): void;
  /** A supervised mount went down or came back up: its lists left or rejoined the catalogue. */
  onStateChange(mount: Mount): void;
}

/**
 * `up` serves; `down` is withdrawn from the catalogue while its supervisor
 * reconnects it (a child that exited, a remote that dropped); `closed` is
 * for good (the host closed it).
 */
export type MountState = 'up' | 'down' | 'closed';

/** A mount's name: its prefix, or for a flat mount its package, command or URL. Also its logger's `plugin`. */
export function mountName(spec: PluginSpec): string {
  return spec.prefix ?? spec.label;
}

/** How messages name a mount: `plugin "weather" (@acme/mcp-weather)`, or `plugin "@acme/notes"` when flat. */
export function describeMount(spec: PluginSpec): string {
  return spec.prefix !== undefined && spec.prefix !== spec.label
    ? `plugin "${spec.prefix}" (${spec.label})`
    : `plugin "${spec.label}"`;
}

/**
 * Of an entry with `sessions: 'per-client'`: the upstreams that serve each
 * client session's requests (per-client-upstreams.ts), beside the shared
 * one, which serves the catalogue.
 */
export interface SessionPeers {
  /** The peer of `scope`'s own upstream, opened at its first request. */
  peerFor(scope: ClientScope): Promise<UpstreamPeer>;
  /** Calls waiting for an answer from any of them. */
  readonly inFlight: number;
  /** Fail their calls in flight with `reason` (a retired mount's, at the drain timeout). */
  abandon(reason: string): void;
  close(): Promise<void>;
}

export interface ListPage {
  items: ListItem[];
  nextCursor?: string;
  /** The page's caching hint, from a 2026-07-28 upstream. */
  hint?: CacheHint;
}

/**
 * One mounted upstream, whatever kind it is: the peer that talks to it, what
 * it said at the handshake, and the last complete copy of each of its lists.
 *
 * The copy (drained at start, at reload and after the mount's own
 * `list_changed`) is what routing and collision checks read. Lists served to
 * clients are fetched from the upstream page by page, with the upstream's own
 * cursors; a page is reused only while the upstream has promised to announce
 * changes to that list (`listChanged` in its capabilities) and has not.
 */
export class Mount {
  /** The last complete list of each kind, in the mount's own names. */
  readonly items: Record<ListKind, ListItem[]> = {
    tools: [],
    prompts: [],
    resources: [],
    resourceTemplates: [],
    skills: [],
  };
  state: MountState = 'up';
  /**
   * Pages of the lists whose changes the upstream announces, by cursor ('' for
   * the first page). Listing 20 tools costs an SDK server a JSON Schema
   * conversion per tool per request; a host that relists on every client's
   * request would pay it again for each client.
   */
  private readonly pages: Record<ListKind, Map<string, ListPage>> = {
    tools: new Map(),
    prompts: new Map(),
    resources: new Map(),
    resourceTemplates: new Map(),
    skills: new Map(),
  };
  /**
   * The JSON text of the first page of each list last found valid, for the
   * lists whose changes the upstream does not announce (see `resultProblem`
   * and `fetchPage`): one page per list, so a client's made-up cursors
   * cannot grow it.
   */
  private readonly validFirstPages: Record<ListKind, { text?: string }> = {
    tools: {},
    prompts: {},
    resources: {},
    resourceTemplates: {},
    skills: {},
  };
  /** While the mount is down, why, and what would bring it back: set by its supervisor. */
  outage?: { cause: string; fix: string };
  /**
   * Of an upstream that speaks both eras: the mount of its 2025-era link,
   * which serves the host's legacy clients (this one serves 2026-07-28
   * clients). Its own lists, capabilities, pages and supervisor: the two
   * faces of one server may differ in all of them.
   */
  legacyFace?: Mount;
  /** Set on a legacy face (legacy-face.ts): the era whose clients alone it serves. */
  faceEra?: 'legacy';
  /** Set for `sessions: 'per-client'`: a long-lived client session's requests go to its own upstream. */
  sessionPeers?: SessionPeers;

  /**
   * `peer` and `handshake` are replaced by a supervisor when it reconnects
   * the upstream; everything else about the mount stays.
   */
  constructor(
    readonly spec: PluginSpec,
    public peer: UpstreamPeer,
    public handshake: Handshake,
    readonly logger: Logger,
    private readonly release: () => Promise<void> = async () => {},
  ) {}

  /** The prefix of a prefixed mount; the package, command or URL of a flat one. */
  get name(): string {
    return mountName(this.spec);
  }

  /**
   * Its key in the lock (`mcp-host.lock.json`): its name, and for the legacy
   * face of a dual-era upstream its name marked so, since each face's
   * definitions are its own.
   */
  get pinName(): string {
    return this.faceEra ? `${this.name} (${this.faceEra})` : this.name;
  }

  /** How messages name this mount: `plugin "weather" (@acme/mcp-weather)`. */
  get description(): string {
    return describeMount(this.spec);
  }

  get isUp(): boolean {
    return this.state === 'up';
  }

  /** Why the mount is not serving, when it is down: what `check` reports and what a call to it is told. */
  get outageProblem(): Problem | undefined {
    if (this.state !== 'down' || !this.outage) return undefined;
    return { where: this.description, what: `is down: ${this.outage.cause}`, fix: this.outage.fix };
  }

  /**
   * Forward a client's request to the upstream, or refuse it naming the
   * mount and its state; its answer passes on whole, unless it is too big
   * or malformed (then the client is told why, naming the mount).
   */
  request(method: string, params?: Record<string, unknown>, hooks?: CallHooks): Promise<Record<string, unknown>> {
    if (!this.isUp) {
      const problem = this.outageProblem ?? { where: this.description, what: `is ${this.state}.` };
      return Promise.reject(new RpcError(ErrorCode.InternalError, formatProblem(problem)));
    }
    // Not an async function: on the hot path each promise also pays the in-process link's async context.
    const answer =
      hooks?.scope && this.sessionPeers
        ? this.sessionPeers.peerFor(hooks.scope).then((peer) => peer.request(method, params, hooks))
        : this.peer.request(method, params, hooks);
    return answer.then((result) => this.checked(method, result));
  }

  /**
   * Have the upstream tell of task `upstreamId`'s status, or stop. Calls
   * and their follow-ups (proxy/task-requests.ts) reach the shared upstream,
   * so the task is there.
   */
  followTask(upstreamId: string, follow: boolean): void {
    this.peer.followTask(upstreamId, follow);
  }

  /** Client calls waiting for an answer, on the shared upstream and on the sessions' own. */
  get inFlight(): number {
    return this.peer.inFlight + (this.sessionPeers?.inFlight ?? 0);
  }

  /** Cancel every call in flight, telling its client `reason` (see UpstreamPeer.abandon). */
  abandon(reason: string): void {
    this.peer.abandon(reason);
    this.sessionPeers?.abandon(reason);
  }

  private checked(
    method: string,
    result: Record<string, unknown>,
    lastValid?: { text?: string },
  ): Record<string, unknown> {
    const problem = resultProblem(method, result, this.spec.maxResultBytes, lastValid);
    // A HostError reaches a client as -32603 with this message, and start-up lists it as the mount's problem.
    if (problem) throw new HostError({ where: this.description, ...problem });
    return result;
  }

  get capabilities(): ServerCapabilities {
    return this.handshake.capabilities ?? {};
  }

  /** Whether the upstream serves this list: it declared the capability, or for an extension's list the extension. */
  provides(kind: ListKind): boolean {
    const { capability, extension } = LIST_KINDS[kind];
    if (extension === undefined) return this.capabilities[capability] !== undefined;
    const extensions = (this.capabilities as { extensions?: Record<string, unknown> }).extensions;
    return isPlainObject(extensions?.[extension]);
  }

  /** Whether the upstream promised `list_changed` for this kind of list. */
  announcesChanges(kind: ListKind): boolean {
    const capability = this.capabilities[LIST_KINDS[kind].capability] as { listChanged?: boolean } | undefined;
    return capability?.listChanged === true;
  }

  /** One page of one list: from the upstream, or its unchanged copy. */
  async list(kind: ListKind, cursor?: string, hooks?: CallHooks): Promise<ListPage> {
    const cached = this.pages[kind].get(cursor ?? '');
    if (cached) return cached;
    const page = await this.fetchPage(kind, cursor, hooks);
    if (this.announcesChanges(kind)) this.pages[kind].set(cursor ?? '', page);
    return page;
  }

  /**
   * One page from the upstream. A composed list spans every mount, so a
   * failure names the mount it came from (unless it already does).
   */
  private async fetchPage(kind: ListKind, cursor?: string, hooks?: CallHooks): Promise<ListPage> {
    const { method, field } = LIST_KINDS[kind];
    let result: Record<string, unknown>;
    try {
      result = await this.peer.request(method, cursor === undefined ? undefined : { cursor }, hooks);
    } catch (error) {
      if (!(error instanceof RpcError) || error.message.includes(this.description)) throw error;
      throw new HostError({ where: this.description, what: `failed ${method}: ${error.message}` }, { cause: error });
    }
    // A list whose changes are not announced is fetched for every request, and is mostly the same list.
    const lastValid = cursor === undefined && !this.announcesChanges(kind) ? this.validFirstPages[kind] : undefined;
    const items = this.checked(method, result, lastValid)[field] as ListItem[];
    const next = result.nextCursor;
    const hint = hintOf(result);
    return {
      items,
      ...(typeof next === 'string' && next !== '' ? { nextCursor: next } : {}),
      ...(hint ? { hint } : {}),
    };
  }

  /** Follow a list to its end, refusing a mount that paginates forever. */
  async drain(kind: ListKind): Promise<ListItem[]> {
    if (!this.provides(kind)) return [];
    const all: ListItem[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < this.spec.maxListPages; page++) {
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
      what: `${LIST_KINDS[kind].method} still had more after ${this.spec.maxListPages} pages (maxListPages).`,
      fix: "fix the plugin's pagination, or serve fewer, larger pages; if the list really is that long, raise the entry's maxListPages.",
    });
  }

  /** Refresh the copy of the given lists (all of them by default). */
  async refresh(kinds: readonly ListKind[] = ALL_LIST_KINDS): Promise<void> {
    for (const kind of kinds) this.pages[kind].clear();
    const drained = await Promise.all(kinds.map((kind) => this.drain(kind)));
    kinds.forEach((kind, i) => {
      this.items[kind] = drained[i]!;
    });
  }

  async close(): Promise<void> {
    this.state = 'closed';
    try {
      await Promise.all([this.peer.close(), this.legacyFace?.close(), this.sessionPeers?.close()]);
    } finally {
      await this.release();
    }
  }
}
