/**
 * A real OpenID provider on loopback (`oidc-provider` from npm) for the
 * tests, both as the authorization server the host trusts for its own
 * clients (`http.oauth`) and as the one an upstream's tokens come from
 * (`auth: { clientCredentials | tokenExchange }` on a `url:` mount).
 *
 *   const idp = await startOpenIdProvider(t);             // DEFAULT_CLIENTS
 *   await idp.token('alice-agent', { scope: 'mcp', resource: audience });
 *   idp.sign(claims); idp.rotateKeys(); idp.revoke('mcp-host'); idp.granted[TOKEN_EXCHANGE_GRANT];
 *
 * Clients (a secret, or public keys for private_key_jwt) live in an adapter,
 * not a static list, so that one can be registered or removed while the
 * provider runs. A token asked for a resource (RFC 8707) is a JWT for that
 * audience, or opaque (for introspection) to the client `opaque`; a
 * client's `groups` go into its tokens. Its signing key can be rotated,
 * the old key kept in the JWKS or retired at once.
 *
 * oidc-provider has no RFC 8693 token exchange of its own; its documented
 * extension point (`registerGrantType`) adds one here: the client is
 * authenticated by oidc-provider, the subject token must be an access token
 * this provider issued (a JWT it signed, or one `subjectToken(sub)` made),
 * and the token issued is a JWT for the asked resource, signed with the
 * provider's own key, whose `sub` is the subject token's.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { errors } from 'oidc-provider';
import {
  SignJWT,
  createLocalJWKSet,
  exportJWK,
  generateKeyPair,
  importJWK,
  jwtVerify,
  type JWK,
  type JWTPayload,
} from 'jose';
import type { Teardown } from './host.js';

export interface TestClient {
  clientId: string;
  /** client_secret_basic; or give `jwks` for private_key_jwt. */
  clientSecret?: string;
  /** The client's public keys, for private_key_jwt. */
  jwks?: { keys: JWK[] };
  /** The scopes it may ask for, space-separated; any scope when absent. */
  scope?: string;
  /** Put in its tokens as the `groups` claim. */
  groups?: string[];
  /** Default: client credentials and token exchange. */
  grantTypes?: string[];
}

export interface OpenIdProviderOptions {
  clients?: TestClient[];
  /** The lifetime of the access tokens issued, in seconds. Default 300. */
  accessTokenTtl?: number;
  /** The scopes the provider knows and a resource server accepts. Default ['mcp', 'notes']. */
  scopes?: string[];
}

export interface OpenIdProvider {
  issuer: string;
  jwksUri: string;
  clients: readonly TestClient[];
  /** A client-credentials access token, as the client would get it from the token endpoint. */
  token(clientId: string, options?: { scope?: string; resource?: string }): Promise<string>;
  /** A JWT signed with the provider's current key (what only the provider could sign): for claims it would not issue. */
  sign(claims: JWTPayload): Promise<string>;
  /** `sign` for a resource server: this issuer, `aud` the audience, valid from now for 5 minutes, then `claims`. */
  accessToken(audience: string, claims: JWTPayload): Promise<string>;
  /** Sign with a new key from now on, first in a JWKS that keeps the old one, or publishes only it with `retireOld`. */
  rotateKeys(options?: { retireOld?: boolean }): Promise<void>;
  /** How many times the JWKS was fetched. */
  jwksFetches(): number;
  /** The key id tokens are signed with now. */
  currentKid(): string;
  /** Register one more client while the provider runs. */
  register(client: TestClient): Promise<void>;
  /** Remove a registered client: its next token request is refused (invalid_client). */
  revoke(clientId: string): Promise<void>;
  /** An access token for `sub` that the token-exchange grant accepts as its subject token. */
  subjectToken(sub: string): string;
  /** Stop accepting a token `subjectToken` made as a subject token (it was revoked). */
  revokeSubjectToken(token: string): void;
  /** Token requests answered, by grant type. */
  granted: Record<string, number>;
}

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

export const DEFAULT_CLIENTS: TestClient[] = [
  { clientId: 'alice-agent', clientSecret: 'alice-secret-0123456789abcdef', scope: 'mcp notes', groups: ['admins'] },
  { clientId: 'bob-agent', clientSecret: 'bob-secret-0123456789abcdef', scope: 'notes' },
  { clientId: 'carol-agent', clientSecret: 'carol-secret-0123456789abcdef', scope: 'mcp' },
  { clientId: 'opaque', clientSecret: 'opaque-secret-0123456789abcdef', scope: 'mcp' },
  // The host's own client: at the introspection endpoint, and for an upstream's tokens.
  { clientId: 'mcp-host', clientSecret: 'mcp-host-secret-0123456789abcdef' },
];

interface SigningKey {
  privateJwk: JWK;
  publicJwk: JWK;
}

export async function startOpenIdProvider(
  t: Teardown,
  { clients = DEFAULT_CLIENTS, accessTokenTtl = 300, scopes = ['mcp', 'notes'] }: OpenIdProviderOptions = {},
): Promise<OpenIdProvider> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  // The issuer names the port: the server listens first, then the provider is made for its address.
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const known = [...clients];
  const groupsOf = (clientId: string) => known.find((client) => client.clientId === clientId)?.groups;
  // Every model (clients, opaque tokens) lives here, so that a client can be removed while the provider runs.
  const stored = new Map<string, Record<string, unknown>>();
  class Adapter {
    constructor(private readonly model: string) {}
    async upsert(id: string, payload: Record<string, unknown>) {
      stored.set(`${this.model}:${id}`, payload);
    }
    async find(id: string) {
      return stored.get(`${this.model}:${id}`);
    }
    async findByUid() {
      return undefined;
    }
    async findByUserCode() {
      return undefined;
    }
    async consume() {}
    async destroy(id: string) {
      stored.delete(`${this.model}:${id}`);
    }
    async revokeByGrantId() {}
  }
  const register = async (client: TestClient) => {
    if (!known.includes(client)) known.push(client);
    await new Adapter('Client').upsert(client.clientId, {
      client_id: client.clientId,
      ...(client.clientSecret
        ? { client_secret: client.clientSecret, token_endpoint_auth_method: 'client_secret_basic' }
        : { jwks: client.jwks, token_endpoint_auth_method: 'private_key_jwt' }),
      ...(client.scope !== undefined && { scope: client.scope }),
      grant_types: client.grantTypes ?? ['client_credentials', TOKEN_EXCHANGE_GRANT],
      redirect_uris: [],
      response_types: [],
    });
  };
  for (const client of clients) await register(client);

  let keys = [await newSigningKey(1)];
  let jwksFetches = 0;
  const granted: Record<string, number> = {};
  const subjects = new Map<string, string>();

  /** The `sub` of a subject token this provider issued, or undefined. */
  const subjectOf = async (token: string): Promise<string | undefined> => {
    const made = subjects.get(token);
    if (made) return made;
    const published = createLocalJWKSet({ keys: keys.map((key) => key.publicJwk) });
    const claims = await jwtVerify(token, published, { issuer }).then(
      ({ payload }) => payload,
      () => undefined,
    );
    return claims?.sub;
  };

  /** A provider signing with the current keys; rotating them swaps in a new one over the same clients. */
  const providerForKeys = () => {
    const provider = new Provider(issuer, {
      adapter: Adapter,
      jwks: { keys: keys.map((key) => key.privateJwk) },
      scopes,
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        introspection: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => undefined,
          useGrantedResource: () => true,
          // Any resource a client names: a token for another resource is what a resource server must refuse.
          getResourceServerInfo: (_ctx: unknown, resource: string, client: { clientId: string }) => ({
            scope: scopes.join(' '),
            audience: resource,
            accessTokenTTL: accessTokenTtl,
            accessTokenFormat: client.clientId === 'opaque' ? 'opaque' : 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          }),
        },
      },
      extraTokenClaims: (_ctx: unknown, token: { clientId: string }) => {
        const groups = groupsOf(token.clientId);
        return groups ? { groups } : undefined;
      },
    });
    provider.on('grant.success', (ctx) => {
      const grant = ctx.oidc.params.grant_type ?? 'unknown';
      granted[grant] = (granted[grant] ?? 0) + 1;
    });
    provider.registerGrantType(
      TOKEN_EXCHANGE_GRANT,
      async (ctx) => {
        const { subject_token, subject_token_type, resource, scope } = ctx.oidc.params;
        const sub = subject_token && (await subjectOf(subject_token));
        if (!sub || subject_token_type !== ACCESS_TOKEN_TYPE) throw new errors.InvalidGrant('unknown subject token');
        const now = Math.floor(Date.now() / 1000);
        const [current] = keys;
        const accessToken = await new SignJWT({
          scope: scope ?? scopes.join(' '),
          client_id: ctx.oidc.client!.clientId,
        })
          .setProtectedHeader({ alg: 'RS256', kid: current!.privateJwk.kid!, typ: 'at+jwt' })
          .setIssuer(issuer)
          .setSubject(sub)
          .setAudience(resource ?? issuer)
          .setIssuedAt(now)
          .setExpirationTime(now + accessTokenTtl)
          .setJti(randomBytes(8).toString('hex'))
          .sign(await importJWK(current!.privateJwk, 'RS256'));
        ctx.body = {
          access_token: accessToken,
          issued_token_type: ACCESS_TOKEN_TYPE,
          token_type: 'Bearer',
          expires_in: accessTokenTtl,
        };
      },
      ['subject_token', 'subject_token_type', 'requested_token_type', 'audience', 'resource', 'scope'],
    );
    return provider.callback();
  };
  let handle = providerForKeys();
  server.on('request', (req, res) => {
    if (req.url === '/jwks') jwksFetches += 1;
    handle(req, res);
  });

  async function sign(claims: JWTPayload): Promise<string> {
    const [current] = keys;
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: current!.privateJwk.kid!, typ: 'at+jwt' })
      .sign(await importJWK(current!.privateJwk, 'RS256'));
  }

  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    clients: known,
    async token(clientId, { scope, resource } = {}) {
      const client = known.find((c) => c.clientId === clientId)!;
      const answer = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          ...(scope !== undefined && { scope }),
          ...(resource !== undefined && { resource }),
        }),
      });
      const body = (await answer.json()) as { access_token?: string };
      if (!body.access_token) throw new Error(`the provider issued no token: ${answer.status} ${JSON.stringify(body)}`);
      return body.access_token;
    },
    sign,
    accessToken(audience, claims) {
      const now = Math.floor(Date.now() / 1000);
      return sign({ iss: issuer, aud: audience, iat: now, exp: now + 300, ...claims });
    },
    async rotateKeys({ retireOld = false } = {}) {
      const next = await newSigningKey(keys.length + 1);
      keys = retireOld ? [next] : [next, ...keys];
      handle = providerForKeys();
    },
    jwksFetches: () => jwksFetches,
    currentKid: () => keys[0]!.privateJwk.kid!,
    register,
    revoke: (clientId) => new Adapter('Client').destroy(clientId),
    subjectToken(sub) {
      const token = randomBytes(24).toString('base64url');
      subjects.set(token, sub);
      return token;
    },
    revokeSubjectToken: (token) => void subjects.delete(token),
    granted,
  };
}

// Key ids unique across providers in one process, so that a key of one is never taken for another's.
let keysMade = 0;
async function newSigningKey(rotation: number): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = `k${rotation}-${++keysMade}`;
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  return { privateJwk, publicJwk };
}
