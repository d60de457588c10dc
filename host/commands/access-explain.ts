import type { Logger } from '../log.js';
import { composeCatalogue } from '../catalogue/compose.js';
import { accessPolicyOf, describeWho, type Decision } from '../catalogue/access-rules.js';
import type { Generation } from '../catalogue/generation.js';
import { HostRuntime } from '../runtime.js';
import { ALL_LIST_KINDS, keyOf, type ListKind } from '../vocabulary/list-kinds.js';
import { ANONYMOUS_IDENTITY, STDIO_IDENTITY, asClientOf, type Identity } from '../vocabulary/identity.js';
import { virtualServerOf } from '../catalogue/virtual-server.js';
import { HostError } from '../errors.js';
import { configWhere } from '../config/problem-wording.js';

/** Who `mcp-host access explain` is asked about, as its flags say. */
export interface ExplainedIdentity {
  sub?: string;
  clientId?: string;
  /** Space-separated, as a token's `scope` claim. */
  scope?: string;
  groups?: string[];
  roles?: string[];
  token?: string;
  stdio?: boolean;
}

const NOUNS: Record<ListKind, string> = {
  tools: 'tool',
  prompts: 'prompt',
  resources: 'resource',
  resourceTemplates: 'template',
  skills: 'skill',
};

/**
 * `mcp-host access explain`: every item of the composed catalogue, for one
 * identity, and the rule that decides it: the rule that lets it be seen, or
 * why none does (no rule is for this identity, or those that are do not list
 * it, and which rules for others do).
 */
export async function accessExplain(options: {
  configPath?: string;
  cwd: string;
  logger: Logger;
  who: ExplainedIdentity;
  /** `--server NAME`: the identity as a client of that virtual server. */
  server?: string;
}): Promise<number> {
  const runtime = new HostRuntime(options.logger);
  const { generation } = await composeCatalogue({ ...options, events: runtime.events, id: 1 });
  try {
    const { server } = options;
    if (server !== undefined && !virtualServerOf(generation.config, server)) {
      const names = Object.keys(generation.config.servers ?? {});
      throw new HostError({
        where: configWhere(generation.config.file, 'servers'),
        what: `--server ${server} names no virtual server of the config (${names.length > 0 ? `it has ${names.join(', ')}` : 'it has no servers section'}).`,
        fix: 'pass --server one of its servers, or leave --server out to explain the whole catalogue.',
      });
    }
    const identity = asClientOf(identityOf(options.who), server);
    process.stdout.write(`${explain(generation, identity).join('\n')}\n`);
    return 0;
  } finally {
    runtime.swap(generation);
    await runtime.close();
  }
}

/** The identity the flags describe: the stdio client, a static token, an OAuth token's claims, or anonymous. */
export function identityOf(who: ExplainedIdentity): Identity {
  if (who.stdio) return STDIO_IDENTITY;
  if (who.token !== undefined) return { kind: 'token', name: who.token, tokenName: who.token, claims: {}, scopes: [] };
  const claims: Record<string, unknown> = {
    ...(who.sub !== undefined && { sub: who.sub }),
    ...(who.clientId !== undefined && { client_id: who.clientId }),
    ...(who.scope !== undefined && { scope: who.scope }),
    ...(who.groups && { groups: who.groups }),
    ...(who.roles && { roles: who.roles }),
  };
  if (Object.keys(claims).length === 0) return ANONYMOUS_IDENTITY;
  const scopes = who.scope?.split(' ').filter(Boolean) ?? [];
  // A token with a `sub` is a user's; one with a `client_id` alone, the client's (oauth-resource-server.ts).
  const kind = who.sub === undefined && who.clientId !== undefined ? 'client' : 'user';
  return { kind, name: who.sub ?? who.clientId ?? 'oauth', claims, scopes };
}

function ruleName({ index, rule }: Decision): string {
  return `access[${index}] ${describeWho(rule.who)}`;
}

/** One item of the catalogue as an identity is judged on it: seen or not, and the rule or reason that decides. */
export interface ExplainedItem {
  kind: ListKind;
  key: string;
  seen: boolean;
  /** The rule that lets it be seen, or why none does; absent when the config sets no rules and no server narrows. */
  why?: string;
}

/**
 * The report: a headline per fact about the identity and its rules, then
 * every item judged. For a client of a virtual server, an item that is not
 * one of its members is denied for that, whatever the rules say: what it may
 * use is the intersection of the two.
 */
export function explainItems(generation: Generation, identity: Identity): { head: string[]; items: ExplainedItem[] } {
  const policy = accessPolicyOf(generation.config);
  const server = identity.server === undefined ? undefined : virtualServerOf(generation.config, identity.server)!;
  const claims = Object.entries(identity.claims).map(([key, value]) => `${key}: ${JSON.stringify(value)}`);
  const head = [`identity: ${identity.kind} "${identity.name}"${claims.length > 0 ? ` (${claims.join(', ')})` : ''}`];
  if (server) head.push(`virtual server: ${server.key} (it sees only the server's members)`);
  const served = ALL_LIST_KINDS.flatMap((kind) =>
    generation.mounts.flatMap((mount) =>
      generation.served(mount, kind).map((item) => ({ kind, key: keyOf(kind, item) })),
    ),
  );
  const matching = policy?.matching(identity) ?? [];
  head.push(
    !policy
      ? `the config sets no access rules: every client sees ${server ? "all of its server's members" : 'everything'}`
      : matching.length > 0
        ? `rules for this identity: ${matching.map(ruleName).join(', ')}`
        : 'no rule is for this identity: it sees nothing',
  );
  const view = policy?.viewFor(identity);
  const items = served.map(({ kind, key }): ExplainedItem => {
    if (server && !server.includes(kind, key)) {
      return { kind, key, seen: false, why: `not a member of virtual server ${server.key}` };
    }
    const decision = view?.decide(kind, key);
    if (decision) return { kind, key, seen: true, why: ruleName(decision) };
    if (!view) return { kind, key, seen: true, ...(server && { why: `member of virtual server ${server.key}` }) };
    const others = policy!.listing(kind, key);
    const why = matching.length === 0 ? 'no rule is for this identity' : 'no rule for this identity lists it';
    const listedBy = others.length > 0 ? `; listed by ${others.map(ruleName).join(', ')}, for others` : '';
    return { kind, key, seen: false, why: why + listedBy };
  });
  return { head, items };
}

/** `tool notes.add`, as the report names an item. */
export function itemName({ kind, key }: Pick<ExplainedItem, 'kind' | 'key'>): string {
  return `${NOUNS[kind]} ${key}`;
}

/** The report's lines. */
export function explain(generation: Generation, identity: Identity): string[] {
  const { head, items } = explainItems(generation, identity);
  const line = (item: ExplainedItem) => `  ${itemName(item)}${item.why === undefined ? '' : `  <- ${item.why}`}`;
  if (!accessPolicyOf(generation.config) && identity.server === undefined)
    return [...head, 'sees:', ...items.map(line)];
  const seen = items.filter((item) => item.seen).map(line);
  const denied = items.filter((item) => !item.seen).map(line);
  return [...head, `sees (${seen.length}):`, ...seen, `denied (${denied.length}):`, ...denied];
}
