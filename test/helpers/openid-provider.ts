/**
 * A real OpenID provider on loopback (`oidc-provider` from npm) for the
 * host to trust as an OAuth authorization server: client-credentials
 * clients with scopes and a `groups` claim, access tokens issued as JWTs for
 * the resource a client names (RFC 8707 resource indicators), or opaque
 * (for introspection) to the client `opaque`. Its signing key can be
 * rotated: a new key first in its JWKS, the old one kept.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from 'jose';
import type { Teardown } from './host.js';

export interface TestClient {
  client_id: string;
  client_secret: string;
  /** The scopes it may ask for, space-separated. */
  scope: string;
  /** Put in its tokens as the `groups` claim. */
  groups?: string[];
}

export interface OpenIdProvider {
  issuer: string;
  clients: readonly TestClient[];
  /** A client-credentials access token, as the client would get it from the token endpoint. */
  token(clientId: string, options?: { scope?: string; resource?: string }): Promise<string>;
  /** A JWT signed with the provider's current key (what only the provider could sign): for claims it would not issue. */
  sign(claims: JWTPayload): Promise<string>;
  /** A new signing key, first in a JWKS that keeps the old one: tokens are signed with it from now on. */
  rotateKeys(): Promise<void>;
  /** How many times the JWKS was fetched. */
  jwksFetches(): number;
  /** The key id tokens are signed with now. */
  currentKid(): string;
}

interface SigningKey {
  privateJwk: JWK;
  privateKey: Parameters<SignJWT['sign']>[0];
}

let keyCount = 0;
async function newSigningKey(): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const privateJwk = {
    ...(await exportJWK(privateKey)),
    kid: `key-${++keyCount}-${Date.now()}`,
    alg: 'RS256',
    use: 'sig',
  };
  return { privateJwk, privateKey };
}

export const DEFAULT_CLIENTS: TestClient[] = [
  { client_id: 'alice-agent', client_secret: 'alice-secret-0123456789abcdef', scope: 'mcp notes', groups: ['admins'] },
  { client_id: 'bob-agent', client_secret: 'bob-secret-0123456789abcdef', scope: 'notes' },
  { client_id: 'carol-agent', client_secret: 'carol-secret-0123456789abcdef', scope: 'mcp' },
  { client_id: 'opaque', client_secret: 'opaque-secret-0123456789abcdef', scope: 'mcp' },
  // The host's own client at the introspection endpoint.
  { client_id: 'mcp-host', client_secret: 'mcp-host-secret-0123456789abcdef', scope: '' },
];

export async function startOpenIdProvider(
  t: Teardown,
  { clients = DEFAULT_CLIENTS }: { clients?: TestClient[] } = {},
): Promise<OpenIdProvider> {
  let keys = [await newSigningKey()];
  let jwksFetches = 0;
  const groupsOf = new Map(clients.map((client) => [client.client_id, client.groups]));

  const provider = (issuer: string) =>
    new Provider(issuer, {
      clients: clients.map(({ groups: _groups, scope, ...client }) => ({
        ...client,
        ...(scope !== '' && { scope }),
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
      })),
      jwks: { keys: keys.map((key) => key.privateJwk) },
      scopes: ['mcp', 'notes'],
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        introspection: { enabled: true },
        resourceIndicators: {
          enabled: true,
          // Any resource a client names: a token for another resource is what the host must refuse.
          getResourceServerInfo: (_ctx: unknown, resource: string, client: { clientId: string }) => ({
            scope: 'mcp notes',
            audience: resource,
            accessTokenTTL: 300,
            accessTokenFormat: client.clientId === 'opaque' ? 'opaque' : 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          }),
        },
      },
      extraTokenClaims: (_ctx: unknown, token: { clientId: string }) => {
        const groups = groupsOf.get(token.clientId);
        return groups ? { groups } : undefined;
      },
    });

  // The issuer names the port: the server listens first, then the provider is made for its address.
  let callback: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  const server = createServer((req, res) => {
    if (req.url === '/jwks') jwksFetches += 1;
    callback(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  callback = provider(issuer).callback();

  return {
    issuer,
    clients,
    async token(clientId, { scope, resource } = {}) {
      const client = clients.find((c) => c.client_id === clientId)!;
      const answer = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
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
    sign(claims) {
      const [current] = keys;
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: current!.privateJwk.kid!, typ: 'at+jwt' })
        .sign(current!.privateKey);
    },
    async rotateKeys() {
      keys = [await newSigningKey(), ...keys];
      callback = provider(issuer).callback();
    },
    jwksFetches: () => jwksFetches,
    currentKid: () => keys[0]!.privateJwk.kid!,
  };
}
