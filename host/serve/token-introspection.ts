import { OAuthError, OAuthErrorCode } from '@modelcontextprotocol/server';

/** The host's own client at the issuer's RFC 7662 introspection endpoint. */
export interface Introspection {
  endpoint: string;
  clientId: string;
  clientSecret: string;
}

/** How long the introspection endpoint may take to answer. */
const INTROSPECTION_TIMEOUT_MS = 5_000;

/**
 * The claims of an opaque access token, as the issuer's introspection
 * endpoint (RFC 7662) states them, once it says the token is active, was
 * issued by `issuer` and for `audience`; else an OAuthError saying why not.
 * An endpoint that cannot be reached or answers otherwise is the host's
 * failure (server_error), not the client's.
 */
export async function introspect(
  token: string,
  introspection: Introspection,
  expected: { issuer: string; audience: string },
): Promise<Record<string, unknown>> {
  const { endpoint, clientId, clientSecret } = introspection;
  const credentials = `${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`;
  let answer: Response;
  try {
    answer = await fetch(endpoint, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(credentials).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
      signal: AbortSignal.timeout(INTROSPECTION_TIMEOUT_MS),
    });
  } catch (error) {
    throw unavailable(endpoint, error instanceof Error ? error.message : String(error));
  }
  const claims = (await answer.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  if (!answer.ok || typeof claims !== 'object' || claims === null || typeof claims.active !== 'boolean') {
    throw unavailable(
      endpoint,
      `it answered ${answer.status} without an introspection result (are http.oauth.introspection.clientId and its secret right?)`,
    );
  }
  const invalid = (what: string, fix: string) =>
    new OAuthError(OAuthErrorCode.InvalidToken, `the access token was refused: ${what}; ${fix}`);
  if (!claims.active) {
    throw invalid(
      `${expected.issuer} says it is not active (unknown, expired or revoked)`,
      'get a new token from the authorization server',
    );
  }
  if (claims.iss !== undefined && claims.iss !== expected.issuer) {
    throw invalid(`it was not issued by ${expected.issuer}`, `get a token from ${expected.issuer}`);
  }
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!audiences.includes(expected.audience)) {
    throw invalid(
      `it was not issued for this resource (its "aud" is not ${expected.audience})`,
      `get a token for the resource ${expected.audience} (the "resource" parameter of the token request)`,
    );
  }
  if (typeof claims.exp !== 'number') {
    throw invalid(
      'its introspection names no expiry ("exp")',
      'get a token that expires from the authorization server',
    );
  }
  return claims;
}

function unavailable(endpoint: string, why: string): OAuthError {
  return new OAuthError(
    OAuthErrorCode.ServerError,
    `mcp-host could not introspect the access token at ${endpoint}: ${why}; retry later`,
  );
}
