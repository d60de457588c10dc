// The OAuth resource server's checks one by one, in this process: what a
// token's claims make of the identity, and every way verification fails,
// each answered with what was wrong and the fix. Tokens are signed by the
// real OpenID provider's key (oidc-provider on loopback), or served by an
// issuer that misbehaves as providers do (metadata without keys, a JWKS or
// an introspection endpoint that fails): a real HTTP server on loopback.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import pino from 'pino';
import { OAuthError, type AuthInfo } from '@modelcontextprotocol/server';
import { OAuthResourceServer } from '../host/serve/oauth-resource-server.js';
import type { OAuthSettings } from '../host/serve/oauth-settings.js';
import { JWT_ALGORITHMS } from '../host/config/validate.js';
import { protectedResourceMetadataResponse } from '../host/serve/protected-resource-metadata.js';
import { identityOf } from '../host/vocabulary/identity.js';
import { startOpenIdProvider } from './helpers/openid-provider.js';

const AUDIENCE = 'https://mcp.example.test/mcp';
const silent = pino({ level: 'silent' });

function resourceServer(issuer: string, more: Partial<OAuthSettings> = {}): OAuthResourceServer {
  return new OAuthResourceServer(
    { issuer, audience: AUDIENCE, scopes: [], algorithms: JWT_ALGORITHMS, clockSkewSeconds: 0, ...more },
    silent,
  );
}

/** Why `verifying` was refused: the OAuthError's code and message. */
async function refusal(verifying: Promise<AuthInfo>): Promise<string> {
  try {
    await verifying;
    return 'accepted';
  } catch (error) {
    return error instanceof OAuthError ? `${error.code}: ${error.message}` : `not an OAuthError: ${String(error)}`;
  }
}

/** An issuer on loopback whose every answer the test sets: `routes[path]` answers that path, 404 otherwise. */
async function misbehavingIssuer(t: Test) {
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {};
  const server = createServer((req, res) => {
    const route = routes[new URL(req.url!, 'http://x').pathname];
    if (route) route(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const json =
    (body: unknown, status = 200) =>
    (_req: IncomingMessage, res: ServerResponse) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const metadata = (extra: Record<string, unknown>) => {
    routes['/.well-known/oauth-authorization-server'] = json({
      issuer,
      authorization_endpoint: `${issuer}/auth`,
      token_endpoint: `${issuer}/token`,
      response_types_supported: ['code'],
      ...extra,
    });
  };
  return { issuer, routes, json, metadata };
}

t.test("a token's claims make the identity: subject or client, scopes from scope or scp", async (t) => {
  const idp = await startOpenIdProvider(t);
  const server = resourceServer(idp.issuer);
  const now = Math.floor(Date.now() / 1000);
  const sign = (claims: Record<string, unknown>) =>
    idp.sign({ iss: idp.issuer, aud: AUDIENCE, exp: now + 300, ...claims });
  const identity = async (claims: Record<string, unknown>) =>
    identityOf({ http: { authInfo: await server.verifyAccessToken(await sign(claims)) } });

  const alice = await server.verifyAccessToken(await sign({ sub: 'alice', client_id: 'app', scope: 'mcp notes' }));
  t.equal(alice.clientId, 'user:alice', 'a session belongs to the user');
  t.same(alice.scopes, ['mcp', 'notes']);
  t.equal(alice.resource?.href, AUDIENCE);
  t.match(identityOf({ http: { authInfo: alice } }), { kind: 'user', name: 'alice', claims: { client_id: 'app' } });
  t.match(await identity({ client_id: 'service', scp: ['mcp', 'admin'] }), {
    name: 'service',
    scopes: ['mcp', 'admin'],
  });
  t.match(await identity({ sub: 'carol', scp: 'mcp notes' }), { name: 'carol', scopes: ['mcp', 'notes'] });
  t.match(
    await refusal(server.verifyAccessToken(await sign({ scope: 'mcp' }))),
    'invalid_token: the access token was refused: it names no subject (neither a "sub" nor a "client_id" claim), so mcp-host cannot tell whose it is; get a token that names its subject',
    'a token naming no one is no one: refused, not one identity shared by every such token',
  );
});

t.test('each malformed or unverifiable token is refused with what was wrong', async (t) => {
  const idp = await startOpenIdProvider(t);
  const server = resourceServer(idp.issuer);
  t.match(
    await refusal(server.verifyAccessToken(await idp.sign({ iss: idp.issuer, aud: AUDIENCE, sub: 'no-exp' }))),
    /^invalid_token: the access token was refused: its "exp" claim is missing/,
  );
  t.match(await refusal(server.verifyAccessToken('a.b.c')), /^invalid_token: .*it is not a well-formed signed JWT/);
  t.match(
    await refusal(server.verifyAccessToken('an-opaque-token')),
    /^invalid_token: .*it is not a JWT, and this mcp-host introspects no opaque tokens \(http\.oauth\.introspection is not set\)/,
  );

  // A token verified once is remembered until its exp, then checked again and refused. Its lifetime must
  // outlast its signing and both verifications: counted from when it is signed (not from the test's start,
  // after the round trips above), in whole seconds (so it lives between lifetime - 1 and lifetime), and long
  // enough for a machine that pauses for seconds; the wait for its exp is the token's own.
  const lifetimeSeconds = 10;
  const issued = Math.floor(Date.now() / 1000);
  const exp = issued + lifetimeSeconds;
  const shortLived = await idp.sign({ iss: idp.issuer, aud: AUDIENCE, sub: 'brief', iat: issued, exp });
  t.equal(await refusal(server.verifyAccessToken(shortLived)), 'accepted');
  t.equal(await refusal(server.verifyAccessToken(shortLived)), 'accepted', 'again, remembered');
  while (Date.now() <= exp * 1000) await new Promise((resolve) => setTimeout(resolve, 100));
  t.match(await refusal(server.verifyAccessToken(shortLived)), /it has expired/, 'past its exp it is refused');
});

t.test('the gate: no token is told where to get one; a token without the scopes is 403', async (t) => {
  const idp = await startOpenIdProvider(t);
  const open = resourceServer(idp.issuer).gate();
  const none = await open({ headers: {} } as IncomingMessage);
  t.ok('challenge' in none);
  const challenge = (none as { challenge: Response }).challenge;
  t.equal(challenge.status, 401);
  t.equal(
    challenge.headers.get('www-authenticate'),
    'Bearer resource_metadata="https://mcp.example.test/.well-known/oauth-protected-resource/mcp"',
    'no scopes configured: none named',
  );
  const scoped = resourceServer(idp.issuer, { scopes: ['mcp', 'admin'] }).gate();
  const token = await idp.token('alice-agent', { scope: 'mcp', resource: AUDIENCE });
  const verdict = await scoped({ headers: { authorization: `Bearer ${token}` } } as IncomingMessage);
  const refused = (verdict as { challenge: Response }).challenge;
  t.equal(refused.status, 403);
  t.match(((await refused.json()) as { error_description: string }).error_description, 'lacks the scope "admin"');
});

t.test(
  'an issuer that misbehaves: the host says what it could not get, as its own failure (500), and retries',
  async (t) => {
    const { issuer, routes, json, metadata } = await misbehavingIssuer(t);
    const server = resourceServer(issuer);
    const token = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln';

    t.match(
      await refusal(server.verifyAccessToken(token)),
      /^server_error: .*could not read the metadata of .*serves no metadata document/,
    );
    metadata({});
    t.match(
      await refusal(server.verifyAccessToken(token)),
      /^server_error: .*its metadata names no jwks_uri/,
      'tried again',
    );
    metadata({ jwks_uri: `${issuer}/jwks` });
    routes['/jwks'] = json({ error: 'down' }, 500);
    t.match(
      await refusal(server.verifyAccessToken(token)),
      /^server_error: mcp-host could not fetch the signing keys of .* from .*\/jwks \(Expected 200 OK/,
    );
    routes['/jwks'] = json({ keys: 'not a list' });
    t.match(await refusal(server.verifyAccessToken(token)), /^server_error: .*could not fetch the signing keys/);

    metadata({ jwks_uri: `${issuer}/jwks`, issuer: 'https://someone.else' });
    const misnamed = resourceServer(issuer);
    t.match(await refusal(misnamed.verifyAccessToken(token)), /^server_error: .*could not read the metadata of/);

    metadata({ jwks_uri: `${issuer}/jwks` });
    const introspecting = resourceServer(issuer, { introspection: { clientId: 'mcp-host', clientSecret: 's3cret' } });
    t.match(
      await refusal(introspecting.verifyAccessToken('opaque')),
      /its metadata names no introspection_endpoint \(set http\.oauth\.introspection\.endpoint\)/,
    );
  },
);

t.test('introspection: each answer that is not an active token for this resource is refused, naming why', async (t) => {
  const { issuer, routes, json, metadata } = await misbehavingIssuer(t);
  metadata({ jwks_uri: `${issuer}/jwks`, introspection_endpoint: `${issuer}/introspect` });
  let asked: { authorization?: string; body: string } | undefined;
  const answer = (body: unknown, status = 200) => {
    routes['/introspect'] = (req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        asked = { authorization: req.headers.authorization, body: text };
        json(body, status)(req, res);
      });
    };
  };
  const server = resourceServer(issuer, { introspection: { clientId: 'mcp host', clientSecret: 's3cret:x' } });
  const exp = Math.floor(Date.now() / 1000) + 300;

  answer({ active: true, iss: issuer, aud: [AUDIENCE], sub: 'dave', scope: 'mcp', exp });
  const accepted = await server.verifyAccessToken('opaque-1');
  t.match(identityOf({ http: { authInfo: accepted } }), { kind: 'user', name: 'dave', scopes: ['mcp'] });
  t.equal(
    asked?.authorization,
    `Basic ${Buffer.from('mcp%20host:s3cret%3Ax').toString('base64')}`,
    'RFC 6749 client_secret_basic',
  );
  t.equal(asked?.body, 'token=opaque-1&token_type_hint=access_token');

  answer({ active: false });
  t.match(await refusal(server.verifyAccessToken('opaque-2')), /^invalid_token: .*says it is not active/);
  answer({ active: true, iss: 'https://someone.else', aud: AUDIENCE, exp });
  t.match(await refusal(server.verifyAccessToken('opaque-3')), /^invalid_token: .*it was not issued by http/);
  answer({ active: true, aud: 'https://other.example/mcp', exp });
  t.match(await refusal(server.verifyAccessToken('opaque-4')), /^invalid_token: .*not issued for this resource/);
  answer({ active: true, iss: issuer, sub: 'dave', scope: 'mcp', exp });
  t.match(
    await refusal(server.verifyAccessToken('opaque-4b')),
    /^invalid_token: .*not issued for this resource/,
    'an answer naming no audience: a token that may be for any resource is not one for this',
  );
  answer({ active: true, aud: AUDIENCE });
  t.match(await refusal(server.verifyAccessToken('opaque-5')), /^invalid_token: .*names no expiry/);
  answer({ error: 'invalid_client' }, 401);
  t.match(
    await refusal(server.verifyAccessToken('opaque-6')),
    /^server_error: mcp-host could not introspect the access token at .*: it answered 401 without an introspection result \(are http\.oauth\.introspection\.clientId and its secret right\?\)/,
  );
  routes['/introspect'] = (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>');
  t.match(await refusal(server.verifyAccessToken('opaque-7')), /it answered 200 without an introspection result/);

  const unreachable = resourceServer(issuer, {
    introspection: { clientId: 'mcp-host', clientSecret: 's3cret', endpoint: 'http://127.0.0.1:1/introspect' },
  });
  t.match(
    await refusal(unreachable.verifyAccessToken('opaque-8')),
    /^server_error: mcp-host could not introspect the access token at http:\/\/127\.0\.0\.1:1\/introspect: fetch failed; retry later/,
  );
});

t.test('the metadata document answers GET and HEAD, a CORS preflight, and 405 otherwise', async (t) => {
  const document = { resource: AUDIENCE, authorization_servers: ['https://id.example.test'] };
  t.equal(protectedResourceMetadataResponse('HEAD', document).status, 200);
  const preflight = protectedResourceMetadataResponse('OPTIONS', document);
  t.equal(preflight.status, 204);
  t.equal(preflight.headers.get('access-control-allow-methods'), 'GET');
  const refused = protectedResourceMetadataResponse('DELETE', document);
  t.equal(refused.status, 405);
  t.match(await refused.json(), { message: '/.well-known/oauth-protected-resource answers GET only' });
});
