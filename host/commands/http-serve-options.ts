import { dirname } from 'node:path';
import type { ResolvedConfig } from '../config/types.js';
import type { HttpServeOptions } from '../serve/http.js';
import { bearerTokensOf } from '../serve/http-auth.js';
import { oauthSettingsOf } from '../serve/oauth-settings.js';
import { adminSettingsOf, metricsServed } from '../config/admin-settings.js';
import { namedToken } from '../config/token-names.js';
import { configWhere } from '../config/problem-wording.js';
import { isLoopback } from '../serve/listen-address.js';

/** The config's http section (its address overridden by `--http`) and the bearer tokens, as the HTTP server takes them. */
export function httpServeOptions(config: ResolvedConfig, address: { host: string; port: number }): HttpServeOptions {
  const { auth, oauth, admin, maxBodyBytes, host: _host, port: _port, ...rest } = config.http ?? {};
  const { tokens, source } = bearerTokensOf(
    auth,
    // An endpoint that checks OAuth tokens is not open, whether or not it has static tokens too.
    { host: address.host, loopback: isLoopback(address.host) || oauth !== undefined },
    configWhere(config.file, 'http.auth'),
    dirname(config.file),
  );
  return {
    ...rest,
    ...address,
    ...(maxBodyBytes !== undefined && { maxRequestBodySize: maxBodyBytes }),
    ...(oauth && { oauth: oauthSettingsOf(oauth, configWhere(config.file, 'http.oauth'), dirname(config.file)) }),
    ...(admin && {
      admin: adminSettingsOf(
        admin,
        tokens.map((token) => namedToken(token).name),
        oauth !== undefined,
        configWhere(config.file, 'http.admin'),
      ),
    }),
    metrics: metricsServed(config.http),
    bearerTokens: tokens,
    tokenSource: source,
  };
}
