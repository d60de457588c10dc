import { AsyncLocalStorage } from 'node:async_hooks';
import {
  AuthorizationServerMismatchError,
  ClientCredentialsProvider,
  OAuthError,
  PrivateKeyJwtProvider,
  checkResourceAllowed,
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
  fetchToken,
  resourceUrlFromServerUrl,
  type AuthProvider,
  type AuthorizationServerMetadata,
  type OAuthClientProvider,
  type OAuthProtectedResourceMetadata,
} from '@modelcontextprotocol/client';
import { ZodError } from 'zod';
import { describeThrown } from '../errors.js';
import { boundedFetch } from './bounded-fetch.js';
import type { RemoteSpec, UpstreamCredentials } from '../loader/types.js';
import { isOAuthIdentity, type Identity } from '../vocabulary/identity.js';
import { mountName } from './mount.js';
import { recordUpstreamToken, type UpstreamTokenGrant } from '../sinks/telemetry.js';
import type { Outage } from './supervisor.js';

/** The upstream's authorization server, as its 401 led to it (RFC 9728, then RFC 8414) or as `tokenUrl` names it. */
interface AuthorizationServer {
  issuer: string;
  metadata?: AuthorizationServerMetadata;
  /** The resource indicator (RFC 8707) tokens are asked for. */
  resource?: string;
  /** The scopes the upstream's protected-resource metadata lists. */
  scopes?: string[];
  /** Why its own metadata (RFC 8414) could not be read, when the upstream's named it nonetheless. */
  unreadable?: string;
}

/** A token and when to stop using it: shortly before it expires, so no request carries an expired one. */
interface CachedToken {
  token: string;
  renewAt: number;
}

/** What the upstream's OAuth metadata and token endpoints are fetched with: in bounded time and size. */
const oauthFetch = boundedFetch();
/** A token is renewed this long before it expires (at most a tenth of its lifetime, for short-lived tokens). */
const RENEW_BEFORE_MS = 30_000;
/** Exchanged tokens kept per mount by default, one per caller's grant; past this the oldest are dropped. */
export const EXCHANGED_TOKENS_KEPT = 1_000;
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/** What the transport passes `onUnauthorized` (the SDK names the type but does not export it). */
type UnauthorizedContext = Parameters<NonNullable<AuthProvider['onUnauthorized']>>[0];

/** What a mount's authorization may be given besides its entry: the defaults serve; the rules test sets both. */
export interface UpstreamAuthorizationOptions {
  /** How many exchanged tokens are kept (EXCHANGED_TOKENS_KEPT; the rules test keeps two, not 1,000 exchanges). */
  kept?: number;
  /** The clock a token's lifetime is measured by (Date.now; the rules test's own, to reach a renewal's instant). */
  now?: () => number;
}

/** The host cannot get a token for the upstream: the mount cannot serve, and its outage says why. */
export class UpstreamAuthRefused extends Error {
  constructor(readonly outage: Outage) {
    super(`${outage.cause} Fix: ${outage.fix}`);
    this.name = 'UpstreamAuthRefused';
  }
}

/** One caller's request cannot be made as that caller: an answer to that request alone, never an outage. */
export class CallerAuthRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CallerAuthRefused';
  }
}

/**
 * How a remote mount authenticates, as the SDK transport's `authProvider`:
 * the transport asks `token()` before every request and calls
 * `onUnauthorized()` on a 401, then retries the request once.
 *
 * Without `auth` in the entry, a 401 is read for what the upstream needs:
 * its protected-resource metadata (RFC 9728, from `WWW-Authenticate:
 * resource_metadata=…` or the well-known URL) and its authorization
 * server's metadata (RFC 8414 / OIDC discovery), found with the SDK's own
 * discovery helpers, become the mount's outage, naming what to add.
 *
 * With `auth.clientCredentials` the host is an OAuth client of that
 * server: the SDK's `ClientCredentialsProvider` (a secret) or
 * `PrivateKeyJwtProvider` (private_key_jwt) makes the token request, and
 * the token is used until shortly before it expires, then renewed before
 * the next request goes out. With `auth.tokenExchange` the host's own
 * requests (handshake, lists, pings) use the same client's client
 * credentials, and each caller's requests carry a token exchanged for that
 * caller's own (RFC 8693), cached per grant (subject, client, scopes) until it expires. The caller's
 * token is only ever the exchange's `subject_token`, sent only to the entry's
 * `issuer`: it never reaches the upstream.
 */
export class UpstreamAuthorization implements AuthProvider {
  private server?: AuthorizationServer;
  /**
   * The authorization server the client's credential first went to, when the entry names no `issuer` (client
   * credentials only: token exchange requires one, config/upstream-auth.ts): the only one it goes to after. A server
   * whose later 401 names another (it was taken over, or its metadata was) would otherwise be handed the client's
   * secret, good at the real one.
   */
  private firstIssuer?: string;
  private own?: CachedToken;
  private obtaining?: Promise<string>;
  private readonly exchanged = new Map<string, CachedToken>();
  /** The caller a request is being made for, in the async context the transport sends it in. */
  private readonly caller = new AsyncLocalStorage<{ identity: Identity; token: string }>();

  private readonly kept: number;
  private readonly now: () => number;

  constructor(
    private readonly spec: RemoteSpec,
    { kept = EXCHANGED_TOKENS_KEPT, now = Date.now }: UpstreamAuthorizationOptions = {},
  ) {
    this.kept = kept;
    this.now = now;
    const auth = spec.auth;
    if (auth?.tokenUrl) {
      // A token endpoint named in the config needs no discovery: it is its own authorization server.
      const issuer = auth.issuer ?? new URL(auth.tokenUrl).origin;
      this.server = {
        issuer,
        metadata: { issuer, token_endpoint: auth.tokenUrl } as AuthorizationServerMetadata,
        ...(auth.resource && { resource: auth.resource }),
      };
    }
  }

  async token(): Promise<string | undefined> {
    const caller = this.caller.getStore();
    if (caller) return caller.token;
    if (!this.spec.auth) return undefined;
    if (this.own && this.now() < this.own.renewAt) return this.own.token;
    // Before the first 401 the server is not known yet: the request goes without, and its 401 says where to ask.
    if (!this.server) return undefined;
    return this.renewOwn();
  }

  async onUnauthorized(context: UnauthorizedContext): Promise<void> {
    const caller = this.caller.getStore();
    if (caller) {
      // The caller's exchanged token was refused (revoked, or its grant changed): exchange again, once.
      caller.token = await this.exchange(caller.identity, true);
      return;
    }
    // Read afresh on every 401 that points at metadata (the server may have moved), unless the entry names its
    // token endpoint: then the entry, not the server, says where the credential goes.
    const challenge = extractWWWAuthenticateParams(context.response);
    if (this.server === undefined || (challenge.resourceMetadataUrl && !this.spec.auth?.tokenUrl)) {
      this.server = await this.discover(challenge.resourceMetadataUrl);
    }
    this.own = undefined;
    if (!this.spec.auth) throw new UpstreamAuthRefused(this.needs(this.server));
    await this.renewOwn();
  }

  /** Run `send` as `identity`: its requests carry a token exchanged for the caller's own. */
  async asCaller<T>(identity: Identity, send: () => Promise<T>): Promise<T> {
    const token = await this.exchange(identity, false);
    return this.caller.run({ identity, token }, send);
  }

  private renewOwn(): Promise<string> {
    this.obtaining ??= this.obtainOwn().finally(() => (this.obtaining = undefined));
    return this.obtaining;
  }

  private async obtainOwn(): Promise<string> {
    const credentials = this.spec.auth!;
    const server = this.server!;
    try {
      this.own = await this.request(this.clientOf(credentials, server), server, 'client_credentials');
      this.firstIssuer ??= server.issuer;
      return this.own.token;
    } catch (error) {
      if (error instanceof AuthorizationServerMismatchError) {
        const registeredAt = credentials.issuer
          ? `${credentials.issuer} (the entry's auth.${credentials.mode}.issuer)`
          : `${this.firstIssuer} (where the host got its first token for it)`;
        throw new UpstreamAuthRefused({
          cause: `${this.spec.url} names the authorization server ${server.issuer}, but client "${credentials.clientId}" is registered at ${registeredAt}: its credential is sent nowhere else.`,
          fix: `if the server has moved to ${server.issuer}, register the client there and ${credentials.issuer ? 'change issuer' : `set auth.${credentials.mode}.issuer to it (or restart the host)`}; otherwise check the entry's url: a server that names another authorization server may be collecting credentials.`,
        });
      }
      throw new UpstreamAuthRefused({
        cause: `${server.issuer} gave client "${credentials.clientId}" no token for ${this.spec.url}: ${describeRefusal(error)}.`,
        fix: `check the client at ${server.issuer}: that it is registered, may use the client_credentials grant${server.resource ? ` for the resource ${server.resource}` : ''}${credentials.scopes ? ` with the scopes ${credentials.scopes.join(' ')}` : ''}, and that its ${credentials.secret.kind === 'clientSecret' ? 'secret' : 'public key'} matches the one the entry's auth reads.`,
      });
    }
  }

  /** The token `identity` calls the upstream with: exchanged for its own, or refused when it has none to exchange. */
  private async exchange(identity: Identity, fresh: boolean): Promise<string> {
    const credentials = this.spec.auth!;
    if (!isOAuthIdentity(identity) || !identity.token) throw new CallerAuthRefused(this.noTokenToExchange(identity));
    // Per grant, not per token: a caller's next token (a refresh) is the same subject, client and scopes, and needs no
    // new exchange. Not per subject alone: another client of the same user (or a token with fewer scopes) would be
    // handed the token exchanged for a broader grant, and a client whose id is a user's `sub` that user's.
    const { iss, sub, client_id } = identity.claims;
    const key = JSON.stringify([iss, sub, client_id, [...identity.scopes].sort()]);
    const cached = this.exchanged.get(key);
    if (cached && !fresh && this.now() < cached.renewAt) return cached.token;
    // The host's own token came first (the handshake), so the server is known unless the upstream asked nothing.
    const server = this.server ?? (await this.discover(undefined));
    this.server = server;
    const client = this.clientOf(credentials, server);
    const subjectToken = identity.token;
    // The SDK's token request with the provider's client authentication, for the RFC 8693 grant.
    const grant: OAuthClientProvider = Object.create(client, {
      prepareTokenRequest: {
        value: () => {
          const params = new URLSearchParams({
            grant_type: TOKEN_EXCHANGE,
            subject_token: subjectToken,
            subject_token_type: ACCESS_TOKEN_TYPE,
            requested_token_type: ACCESS_TOKEN_TYPE,
          });
          if (credentials.audience) params.set('audience', credentials.audience);
          const scope = this.scopeOf(server);
          if (scope) params.set('scope', scope);
          return params;
        },
      },
    }) as OAuthClientProvider;
    let token: CachedToken;
    try {
      token = await this.request(grant, server, 'token_exchange');
    } catch (error) {
      throw new CallerAuthRefused(
        `mount "${mountName(this.spec)}": ${server.issuer} would not exchange the token of "${identity.name}" for one for ${this.spec.url}: ${describeRefusal(error)}. Fix: allow client "${credentials.clientId}" the token-exchange grant (RFC 8693) at ${server.issuer}${server.resource ? ` for the resource ${server.resource}` : ''}, and check that the caller's token is one ${server.issuer} accepts as a subject token.`,
      );
    }
    // Deleted first, so that a grant exchanged anew is the newest again, and the oldest is the one dropped.
    this.exchanged.delete(key);
    this.exchanged.set(key, token);
    if (this.exchanged.size > this.kept) this.exchanged.delete(this.exchanged.keys().next().value!);
    return token.token;
  }

  /** One token request at the authorization server, counted by grant and outcome (the metrics' token refreshes). */
  private async request(
    provider: OAuthClientProvider,
    server: AuthorizationServer,
    grant: UpstreamTokenGrant,
  ): Promise<CachedToken> {
    const asked = this.now();
    const scope = this.scopeOf(server);
    const mount = mountName(this.spec);
    const tokens = await fetchToken(provider, server.issuer, {
      fetchFn: oauthFetch,
      // None when the server's own metadata was not found (404): the SDK then asks its issuer's /token.
      metadata: server.metadata,
      ...(server.resource && { resource: server.resource }),
      ...(scope && { scope }),
    }).then(
      (granted) => {
        recordUpstreamToken(mount, grant, 'ok');
        return granted;
      },
      (error: unknown) => {
        recordUpstreamToken(mount, grant, 'refused');
        throw error;
      },
    );
    const lifetimeMs = tokens.expires_in === undefined ? Infinity : tokens.expires_in * 1000;
    return { token: tokens.access_token, renewAt: asked + lifetimeMs - Math.min(RENEW_BEFORE_MS, lifetimeMs / 10) };
  }

  /** The scopes a token is asked with (only for an entry with `auth`): the entry's, else the upstream's metadata's. */
  private scopeOf(server: AuthorizationServer): string | undefined {
    return (this.spec.auth!.scopes ?? server.scopes)?.join(' ') || undefined;
  }

  /**
   * The SDK's provider for the configured client, bound to the issuer its credential may be sent to: the one the
   * entry names, else the first one it was sent to, else the one the server's metadata names. A server naming another issuer than the entry's is
   * refused by the SDK before the credential leaves the host.
   */
  private clientOf(credentials: UpstreamCredentials, server: AuthorizationServer): OAuthClientProvider {
    const { clientId, secret } = credentials;
    const issuer = credentials.issuer ?? this.firstIssuer ?? server.issuer;
    return secret.kind === 'clientSecret'
      ? new ClientCredentialsProvider({ clientId, clientSecret: secret.value, expectedIssuer: issuer })
      : new PrivateKeyJwtProvider({
          clientId,
          privateKey: secret.pem,
          algorithm: secret.algorithm,
          expectedIssuer: issuer,
        });
  }

  /**
   * What the upstream's metadata says of its authorization server (read with plain fetch: the entry's headers
   * stay its own), in the two steps of the SDK's `discoverOAuthServerInfo`: the protected-resource metadata
   * (RFC 9728), which names the authorization server, then that server's metadata (RFC 8414 / OIDC discovery).
   * Taken apart so that a server named by the first is still named when its own metadata cannot be read
   * (unreachable, or not what the SDK accepts): an entry without `auth` is told where to register. A server
   * that publishes none refuses the host as any 401 does, in the words used before OAuth.
   */
  private async discover(resourceMetadataUrl: URL | undefined): Promise<AuthorizationServer> {
    let resourceMetadata: OAuthProtectedResourceMetadata | undefined;
    let unreadable: unknown;
    try {
      resourceMetadata = await discoverOAuthProtectedResourceMetadata(
        this.spec.url,
        resourceMetadataUrl ? { resourceMetadataUrl } : {},
        oauthFetch,
      );
    } catch (error) {
      // As the SDK's discovery: none published means the server is its own authorization server; none reached is unreadable.
      if (error instanceof TypeError) unreadable = error;
    }
    const named = resourceMetadata?.authorization_servers?.[0];
    const issuer = named ?? String(new URL('/', this.spec.url));
    let metadata: AuthorizationServerMetadata | undefined;
    if (unreadable === undefined) {
      try {
        metadata = await discoverAuthorizationServerMetadata(issuer, { fetchFn: oauthFetch });
      } catch (error) {
        unreadable = error;
      }
    }
    if (!resourceMetadata && !metadata) throw new UpstreamAuthRefused(this.noMetadata(unreadable));
    // The entry's credential needs the token endpoint: a server whose metadata cannot say it is no server to ask.
    if (unreadable !== undefined && this.spec.auth) throw new UpstreamAuthRefused(this.noMetadata(unreadable));
    const resource = this.spec.auth?.resource ?? this.ownResource(resourceMetadata?.resource, resourceMetadataUrl);
    const scopes = resourceMetadata?.scopes_supported;
    return {
      issuer: metadata?.issuer ?? issuer,
      ...(metadata && { metadata }),
      ...(unreadable !== undefined && { unreadable: describeMetadataFailure(unreadable) }),
      ...(resource && { resource }),
      ...(scopes && { scopes }),
    };
  }

  /** The upstream refused the host, and its OAuth metadata cannot tell where a token comes from. */
  private noMetadata(unreadable: unknown): Outage {
    const why =
      unreadable === undefined
        ? 'publishes no OAuth metadata'
        : `has OAuth metadata that could not be read (${describeMetadataFailure(unreadable)})`;
    if (this.spec.auth) {
      return {
        cause: `${this.spec.url} refused the host with HTTP 401 and ${why}: the host cannot tell where to get a token.`,
        fix: `name the token endpoint in the entry: auth.${this.spec.auth.mode}.tokenUrl (and resource, if the server wants one).`,
      };
    }
    if (unreadable !== undefined) {
      return {
        cause: `${this.spec.url} refused the host with HTTP 401 and ${why}.`,
        fix: 'if the server wants an OAuth token, add to the entry auth: { clientCredentials: { clientId: "…", clientSecretEnv: "…", tokenUrl: "…" } } naming its token endpoint; if it wants an API key, headers: { Authorization: "Bearer …" }; see docs/upstream-auth.md.',
      };
    }
    return {
      cause: `${this.spec.url} refused the host with HTTP 401.`,
      fix: 'give the entry the credentials the server expects, e.g. headers: { Authorization: "Bearer …" }.',
    };
  }

  /**
   * The resource the upstream's metadata names, if it is the upstream's own (RFC 9728 §3.3: the same origin, the
   * upstream's URL at or under its path). A token is asked for that resource and sent to the upstream, so a server
   * naming another's resource would be handed a token for that other server (one it could replay there): refused.
   */
  private ownResource(resource: string | undefined, metadataUrl: URL | undefined): string | undefined {
    if (resource === undefined) return undefined;
    const own = resourceUrlFromServerUrl(this.spec.url);
    // The SDK's metadata schema has already required `resource` to be a URL.
    if (checkResourceAllowed({ requestedResource: own, configuredResource: resource })) return resource;
    const key = this.spec.auth ? `auth.${this.spec.auth.mode}.resource` : 'auth.clientCredentials.resource';
    throw new UpstreamAuthRefused({
      cause: `${this.spec.url} publishes protected-resource metadata${metadataUrl ? ` (${metadataUrl.href})` : ''} naming the resource ${JSON.stringify(resource)}, which is not this server (${own.href}): the host asks for no token for another server's resource, since this server would be sent it (RFC 9728 §3.3).`,
      fix: `check the entry's url: a server that names another's resource may be collecting tokens for it; if ${JSON.stringify(resource)} truly is this server's resource identifier, name it in the entry: ${key}: ${JSON.stringify(resource)}.`,
    });
  }

  /** What an entry without `auth` needs, as the upstream's metadata tells it. */
  private needs(server: AuthorizationServer): Outage {
    const grants = server.metadata?.grant_types_supported;
    const details = [
      server.metadata?.token_endpoint && `token endpoint ${server.metadata.token_endpoint}`,
      server.resource && `resource ${server.resource}`,
      server.scopes && `scopes ${server.scopes.join(' ')}`,
      grants && `grants ${grants.join(', ')}`,
    ].filter(Boolean);
    if (server.unreadable) details.push(`its metadata could not be read: ${server.unreadable}`);
    return {
      // Never empty: the server was discovered from the upstream's metadata (whose `resource` the SDK's schema
      // requires) or from its own (whose `token_endpoint` it requires).
      cause: `${this.spec.url} requires an OAuth token (HTTP 401) from the authorization server ${server.issuer} (${details.join('; ')}), and the entry gives the host no way to get one.`,
      // Without readable metadata the host cannot find the token endpoint: the entry names it.
      fix: `register a client for mcp-host at ${server.issuer} and add to the entry auth: { clientCredentials: { clientId: "…", clientSecretEnv: "…"${server.unreadable ? ', tokenUrl: "…"' : ''} } } (the host's own token), or auth: { tokenExchange: { … } } (each caller's token exchanged); see docs/upstream-auth.md.`,
    };
  }

  private noTokenToExchange(identity: Identity): string {
    const who =
      identity.kind === 'stdio'
        ? 'a stdio client'
        : identity.kind === 'token'
          ? `a client of the static token "${identity.tokenName ?? identity.name}"`
          : 'a client that sent no token';
    return `mount "${mountName(this.spec)}" calls ${this.spec.url} as each caller, exchanging the caller's OAuth token for one of its own (auth.tokenExchange), and this is ${who}: it has no OAuth token to exchange. Fix: connect over HTTP with an access token the host accepts (http.oauth), or mount the server with auth.clientCredentials to call it as the host.`;
  }
}

/**
 * Why OAuth metadata could not be read, in words: a document the SDK's schema refuses names the fields it lacks
 * or got wrong (its own error is a JSON dump of them), anything else says itself.
 */
function describeMetadataFailure(error: unknown): string {
  if (!(error instanceof ZodError)) return describeThrown(error);
  const fields = error.issues.map((issue) => `${issue.path.join('.') || '(the document)'}: ${issue.message}`);
  return `it is not metadata the MCP SDK accepts (${fields.join('; ')})`;
}

/** An authorization server's refusal in its own terms: the OAuth error code, and its description when it has one. */
function describeRefusal(error: unknown): string {
  if (!(error instanceof OAuthError)) return describeThrown(error);
  // The SDK makes a refusal's code its message when it has no error_description (OAuthError.fromResponse): said once.
  return error.message && error.message !== error.code ? `${error.code} (${error.message})` : error.code;
}
