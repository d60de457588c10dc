import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AccessRule, AccessWho, ResolvedConfig } from '../config/types.js';
import { configWhere, quotedChoices } from '../config/problem-wording.js';
import { namedToken, tokensIn } from '../config/token-names.js';
import type { Problem } from '../errors.js';
import { TOKENS_ENV, takeSecretEnv } from '../secret-env.js';
import type { ListKind } from '../vocabulary/list-kinds.js';
import { ACCESS_LISTS } from '../config/access-settings.js';
import { Curation } from './curation.js';

/** The keys of `who` only an OAuth access token's claims can match. */
const CLAIM_KEYS = ['sub', 'client_id', 'scope', 'groups', 'roles'] as const satisfies readonly (keyof AccessWho)[];

/**
 * The access rules that cannot do what they say, found at start, at each
 * reload and by `check` (DESIGN.md, "Identity and access"). A rule whose
 * `who` no configured token source can produce matches no client: with
 * rules on, a client no rule matches sees nothing, so a misspelt token name
 * or claims without `http.oauth` lock everyone out without a word. A glob
 * that matches no served name or URI allows nothing, most likely a typo or
 * a tool that is gone. Neither is an error (tokens can arrive with the
 * next start, plugins change), so each is a warning naming the rule and
 * key. `served` is every key clients are served, by list.
 */
export function accessWarnings(config: ResolvedConfig, served: Record<ListKind, ReadonlySet<string>>): Problem[] {
  if (!config.access) return [];
  const tokens = staticTokenNames(config);
  return config.access.flatMap((rule, index) => [
    ...unreachable(rule.who, `access[${index}].who`, config, tokens),
    ...unmatchedGlobs(rule, `access[${index}]`, config, served),
  ]);
}

/** Why no client can carry what `who` asks for, if none can. */
function unreachable(who: AccessWho, path: string, config: ResolvedConfig, tokens: TokenNames | undefined): Problem[] {
  const problems: Problem[] = [];
  const claims = CLAIM_KEYS.filter((key) => who[key] !== undefined);
  if (claims.length > 0 && !config.http?.oauth) {
    problems.push({
      where: configWhere(config.file, `${path}.${claims[0]}`),
      what: `matches an OAuth access token's ${claims.map((key) => `"${key}"`).join(' and ')}, but the config has no http.oauth: no client carries claims, so this rule matches no client.`,
      fix: 'configure http.oauth (docs/identity.md), or match a static token by its name: who: { token: "…" }.',
    });
  }
  if (who.token !== undefined && tokens !== undefined && !tokens.names.includes(who.token)) {
    problems.push({
      where: configWhere(config.file, `${path}.token`),
      what: `no static token is named "${who.token}" (${tokens.found}), so this rule matches no client.`,
      fix: tokens.fix(who.token),
    });
  }
  return problems;
}

interface TokenNames {
  names: string[];
  /** What was found, for the warning: where the tokens come from and their names. */
  found: string;
  fix(name: string): string;
}

/**
 * The names of the static tokens the host accepts, as this process sees
 * them (its environment, the config's tokens and tokens file); undefined
 * when the tokens file cannot be read (the host's own refusal says why when
 * it serves HTTP): nothing to judge by.
 */
function staticTokenNames(config: ResolvedConfig): TokenNames | undefined {
  const auth = config.http?.auth;
  if (auth === 'none') {
    return {
      names: [],
      found: "http.auth is 'none': the host accepts no static token",
      fix: (name) =>
        `remove http.auth: 'none' and give the host a token named ${name} (${name}:<token>), or remove the rule.`,
    };
  }
  const variable = auth?.tokensEnv ?? TOKENS_ENV;
  const entries = [...(auth?.tokens ?? []), ...tokensIn(takeSecretEnv(variable) ?? '')];
  if (auth?.tokensFile !== undefined) {
    try {
      entries.push(...tokensIn(readFileSync(resolve(config.dir, auth.tokensFile), 'utf8')));
    } catch {
      return undefined;
    }
  }
  const names = [...new Set(entries.map((entry) => namedToken(entry).name))];
  const listed = [
    auth?.tokens && 'http.auth.tokens',
    auth?.tokensFile !== undefined && 'http.auth.tokensFile',
    variable,
  ];
  const named = listed.filter((source): source is string => typeof source === 'string');
  const sources = named.length === 1 ? named[0]! : `${named.slice(0, -1).join(', ')} and ${named.at(-1)}`;
  const give = named.length === 1 ? 'gives' : 'give';
  return {
    names,
    found:
      names.length > 0
        ? `the tokens from ${sources} are named ${quotedChoices(names, 'and')}`
        : `no static token is configured: ${sources} ${give} none here`,
    fix: (name) =>
      `give the token its name where it is configured (${name}:<token> in ${sources}), or correct the rule.`,
  };
}

/** The globs of a rule that match nothing served in their list. */
function unmatchedGlobs(
  rule: AccessRule,
  path: string,
  config: ResolvedConfig,
  served: Record<ListKind, ReadonlySet<string>>,
): Problem[] {
  return ACCESS_LISTS.flatMap((list) =>
    (rule[list] ?? []).flatMap((glob, index): Problem[] => {
      const allows = new Curation({ [list]: { include: [glob] } });
      const kinds: ListKind[] = list === 'resources' ? ['resources', 'resourceTemplates', 'skills'] : [list];
      if (kinds.some((kind) => [...served[kind]].some((key) => allows.serves(kind, key)))) return [];
      const noun = list === 'resources' ? 'resource or template URI' : `${list.slice(0, -1)} name`;
      return [
        {
          where: configWhere(config.file, `${path}.${list}[${index}]`),
          what: `the glob "${glob}" matches no ${noun} the host serves, so it allows nothing.`,
          fix: `correct it against the composed names (mcp-host list shows them: prefix, separator, name), or remove it.`,
        },
      ];
    }),
  );
}
