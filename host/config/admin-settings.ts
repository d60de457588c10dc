import { HostError } from '../errors.js';
import type { HttpAdminConfig, HttpConfig } from './types.js';

/** The OAuth scope that makes an access token an admin's unless `http.admin.scope` names another. */
export const DEFAULT_ADMIN_SCOPE = 'mcp-host:admin';

/** `http.admin` with its default filled: who may read `/metrics` and use `/admin`. */
export interface AdminSettings {
  /** Names of static tokens (`http.auth` tokens given as `name:token`, or `token-<sha>`) that are admins'. */
  tokens: readonly string[];
  /** The scope an OAuth access token must carry to be an admin's; undefined when the host checks no OAuth token. */
  scope: string | undefined;
}

/**
 * The config's `http.admin` as the endpoint uses it, checked against the
 * tokens the host actually accepts (they may come from the environment or a
 * file, so only now are they known): a named token that is not one of them,
 * or an admin section that no credential could ever satisfy, refuses the
 * start rather than leave `/metrics` and `/admin` silently closed (or, worse,
 * seemingly guarded).
 */
export function adminSettingsOf(
  config: HttpAdminConfig,
  acceptedTokenNames: readonly string[],
  oauth: boolean,
  where: string,
): AdminSettings {
  const tokens = config.tokens ?? [];
  const unknown = tokens.filter((name) => !acceptedTokenNames.includes(name));
  if (unknown.length > 0) {
    throw new HostError({
      where,
      what: `http.admin.tokens names ${unknown.map((name) => `"${name}"`).join(', ')}, but the host accepts no bearer token of that name (its tokens are named ${acceptedTokenNames.length > 0 ? acceptedTokenNames.map((name) => `"${name}"`).join(', ') : 'nothing: it has none'}).`,
      fix: `give the admin's token a name where it is listed (http.auth tokens, tokensFile or the tokens variable, as "name:token"), and name it here.`,
    });
  }
  if (tokens.length === 0 && !oauth) {
    throw new HostError({
      where,
      what: 'http.admin admits no one: it names no token (http.admin.tokens) and the host checks no OAuth token (http.oauth), and loopback alone never admits.',
      fix: 'name an admin token in http.admin.tokens (e.g. tokens: ["ops"] with "ops:<token>" among the http.auth tokens), or configure http.oauth so that tokens with the admin scope are admitted.',
    });
  }
  return { tokens, scope: oauth ? (config.scope ?? DEFAULT_ADMIN_SCOPE) : undefined };
}

/** Whether `/metrics` is served: as `http.metrics` says, else whenever `http.admin` is set. */
export function metricsServed(http: HttpConfig | undefined): boolean {
  return http?.metrics ?? http?.admin !== undefined;
}
