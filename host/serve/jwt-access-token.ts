import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import { OAuthError, OAuthErrorCode } from '@modelcontextprotocol/server';

/** What a JWT access token must be to be accepted: the config's `http.oauth`, its JWKS found. */
export interface JwtRequirements {
  issuer: string;
  audience: string;
  algorithms: string[];
  clockSkewSeconds: number;
}

/**
 * How soon after fetching the issuer's JWKS a token with a key id not in it
 * makes the host fetch it again. A rotated key is picked up this soon; a
 * caller sending made-up key ids makes the host fetch the JWKS at most this
 * often. (jose's own default, 30 s, would refuse a freshly rotated key for
 * half a minute.)
 */
export const JWKS_REFETCH_COOLDOWN_MS = 2_000;
/** How long a fetched JWKS is used before it is fetched again, whatever key ids come. */
const JWKS_MAX_AGE_MS = 10 * 60_000;
/** How long the issuer's JWKS endpoint may take to answer. */
const JWKS_TIMEOUT_MS = 5_000;
/**
 * How many verified tokens are remembered. Only tokens whose signature
 * verified get in (a caller cannot fill it with made-up ones); beyond it,
 * the oldest is forgotten and verified again when it comes back.
 */
export const VERIFIED_TOKENS_KEPT = 5_000;

/** The verified claims of a JWT access token, or an OAuthError saying why it is refused and what to do. */
export type JwtVerifier = (token: string) => Promise<JWTPayload>;

/**
 * A verifier of JWT access tokens against the issuer's JWKS at `jwksUri`:
 * fetched once and cached by jose, fetched again when a token names a key
 * id it does not hold (a rotation), at most every JWKS_REFETCH_COOLDOWN_MS.
 * The signature, `iss`, `aud`, `exp` and `nbf` (within the skew) and the
 * algorithm (from the allowlist; `none` is never in it) are all checked.
 *
 * A client sends the same token with every request of its lifetime, and a
 * signature check through WebCrypto costs far more than the rest of a
 * request's way through the host (docs/performance.md): a token once
 * verified is taken as verified until its `exp` (plus the skew), and never
 * longer than the JWKS it was checked against is kept. At most `kept`
 * tokens are remembered (VERIFIED_TOKENS_KEPT; the rules test keeps two, to
 * see the oldest forgotten without signing thousands).
 */
export function jwtVerifier(jwksUri: string, required: JwtRequirements, kept = VERIFIED_TOKENS_KEPT): JwtVerifier {
  const keys = createRemoteJWKSet(new URL(jwksUri), {
    cooldownDuration: JWKS_REFETCH_COOLDOWN_MS,
    cacheMaxAge: JWKS_MAX_AGE_MS,
    timeoutDuration: JWKS_TIMEOUT_MS,
  });
  const verified = new Map<string, { payload: JWTPayload; untilMs: number }>();
  return async (token) => {
    const known = verified.get(token);
    if (known && Date.now() < known.untilMs) return known.payload;
    verified.delete(token);
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: required.issuer,
        audience: required.audience,
        algorithms: required.algorithms,
        clockTolerance: required.clockSkewSeconds,
        requiredClaims: ['exp'],
      });
      if (verified.size >= kept) verified.delete(verified.keys().next().value!);
      const untilMs = Math.min((payload.exp! + required.clockSkewSeconds) * 1000, Date.now() + JWKS_MAX_AGE_MS);
      verified.set(token, { payload, untilMs });
      return payload;
    } catch (error) {
      throw refusal(error, required, jwksUri);
    }
  };
}

/** The OAuthError a failed verification is answered with: what was wrong with the token, and the fix. */
function refusal(error: unknown, required: JwtRequirements, jwksUri: string): OAuthError {
  const invalid = (what: string, fix: string) =>
    new OAuthError(OAuthErrorCode.InvalidToken, `the access token was refused: ${what}; ${fix}`);
  // The issuer's keys could not be had (unreachable, not 200, not a JWKS): the token may well be good, so
  // this is the host's failure, not the client's. (A plain JOSEError is what jose's JWKS fetch throws.)
  if (
    !(error instanceof errors.JOSEError) ||
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    error.code === errors.JOSEError.code
  ) {
    const why = error instanceof Error ? error.message : String(error);
    return new OAuthError(
      OAuthErrorCode.ServerError,
      `mcp-host could not fetch the signing keys of ${required.issuer} from ${jwksUri} (${why}); retry later`,
    );
  }
  if (error instanceof errors.JWTExpired) {
    return invalid('it has expired (its "exp" is past)', 'get a new token from the authorization server');
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') {
      return invalid(
        `it was not issued for this resource (its "aud" is not ${required.audience})`,
        `get a token for the resource ${required.audience} (the "resource" parameter of the token request)`,
      );
    }
    if (error.claim === 'iss') {
      return invalid(
        `it was not issued by ${required.issuer} (its "iss" differs)`,
        `get a token from ${required.issuer}, the issuer this mcp-host trusts`,
      );
    }
    if (error.claim === 'nbf') {
      return invalid('it is not valid yet (its "nbf" is in the future)', 'use it once it is valid');
    }
    return invalid(`its "${error.claim}" claim is ${error.reason}`, 'get a token from the authorization server');
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return invalid(
      `it is signed with an algorithm this mcp-host does not accept (it accepts ${required.algorithms.join(', ')}; never "none")`,
      'get a token signed by the authorization server with one of them',
    );
  }
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWSSignatureVerificationFailed) {
    return invalid(
      `its signature does not verify with any key ${required.issuer} publishes`,
      `get a token from ${required.issuer}`,
    );
  }
  return invalid(
    `it is not a well-formed signed JWT (${error.message})`,
    'send the access token the authorization server issued',
  );
}
