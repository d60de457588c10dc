import type { AccessRule, AccessWho, ResolvedConfig } from '../config/types.js';
import type { Identity } from '../vocabulary/identity.js';
import { judgedAs, type ListKind } from '../vocabulary/list-kinds.js';
import { Curation } from './curation.js';
import { virtualServerOf } from './virtual-server.js';

/** Which rule decides an item for an identity: its index in `access` and the rule. */
export interface Decision {
  index: number;
  rule: AccessRule;
}

/**
 * What one identity may see and use under a config's `access` rules: the
 * union of what the rules whose `who` matches it allow. Made once per set of
 * matching rules (`key`), so every identity matched by the same rules shares
 * one view, and its cached list pages.
 */
export interface AccessView {
  /** The indexes of the rules that matched, joined: the same for every identity these rules match. */
  readonly key: string;
  /** The first matching rule that allows the item, or undefined when none does. */
  decide(kind: ListKind, key: string): Decision | undefined;
  allows(kind: ListKind, key: string): boolean;
}

/** The view of a host without `access` rules: everyone sees everything. */
const EVERYTHING: AccessView = { key: '*', decide: () => undefined, allows: () => true };

/** A rule's globs, compiled once by the curation matcher (a rule allows what it "includes"). */
interface CompiledRule {
  index: number;
  rule: AccessRule;
  allowed: Curation;
}

/**
 * A config's `access` rules, compiled: which rules match an identity, and
 * what they allow. Rules are judged against composed names (after prefix and
 * rename) and normalised URIs, as a client sees them.
 */
export class AccessPolicy {
  private readonly rules: CompiledRule[];
  private readonly views = new Map<string, AccessView>();

  constructor(config: readonly AccessRule[]) {
    this.rules = config.map((rule, index) => ({
      index,
      rule,
      allowed: new Curation({
        tools: { include: rule.tools },
        prompts: { include: rule.prompts },
        resources: { include: rule.resources },
      }),
    }));
  }

  /** The rules whose `who` matches `identity`, in config order. */
  matching(identity: Identity): Decision[] {
    return this.rules.filter(({ rule }) => whoMatches(rule.who, identity)).map(({ index, rule }) => ({ index, rule }));
  }

  /** The rules that list an item, whoever they are for (`mcp-host access explain` says why a denied item is). */
  listing(kind: ListKind, item: string): Decision[] {
    return this.rules.filter((rule) => allowedBy(rule, kind, item)).map(({ index, rule }) => ({ index, rule }));
  }

  /** What `identity` sees: shared by every identity the same rules match. */
  viewFor(identity: Identity): AccessView {
    const matched = this.rules.filter(({ rule }) => whoMatches(rule.who, identity));
    const key = matched.map(({ index }) => index).join(',');
    let view = this.views.get(key);
    if (!view) {
      const decide = (kind: ListKind, item: string): Decision | undefined => {
        const found = matched.find((rule) => allowedBy(rule, kind, item));
        return found && { index: found.index, rule: found.rule };
      };
      view = { key, decide, allows: (kind, item) => decide(kind, item) !== undefined };
      this.views.set(key, view);
    }
    return view;
  }
}

/** Whether a rule lists an item. One it leaves out or gives empty allows nothing (to the curation matcher, no include means everything). */
function allowedBy({ rule, allowed }: CompiledRule, kind: ListKind, item: string): boolean {
  const list = judgedAs(kind);
  return rule[list]?.length !== undefined && rule[list].length > 0 && allowed.serves(kind, item);
}

const policies = new WeakMap<ResolvedConfig, AccessPolicy>();

/** Per config, the views of each (virtual server, set of matching rules): `${server} ${rules' key}`. */
const serverViews = new WeakMap<ResolvedConfig, Map<string, AccessView>>();

/**
 * The view of `identity` under a config's rules (compiled once per config),
 * or everything when it has none; for a client of a virtual server, only
 * what is both the server's member and allowed by the rules. Such a view is
 * made once per (server, set of matching rules), so its clients share it
 * and their list pages. A server the config does not have (a reload removed
 * it) has no members.
 */
export function accessViewOf(config: ResolvedConfig, identity: Identity): AccessView {
  const policy = accessPolicyOf(config);
  const rules = policy ? policy.viewFor(identity) : EVERYTHING;
  if (identity.server === undefined) return rules;
  const key = `${identity.server} ${rules.key}`;
  let views = serverViews.get(config);
  if (!views) serverViews.set(config, (views = new Map()));
  let view = views.get(key);
  if (!view) {
    const server = virtualServerOf(config, identity.server);
    const member = (kind: ListKind, item: string) => server?.includes(kind, item) ?? false;
    view = {
      key,
      decide: (kind, item) => (member(kind, item) ? rules.decide(kind, item) : undefined),
      allows: (kind, item) => member(kind, item) && rules.allows(kind, item),
    };
    views.set(key, view);
  }
  return view;
}

/** Whether some clients see less than the whole catalogue: the config has access rules or virtual servers. */
export function narrowsViews(config: ResolvedConfig): boolean {
  return config.access !== undefined || config.servers !== undefined;
}

/** A config's compiled rules, or undefined when it sets none. */
export function accessPolicyOf(config: ResolvedConfig): AccessPolicy | undefined {
  if (!config.access) return undefined;
  let policy = policies.get(config);
  if (!policy) policies.set(config, (policy = new AccessPolicy(config.access)));
  return policy;
}

/**
 * Whether every key of `who` matches `identity`. `sub` names a user: a client's token (no `sub`) never matches it,
 * whatever its `client_id`; `client_id` names the client a token was issued to, a user's or a client's own.
 */
export function whoMatches(who: AccessWho, identity: Identity): boolean {
  const claims = identity.claims;
  const claimHasAny = (claim: string, wanted: readonly string[]) => {
    const held = claims[claim];
    return Array.isArray(held) && wanted.some((value) => held.includes(value));
  };
  return (
    (who.sub === undefined || claims.sub === who.sub) &&
    (who.client_id === undefined || claims.client_id === who.client_id) &&
    (who.scope === undefined || identity.scopes.includes(who.scope)) &&
    (who.groups === undefined || claimHasAny('groups', who.groups)) &&
    (who.roles === undefined || claimHasAny('roles', who.roles)) &&
    (who.token === undefined || (identity.kind === 'token' && identity.tokenName === who.token)) &&
    (who.stdio === undefined || identity.kind === 'stdio')
  );
}

/** `who` as a message shows it: `{ token: "ci" }`. */
export function describeWho(who: AccessWho): string {
  return `{ ${Object.entries(who)
    .map(([key, value]) => `${key}: ${JSON.stringify(value)}`)
    .join(', ')} }`;
}
