/**
 * A real OpenID provider on loopback for the tests: `oidc-provider` from npm,
 * with clients of the client-credentials grant, resource indicators (RFC
 * 8707) so that a token asked for a resource is a JWT for that audience, and
 * ways to revoke a client and to rotate its signing keys while it runs.
 *
 *   const op = await startOpenIdProvider(t, { clients: [{ clientId: 'host', clientSecret: 's3cret' }] });
 *   op.issuer; op.jwksUri; op.revoke('host'); op.rotateKeys(); op.subjectToken('alice');
 *
 * oidc-provider has no RFC 8693 token exchange of its own; its documented
 * extension point (`registerGrantType`) adds one here: the client is
 * authenticated by oidc-provider, the subject token must be one this helper
 * issued (`subjectToken(sub)`), and the token issued is a JWT for the asked
 * resource, signed with the provider's own key, whose `sub` is the subject's.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { Teardown } from './host.js';

export interface OpenIdClient {
  clientId: string;
  /** client_secret_basic / _post; or give `jwks` for private_key_jwt. */
  clientSecret?: string;
  /** The client's public keys, for private_key_jwt. */
  jwks?: { keys: JWK[] };
  /** Default: client credentials and token exchange. */
  grantTypes?: string[];
}

export interface OpenIdProviderOptions {
  clients: OpenIdClient[];
  /** The lifetime of the access tokens issued, in seconds. Default 300. */
  accessTokenTtl?: number;
  /** The scopes a resource server accepts. Default ['mcp']. */
  scopes?: string[];
}

export interface OpenIdProvider {
  issuer: string;
  jwksUri: string;
  /** Register one more client while the provider runs. */
  register(client: OpenIdClient): Promise<void>;
  /** Remove a registered client: its next token request is refused (invalid_client). */
  revoke(clientId: string): Promise<void>;
  /** Sign with a new key from now on; the JWKS publishes only it (the old key is retired at once). */
  rotateKeys(): Promise<void>;
  /** Stop accepting a token `subjectToken` gave as a subject token (it was revoked). */
  revokeSubjectToken(token: string): void;
  /** An access token for `sub` that the token-exchange grant accepts as its subject token. */
  subjectToken(sub: string): string;
  /** Token requests answered, by grant type. */
  granted: Record<string, number>;
}

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/** The part of oidc-provider these tests use (the package ships no typings). */
interface ProviderInstance {
  callback(): (req: unknown, res: unknown) => void;
  on(event: string, listener: (ctx: ProviderContext) => void): void;
  registerGrantType(name: string, handler: (ctx: ProviderContext) => Promise<void>, params: string[]): void;
}
interface ProviderContext {
  oidc: { params: Record<string, string | undefined>; client?: { clientId: string } };
  body: unknown;
}
type ProviderClass = new (issuer: string, configuration: Record<string, unknown>) => ProviderInstance;

export async function startOpenIdProvider(t: Teardown, options: OpenIdProviderOptions): Promise<OpenIdProvider> {
  // A variable specifier: oidc-provider has no typings, and ProviderClass says what is used of it.
  const name = 'oidc-provider';
  const { default: Provider, errors } = (await import(name)) as {
    default: ProviderClass;
    errors: { InvalidGrant: new (detail: string) => Error };
  };
  const ttl = options.accessTokenTtl ?? 300;
  const scopes = options.scopes ?? ['mcp'];

  let rotations = 0;
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // Clients live in an adapter, not the static list, so that one can be removed while the provider runs.
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
  const register = (client: OpenIdClient) =>
    new Adapter('Client').upsert(client.clientId, {
      client_id: client.clientId,
      ...(client.clientSecret
        ? { client_secret: client.clientSecret, token_endpoint_auth_method: 'client_secret_basic' }
        : { jwks: client.jwks, token_endpoint_auth_method: 'private_key_jwt' }),
      grant_types: client.grantTypes ?? ['client_credentials', TOKEN_EXCHANGE_GRANT],
      redirect_uris: [],
      response_types: [],
      scope: scopes.join(' '),
    });
  for (const client of options.clients) await register(client);

  const granted: Record<string, number> = {};
  const subjects = new Map<string, string>();

  /** A provider signing with `key`; rotating the keys swaps in a new one over the same clients. */
  const providerSigningWith = async (key: JWK) => {
    const provider = new Provider(issuer, {
      adapter: Adapter,
      jwks: { keys: [key] },
      scopes,
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => undefined,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx: unknown, resource: string) => ({
            scope: scopes.join(' '),
            audience: resource,
            accessTokenTTL: ttl,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          }),
        },
      },
    });
    provider.on('grant.success', (ctx) => {
      const grant = ctx.oidc.params.grant_type ?? 'unknown';
      granted[grant] = (granted[grant] ?? 0) + 1;
    });
    const signer = await importJWK(key, 'RS256');
    provider.registerGrantType(
      TOKEN_EXCHANGE_GRANT,
      async (ctx) => {
        const { subject_token, subject_token_type, resource, scope } = ctx.oidc.params;
        const sub = subject_token && subjects.get(subject_token);
        if (!sub || subject_token_type !== ACCESS_TOKEN_TYPE) throw new errors.InvalidGrant('unknown subject token');
        const now = Math.floor(Date.now() / 1000);
        const accessToken = await new SignJWT({
          scope: scope ?? scopes.join(' '),
          client_id: ctx.oidc.client!.clientId,
        })
          .setProtectedHeader({ alg: 'RS256', kid: key.kid!, typ: 'at+jwt' })
          .setIssuer(issuer)
          .setSubject(sub)
          .setAudience(resource ?? issuer)
          .setIssuedAt(now)
          .setExpirationTime(now + ttl)
          .setJti(randomBytes(8).toString('hex'))
          .sign(signer);
        ctx.body = {
          access_token: accessToken,
          issued_token_type: ACCESS_TOKEN_TYPE,
          token_type: 'Bearer',
          expires_in: ttl,
        };
      },
      ['subject_token', 'subject_token_type', 'requested_token_type', 'audience', 'resource', 'scope'],
    );
    return provider.callback();
  };
  let handle = await providerSigningWith(await newSigningKey('k1'));
  server.on('request', (req, res) => handle(req, res));
  t.teardown(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));

  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    register,
    revoke: (clientId) => new Adapter('Client').destroy(clientId),
    rotateKeys: async () => {
      rotations += 1;
      handle = await providerSigningWith(await newSigningKey(`k${rotations + 1}`));
    },
    revokeSubjectToken: (token) => void subjects.delete(token),
    subjectToken: (sub) => {
      const token = randomBytes(24).toString('base64url');
      subjects.set(token, sub);
      return token;
    },
    granted,
  };
}

async function newSigningKey(kid: string): Promise<JWK> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
}
