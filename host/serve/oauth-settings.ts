import { resolve } from 'node:path';
import type { HttpOAuthConfig } from '../config/types.js';
import { JWT_ALGORITHMS } from '../config/validate.js';
import { HostError } from '../errors.js';
import { takeSecretEnv } from '../secret-env.js';
import { readSecretFile } from '../secret-file.js';
import type { Introspection } from './token-introspection.js';

/** How far `exp` and `nbf` may be off the host's clock unless `http.oauth.clockSkewSeconds` says otherwise. */
export const DEFAULT_CLOCK_SKEW_SECONDS = 30;

/** `http.oauth` with its introspection secret read (from the environment or a file) and its defaults filled. */
export interface OAuthSettings {
  issuer: string;
  audience: string;
  scopes: string[];
  algorithms: string[];
  clockSkewSeconds: number;
  introspection?: Omit<Introspection, 'endpoint'> & { endpoint?: string };
}

/**
 * The config's `http.oauth` as the endpoint uses it: its introspection
 * secret read now, at start, so a missing one refuses the start rather
 * than every opaque token later. The variable is withheld from plugins
 * (secret-env.ts) as the bearer tokens' is.
 */
export function oauthSettingsOf(config: HttpOAuthConfig, where: string, configDir: string): OAuthSettings {
  const { introspection } = config;
  const settings: OAuthSettings = {
    issuer: config.issuer,
    audience: config.audience,
    scopes: config.scopes ?? [],
    algorithms: config.algorithms ?? JWT_ALGORITHMS,
    clockSkewSeconds: config.clockSkewSeconds ?? DEFAULT_CLOCK_SKEW_SECONDS,
  };
  if (!introspection) return settings;
  const fromEnv = introspection.clientSecretEnv;
  const clientSecret = (
    fromEnv === undefined
      ? readSecretFile(
          resolve(configDir, introspection.clientSecretFile!),
          where,
          'the introspection client secret (http.oauth.introspection.clientSecretFile)',
        )
      : (takeSecretEnv(fromEnv) ?? '')
  ).trim();
  if (clientSecret === '') {
    throw new HostError({
      where,
      what: `the introspection client secret is empty: ${fromEnv === undefined ? `the file ${introspection.clientSecretFile} holds nothing` : `${fromEnv} is unset or empty`}.`,
      fix: `put the secret of client ${introspection.clientId} at ${config.issuer} there, or remove http.oauth.introspection if every token is a JWT.`,
    });
  }
  settings.introspection = {
    clientId: introspection.clientId,
    clientSecret,
    ...(introspection.endpoint !== undefined && { endpoint: introspection.endpoint }),
  };
  return settings;
}
