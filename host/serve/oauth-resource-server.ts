import type { IncomingMessage } from 'node:http';
import {
  OAuthError,
  OAuthErrorCode,
  bearerAuthChallengeResponse,
  getOAuthProtectedResourceMetadataUrl,
  verifyBearerToken,
  type AuthInfo,
  type OAuthProtectedResourceMetadata,
  type OAuthTokenVerifier,
} from '@modelcontextprotocol/server';
import { discoverAuthorizationServerMetadata } from '@modelcontextprotocol/client';
import type { Logger } from '../log.js';
import { authInfoFor, identityKey, type Identity } from '../vocabulary/identity.js';
import { jwtVerifier, type JwtVerifier } from './jwt-access-token.js';
import { introspect, type Introspection } from './token-introspection.js';
import type { OAuthSettings } from './oauth-settings.js';
/** How long the issuer's metadata endpoint may take to answer. */
const DISCOVERY_TIMEOUT_MS = 5_000;

/** What `/mcp` answers a request with: a challenge to send back, or who the client is. */
export type GateVerdict = { challenge: Response } | { authInfo: AuthInfo };
/** A check of a request's bearer token (serve/http-auth.ts's static tokens, or this file's OAuth). */
export type BearerGate = (req: IncomingMessage) => Promise<GateVerdict>;

/** The issuer's endpoints the host uses, from its RFC 8414 / OpenID discovery metadata. */
interface IssuerEndpoints {
  verifyJwt: JwtVerifier;
  introspection: Introspection | undefined;
}

/**
 * The host as an OAuth 2.1 resource server (DESIGN.md, "Identity and
 * access"; the MCP authorization spec): it accepts access tokens issued by
 * one authorization server for this endpoint, and says where to get one.
 *
 * The SDK gives the parsing of `Authorization`, the expiry check and the
 * challenge answers (`verifyBearerToken`, `bearerAuthChallengeResponse`),
 * the metadata URL (`getOAuthProtectedResourceMetadataUrl`) and the issuer's
 * discovery (`discoverAuthorizationServerMetadata`, which refuses metadata
 * naming another issuer). What it lacks is written here: verifying a JWT
 * against the issuer's JWKS (jose, jwt-access-token.ts), introspecting an
 * opaque token (token-introspection.ts), the identity a token makes, a
 * missing scope named in the refusal, and a challenge without an error code
 * for a request that sent no token at all (RFC 6750 §3.1).
 */
export class OAuthResourceServer implements OAuthTokenVerifier {
  /** Where the RFC 9728 metadata document is, as the 401 challenge names it: beside the audience's own path. */
  readonly metadataUrl: string;
  /** The RFC 9728 protected resource metadata document. */
  readonly metadata: OAuthProtectedResourceMetadata;
  private endpoints: Promise<IssuerEndpoints> | undefined;

  constructor(
    private readonly settings: OAuthSettings,
    private readonly logger: Logger,
  ) {
    this.metadataUrl = getOAuthProtectedResourceMetadataUrl(new URL(settings.audience));
    this.metadata = {
      resource: settings.audience,
      authorization_servers: [settings.issuer],
      ...(settings.scopes.length > 0 && { scopes_supported: settings.scopes }),
      bearer_methods_supported: ['header'],
    };
  }

  /**
   * The gate in front of `/mcp`: a request without a token is told where to
   * get one; a static token (`staticGate`, when the host has any) is
   * accepted as it always was; any other token must be an access token of
   * the issuer for the audience, carrying the required scopes.
   */
  gate(staticGate?: BearerGate): BearerGate {
    const { scopes } = this.settings;
    const challengeOptions = { requiredScopes: scopes, resourceMetadataUrl: this.metadataUrl };
    return async (req) => {
      const header = req.headers.authorization;
      if (!header) return { challenge: this.noTokenChallenge() };
      if (staticGate) {
        const verdict = await staticGate(req);
        if ('authInfo' in verdict) return verdict;
      }
      try {
        const authInfo = await verifyBearerToken(header, { verifier: this, resourceMetadataUrl: this.metadataUrl });
        const missing = scopes.filter((scope) => !authInfo.scopes.includes(scope));
        if (missing.length > 0) {
          throw new OAuthError(
            OAuthErrorCode.InsufficientScope,
            `the access token lacks the scope ${missing.map((scope) => `"${scope}"`).join(', ')} this mcp-host requires (http.oauth.scopes); get a token with scope "${scopes.join(' ')}"`,
          );
        }
        return { authInfo };
      } catch (error) {
        if (error instanceof OAuthError && error.code === OAuthErrorCode.ServerError) {
          this.logger.warn(error.message);
        }
        return { challenge: bearerAuthChallengeResponse(error, challengeOptions) };
      }
    };
  }

  /**
   * Read the issuer's metadata now, before the first token needs it: a
   * mistyped issuer or a provider out of reach shows in the log at start
   * (the host serves all the same, and the first token tries again).
   */
  prefetch(): void {
    this.issuerEndpoints().catch((error: unknown) =>
      this.logger.warn(`${error instanceof Error ? error.message : String(error)} (at start; tokens will try again)`),
    );
  }

  /** The verified AuthInfo of a token (a JWT checked against the issuer's keys, or an opaque token introspected). */
  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const endpoints = await this.issuerEndpoints();
    let claims: Record<string, unknown>;
    if (looksLikeJwt(token)) claims = await endpoints.verifyJwt(token);
    else if (endpoints.introspection) claims = await introspect(token, endpoints.introspection, this.settings);
    else {
      throw new OAuthError(
        OAuthErrorCode.InvalidToken,
        'the access token was refused: it is not a JWT, and this mcp-host introspects no opaque tokens (http.oauth.introspection is not set); send a JWT access token, or ask the operator to configure introspection',
      );
    }
    const identity = identityOfClaims(claims, token);
    return authInfoFor(identity, {
      token,
      // Sessions belong to who opened them (legacy-sessions.ts): the user or client, whichever of its tokens it sends.
      clientId: identityKey(identity),
      scopes: [...identity.scopes],
      // The SDK refuses a token past expiresAt; the skew jose allowed is allowed here too.
      expiresAt: (claims.exp as number) + this.settings.clockSkewSeconds,
      resource: new URL(this.settings.audience),
    });
  }

  /** The 401 for a request that sent no token: where to get one (RFC 9728 §5.1), and no error code (RFC 6750 §3.1). */
  private noTokenChallenge(): Response {
    const { issuer, audience, scopes } = this.settings;
    const scope = scopes.length > 0 ? `, scope="${scopes.join(' ')}"` : '';
    return Response.json(
      {
        error: 'unauthorized',
        error_description: `this mcp-host requires an OAuth access token from ${issuer} for ${audience}; its metadata is at ${this.metadataUrl}`,
      },
      { status: 401, headers: { 'WWW-Authenticate': `Bearer resource_metadata="${this.metadataUrl}"${scope}` } },
    );
  }

  /**
   * The issuer's JWKS and introspection endpoint, discovered once from its
   * metadata. A failure is not kept: the next token tries again, so a host
   * that started while its identity provider was down recovers with it.
   */
  private issuerEndpoints(): Promise<IssuerEndpoints> {
    this.endpoints ??= this.discover().catch((error: unknown) => {
      this.endpoints = undefined;
      throw error;
    });
    return this.endpoints;
  }

  private async discover(): Promise<IssuerEndpoints> {
    const { issuer, introspection } = this.settings;
    const failed = (why: string) =>
      new OAuthError(
        OAuthErrorCode.ServerError,
        `mcp-host could not read the metadata of ${issuer} (RFC 8414 / OpenID discovery): ${why}; retry later (check http.oauth.issuer)`,
      );
    let metadata: Record<string, unknown> | undefined;
    try {
      metadata = (await discoverAuthorizationServerMetadata(issuer, {
        fetchFn: (url, init) => fetch(url, { ...init, signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS) }),
      })) as Record<string, unknown> | undefined;
    } catch (error) {
      throw failed(error instanceof Error ? error.message : String(error));
    }
    if (!metadata) throw failed('it serves no metadata document');
    const jwksUri = metadata.jwks_uri;
    if (typeof jwksUri !== 'string') throw failed('its metadata names no jwks_uri');
    const endpoint = introspection?.endpoint ?? (metadata.introspection_endpoint as string | undefined);
    if (introspection && endpoint === undefined) {
      throw failed('its metadata names no introspection_endpoint (set http.oauth.introspection.endpoint)');
    }
    this.logger.debug(`the keys of ${issuer} are at ${jwksUri}`);
    return {
      verifyJwt: jwtVerifier(jwksUri, this.settings),
      introspection: introspection && { ...introspection, endpoint: endpoint! },
    };
  }
}

/** A JWS in compact form: three base64url parts. An opaque token is anything else. */
function looksLikeJwt(token: string): boolean {
  return /^[\w-]+\.[\w-]*\.[\w-]*$/.test(token);
}

/**
 * Who a verified token says the client is: its subject, a user (or, without one, its client: a client-credentials
 * token may name no subject), its claims and scopes. The kind stays with the name: a client named `alice` is not
 * the user `alice`, neither for sessions, nor rate limits, nor the audit log. A token naming neither is refused:
 * every such token would be one identity, owning one another's sessions and sharing the token a mount exchanged
 * for it.
 */
function identityOfClaims(claims: Record<string, unknown>, token: string): Identity {
  const named = (value: unknown): value is string => typeof value === 'string' && value !== '';
  const kind = named(claims.sub) ? 'user' : named(claims.client_id) ? 'client' : undefined;
  if (kind === undefined) {
    throw new OAuthError(
      OAuthErrorCode.InvalidToken,
      'the access token was refused: it names no subject (neither a "sub" nor a "client_id" claim), so mcp-host cannot tell whose it is; get a token that names its subject ("sub", which RFC 9068 requires of an access token)',
    );
  }
  return {
    kind,
    name: (kind === 'user' ? claims.sub : claims.client_id) as string,
    claims,
    scopes: scopesOf(claims),
    token,
  };
}

/** A token's scopes: `scope`, space-separated (RFC 9068, RFC 7662), or `scp` (as some providers write them). */
function scopesOf(claims: Record<string, unknown>): string[] {
  const { scope, scp } = claims;
  if (typeof scope === 'string') return scope.split(' ').filter((s) => s !== '');
  if (Array.isArray(scp)) return scp.filter((s): s is string => typeof s === 'string');
  if (typeof scp === 'string') return scp.split(' ').filter((s) => s !== '');
  return [];
}
