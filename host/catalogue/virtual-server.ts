import type { ServerCapabilities } from '@modelcontextprotocol/server';
import type { DiscoveryMode, ResolvedConfig } from '../config/types.js';
import type { Problem } from '../errors.js';
import { configWhere } from '../config/problem-wording.js';
import { serverPath } from '../config/server-settings.js';
import { ErrorCode, RpcError } from '../rpc-error.js';
import type { Identity } from '../vocabulary/identity.js';
import { ALL_LIST_KINDS, type ListKind } from '../vocabulary/list-kinds.js';
import { Curation } from './curation.js';

type ServerSettings = NonNullable<ResolvedConfig['servers']>[string];

/**
 * One virtual server of a config (docs/virtual-servers.md): which served
 * items are its members, by glob over composed names and URIs per list kind
 * (the curation matcher compiles them, as it does access rules' globs). A
 * kind its config leaves out has no members.
 *
 * Membership is a view over a generation like the access rules': the
 * identity's view (access-rules.ts) is the intersection of the two, so
 * lists, calls, searches and list_changed all see the same members.
 */
export class VirtualServer {
  /** Per kind, its globs compiled (templates apart from resources: the curation matcher judges both as resources). */
  private readonly members: Record<ListKind, Curation>;

  constructor(
    readonly key: string,
    readonly settings: ServerSettings,
  ) {
    this.members = Object.fromEntries(
      ALL_LIST_KINDS.map((kind) => [kind, matcherOf(kind, settings[kind] ?? [])]),
    ) as Record<ListKind, Curation>;
  }

  /** Whether the kind has members at all (its config lists globs for it). */
  hasKind(kind: ListKind): boolean {
    return (this.settings[kind]?.length ?? 0) > 0;
  }

  /** Whether a served item (composed name, normalised URI) is a member. */
  includes(kind: ListKind, key: string): boolean {
    return this.hasKind(kind) && this.members[kind].serves(kind, key);
  }

  /**
   * The capabilities its members need, out of the whole catalogue's: a kind
   * it has no globs for is not announced (decided by the config, not by
   * what matches now, so a plugin's list changing never changes them), and
   * completions only where it has prompts or resources to complete.
   */
  capabilities(all: ServerCapabilities): ServerCapabilities {
    const hasResources = this.hasKind('resources') || this.hasKind('resourceTemplates');
    const completable = this.hasKind('prompts') || hasResources;
    return {
      ...(this.hasKind('tools') && { tools: all.tools }),
      ...(this.hasKind('prompts') && { prompts: all.prompts }),
      ...(hasResources && { resources: all.resources }),
      ...(completable && all.completions && { completions: all.completions }),
      ...(all.logging && { logging: all.logging }),
    };
  }

  /** Its globs that match nothing served (`check` warns of them, as of curation's); `served`: every served key, by list. */
  unmatched(served: Record<ListKind, ReadonlySet<string>>, file: string): Problem[] {
    return ALL_LIST_KINDS.flatMap((kind) =>
      (this.settings[kind] ?? [])
        .filter((glob) => {
          const matcher = matcherOf(kind, [glob]);
          return ![...served[kind]].some((key) => matcher.serves(kind, key));
        })
        .map((glob) => ({
          where: configWhere(file, `${serverPath(this.key)}.${kind}`),
          what: `"${glob}" matches nothing served, so the server has no member by it.`,
          fix: `fix the glob (it matches composed ${kind.startsWith('resource') ? 'URIs' : 'names'}, after prefixes and renames: mcp-host check lists them), or remove it.`,
        })),
    );
  }
}

/** `globs` as the curation matcher compiles an include of `kind`'s list. */
function matcherOf(kind: ListKind, globs: string[]): Curation {
  return new Curation({ [kind === 'resourceTemplates' ? 'resources' : kind]: { include: globs } });
}

const compiled = new WeakMap<ResolvedConfig, Map<string, VirtualServer>>();

/** The config's virtual server `name` (compiled once per config), or undefined when it has none of that name. */
export function virtualServerOf(config: ResolvedConfig, name: string): VirtualServer | undefined {
  const settings = config.servers?.[name];
  if (!settings) return undefined;
  let servers = compiled.get(config);
  if (!servers) compiled.set(config, (servers = new Map()));
  let server = servers.get(name);
  if (!server) servers.set(name, (server = new VirtualServer(name, settings)));
  return server;
}

/**
 * The error a client of a virtual server the config no longer has gets
 * (a reload removed it), or undefined while it is there: the client is told
 * why, not that every name it knew is unknown.
 */
export function removedServerError(config: ResolvedConfig, identity: Identity | undefined): RpcError | undefined {
  const name = identity?.server;
  if (name === undefined || config.servers?.[name]) return undefined;
  const left = Object.keys(config.servers ?? {});
  return new RpcError(
    ErrorCode.InvalidRequest,
    `Virtual server "${name}" was removed from the host's config by a reload: it serves nothing now. Fix: connect to ${left.length > 0 ? `one of ${left.map((n) => `/mcp/${n}`).join(', ')} or ` : ''}/mcp, or put servers.${name} back in the config.`,
  );
}

/** The discovery settings `identity` is served by: its virtual server's, else the host's (absent: every tool is listed). */
export function discoveryOf(config: ResolvedConfig, identity: Identity): ResolvedConfig['discovery'] {
  const server = identity.server === undefined ? undefined : config.servers?.[identity.server];
  return server ? server.discovery : config.discovery;
}

/**
 * The mode some client may be served search by (the host's discovery
 * first, then each virtual server's), or undefined when every one is 'all'.
 */
export function searchModeOf(config: ResolvedConfig): DiscoveryMode | undefined {
  const settings = [config.discovery, ...Object.values(config.servers ?? {}).map((server) => server.discovery)];
  return settings.map((discovery) => discovery?.mode ?? 'all').find((mode) => mode !== 'all');
}

/** Every virtual server's globs that match nothing served (`served`: every served key, by list). */
export function serverWarnings(config: ResolvedConfig, served: Record<ListKind, ReadonlySet<string>>): Problem[] {
  return Object.keys(config.servers ?? {}).flatMap((name) =>
    virtualServerOf(config, name)!.unmatched(served, config.file),
  );
}
