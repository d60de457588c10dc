// The host as an OAuth resource server (host/serve/oauth-resource-server.ts)
// in-process, against a real OpenID provider on loopback and, for metadata
// no real provider serves, a metadata document served here: the gate's
// answers (no token, a static token, a good token, a missing scope, a
// provider out of reach), the identity a token makes, and each way the
// issuer's metadata can fail, with its message. test/oauth.test.ts and
// test/oauth-verification.test.ts send the same to a host; this file is
// quick enough for `npm run mutation`.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import type { JWTPayload } from 'jose';
import { OAuthError, OAuthErrorCode, type AuthInfo } from '@modelcontextprotocol/server';
import type { Logger } from '../../host/log.js';
import { OAuthResourceServer, type BearerGate, type GateVerdict } from '../../host/serve/oauth-resource-server.js';
import type { OAuthSettings } from '../../host/serve/oauth-settings.js';
import type { Identity } from '../../host/vocabulary/identity.js';
import { until } from '../helpers/host.js';
import { startOpenIdProvider } from '../helpers/openid-provider.js';

const AUDIENCE = 'https://host.example/mcp';
const METADATA_URL = 'https://host.example/.well-known/oauth-protected-resource/mcp';
const SKEW = 30;

/** A logger keeping what it is told, by level. */
function recordingLogger(): { logger: Logger; warned: string[]; debugged: string[] } {
  const warned: string[] = [];
  const debugged: string[] = [];
  const logger = {
    warn: (message: string) => warned.push(message),
    debug: (message: string) => debugged.push(message),
  } as unknown as Logger;
  return { logger, warned, debugged };
}

function settingsOf(issuer: string, more: Partial<OAuthSettings> = {}): OAuthSettings {
  return { issuer, audience: AUDIENCE, scopes: ['mcp'], algorithms: ['RS256'], clockSkewSeconds: SKEW, ...more };
}

const request = (authorization?: string) => ({ headers: { authorization } }) as IncomingMessage;

/** The challenge of a verdict: its status, body and WWW-Authenticate. */
async function challengeOf(t: Test, verdict: GateVerdict) {
  if (!('challenge' in verdict)) {
    t.fail(`accepted as ${JSON.stringify(verdict.authInfo.clientId)}`);
    return { status: 0, body: {}, header: null };
  }
  const { challenge } = verdict;
  return {
    status: challenge.status,
    body: (await challenge.json()) as Record<string, unknown>,
    header: challenge.headers.get('www-authenticate'),
  };
}

function authInfoOf(t: Test, verdict: GateVerdict): AuthInfo {
  if (!('authInfo' in verdict)) {
    t.fail('challenged');
    throw new Error('challenged');
  }
  return verdict.authInfo;
}

/** The OAuthError `token` is refused with by `server`. */
async function refusal(server: OAuthResourceServer, token: string): Promise<OAuthError> {
  const error = await server.verifyAccessToken(token).then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(error instanceof OAuthError)) throw new Error(`not refused with an OAuthError: ${String(error)}`);
  return error;
}

interface MetadataServer {
  issuer: string;
  /** The metadata document answered at /.well-known/oauth-authorization-server (undefined: 404). */
  document: Record<string, unknown> | undefined;
  /** The Accept headers of the metadata requests. */
  accepts: (string | undefined)[];
}

/** An authorization server's metadata endpoint answering `document` (the issuer and its endpoints filled in). */
async function metadataServer(t: Test, extra: Record<string, unknown> = {}): Promise<MetadataServer> {
  const served: MetadataServer = { issuer: '', document: undefined, accepts: [] };
  const server = createServer((req, res) => {
    served.accepts.push(req.headers.accept);
    if (req.url !== '/.well-known/oauth-authorization-server' || !served.document) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(served.document));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  served.issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  served.document = {
    issuer: served.issuer,
    authorization_endpoint: `${served.issuer}/authorize`,
    token_endpoint: `${served.issuer}/token`,
    response_types_supported: ['code'],
    ...extra,
  };
  return served;
}

t.test('the protected resource metadata, and where it is', async (t) => {
  const { logger } = recordingLogger();
  const server = new OAuthResourceServer(settingsOf('https://issuer.example'), logger);
  t.equal(server.metadataUrl, METADATA_URL);
  t.same(server.metadata, {
    resource: AUDIENCE,
    authorization_servers: ['https://issuer.example'],
    scopes_supported: ['mcp'],
    bearer_methods_supported: ['header'],
  });
  const unscoped = new OAuthResourceServer(settingsOf('https://issuer.example', { scopes: [] }), logger);
  t.notOk('scopes_supported' in unscoped.metadata, 'no scopes required, none listed');
});

t.test('a request without a token: where to get one, and no error code', async (t) => {
  const { logger } = recordingLogger();
  for (const [scopes, scope] of [
    [['mcp', 'notes'], ', scope="mcp notes"'],
    [[], ''],
  ] as const) {
    const server = new OAuthResourceServer(settingsOf('https://issuer.example', { scopes: [...scopes] }), logger);
    let asked = 0;
    const staticGate: BearerGate = async () => (asked++, { challenge: new Response() });
    for (const authorization of [undefined, '']) {
      t.same(await challengeOf(t, await server.gate(staticGate)(request(authorization))), {
        status: 401,
        body: {
          error: 'unauthorized',
          error_description: `this mcp-host requires an OAuth access token from https://issuer.example for ${AUDIENCE}; its metadata is at ${METADATA_URL}`,
        },
        header: `Bearer resource_metadata="${METADATA_URL}"${scope}`,
      });
    }
    t.equal(asked, 0, 'the static gate is not asked without a token');
  }
});

t.test('with an OpenID provider', async (t) => {
  const idp = await startOpenIdProvider(t);
  const { logger, warned, debugged } = recordingLogger();
  const server = new OAuthResourceServer(settingsOf(idp.issuer, { scopes: ['mcp', 'notes'] }), logger);
  const gate = server.gate();
  const now = Math.floor(Date.now() / 1000);

  await t.test('a good token: the identity it names, and its AuthInfo', async (t) => {
    const token = await idp.accessToken(AUDIENCE, { sub: 'alice', client_id: 'agent', scope: 'notes  mcp extra' });
    const authInfo = authInfoOf(t, await gate(request(`Bearer ${token}`)));
    const exp = (authInfo.extra!.identity as Identity).claims.exp as number;
    t.ok(exp >= now + 300, 'the token’s exp');
    t.same(authInfo, {
      token,
      clientId: 'user:alice',
      scopes: ['notes', 'mcp', 'extra'],
      expiresAt: exp + SKEW,
      resource: new URL(AUDIENCE),
      resourceMetadataUrl: METADATA_URL,
      extra: {
        identity: {
          kind: 'user',
          name: 'alice',
          claims: {
            iss: idp.issuer,
            aud: AUDIENCE,
            iat: exp - 300,
            exp,
            sub: 'alice',
            client_id: 'agent',
            scope: 'notes  mcp extra',
          },
          scopes: ['notes', 'mcp', 'extra'],
          token,
        },
      },
    });
    t.same(debugged, [`the keys of ${idp.issuer} are at ${idp.jwksUri}`], 'the keys found, once');
    await gate(request(`Bearer ${token}`));
    t.equal(debugged.length, 1, 'the metadata is read once');
  });

  await t.test('who a token names: its subject, else its client', async (t) => {
    const identity = async (claims: Record<string, unknown>) =>
      (await server.verifyAccessToken(await idp.accessToken(AUDIENCE, claims))).extra!.identity as Identity;
    t.match(await identity({ sub: 'alice' }), { kind: 'user', name: 'alice' });
    t.match(await identity({ client_id: 'ci' }), { kind: 'client', name: 'ci' });
    t.match(await identity({ sub: '', client_id: 'ci' }), { kind: 'client', name: 'ci' }, 'an empty sub is none');
    t.match(
      await identity({ sub: 7 as unknown as string, client_id: 'ci' }),
      { kind: 'client', name: 'ci' },
      'a sub not a string is none',
    );
    t.equal(
      (await server.verifyAccessToken(await idp.accessToken(AUDIENCE, { client_id: 'ci' }))).clientId,
      'client:ci',
    );
    for (const claims of [{}, { sub: '', client_id: '' }, { sub: 1, client_id: ['ci'] }]) {
      const error = await refusal(server, await idp.accessToken(AUDIENCE, claims as JWTPayload));
      t.equal(error.code, OAuthErrorCode.InvalidToken, JSON.stringify(claims));
      t.equal(
        error.message,
        'the access token was refused: it names no subject (neither a "sub" nor a "client_id" claim), so mcp-host cannot tell whose it is; get a token that names its subject ("sub", which RFC 9068 requires of an access token)',
      );
    }
  });

  await t.test('its scopes: scope, else scp as a list or a string', async (t) => {
    const scopes = async (claims: Record<string, unknown>) =>
      (await server.verifyAccessToken(await idp.accessToken(AUDIENCE, { sub: 'alice', ...claims }))).scopes;
    t.same(await scopes({ scope: ' a  b ' }), ['a', 'b']);
    t.same(await scopes({ scope: 'a', scp: ['b'] }), ['a'], 'scope first');
    t.same(await scopes({ scp: ['a', 1, 'b'] }), ['a', 'b'], 'only the strings of a list');
    t.same(await scopes({ scp: ' a  b ' }), ['a', 'b']);
    t.same(await scopes({ scp: 3 }), []);
    t.same(await scopes({}), []);
  });

  await t.test('a missing scope: 403, naming it and the scopes to ask for', async (t) => {
    const token = await idp.accessToken(AUDIENCE, { sub: 'alice', scope: 'mcp' });
    const message = `the access token lacks the scope "notes" this mcp-host requires (http.oauth.scopes); get a token with scope "mcp notes"`;
    t.same(await challengeOf(t, await gate(request(`Bearer ${token}`))), {
      status: 403,
      body: { error: 'insufficient_scope', error_description: message },
      header: `Bearer error="insufficient_scope", error_description="${message.replaceAll('"', '\\"')}", scope="mcp notes", resource_metadata="${METADATA_URL}"`,
    });
    const none = await idp.accessToken(AUDIENCE, { sub: 'alice' });
    t.match(
      (await challengeOf(t, await gate(request(`Bearer ${none}`)))).body,
      { error_description: `the access token lacks the scope "mcp", "notes" this mcp-host requires` },
      'each missing scope named',
    );
    t.equal(warned.length, 0, 'a client’s error is not the host’s to log');
  });

  await t.test('a refused token: 401 with the verifier’s reason', async (t) => {
    const token = await idp.accessToken(AUDIENCE, { sub: 'alice', exp: now - 100 });
    const { status, body } = await challengeOf(t, await gate(request(`Bearer ${token}`)));
    t.equal(status, 401);
    t.same(body, {
      error: 'invalid_token',
      error_description:
        'the access token was refused: it has expired (its "exp" is past); get a new token from the authorization server',
    });
  });

  await t.test('a static gate: its token accepted as it always was, any other checked as OAuth', async (t) => {
    const named: AuthInfo = { token: 's', clientId: 'token:ci', scopes: [], expiresAt: 1 };
    const staticGate: BearerGate = async (req) =>
      req.headers.authorization === 'Bearer static' ? { authInfo: named } : { challenge: new Response() };
    const both = server.gate(staticGate);
    t.equal(authInfoOf(t, await both(request('Bearer static'))), named);
    const token = await idp.accessToken(AUDIENCE, { sub: 'alice', scope: 'mcp notes' });
    t.equal(authInfoOf(t, await both(request(`Bearer ${token}`))).clientId, 'user:alice');
    t.equal((await challengeOf(t, await both(request('Bearer other')))).status, 401);
  });

  await t.test('an opaque token without introspection: refused, saying so', async (t) => {
    for (const token of ['opaque', 'a.b', 'a.b.c.d', 'a b.c.d', 'a.b.c!', '!a.b.c']) {
      const error = await refusal(server, token);
      t.equal(error.code, OAuthErrorCode.InvalidToken, token);
      t.equal(
        error.message,
        'the access token was refused: it is not a JWT, and this mcp-host introspects no opaque tokens (http.oauth.introspection is not set); send a JWT access token, or ask the operator to configure introspection',
        token,
      );
    }
    for (const token of ['a.b.c', 'a-_1.b.', 'a..c']) {
      t.match(
        (await refusal(server, token)).message,
        'it is not a well-formed signed JWT',
        `${token} is read as a JWT`,
      );
    }
  });

  await t.test('an opaque token introspected at the endpoint the metadata names', async (t) => {
    const introspecting = new OAuthResourceServer(
      settingsOf(idp.issuer, {
        introspection: { clientId: 'mcp-host', clientSecret: 'mcp-host-secret-0123456789abcdef' },
      }),
      logger,
    );
    const token = await idp.token('opaque', { scope: 'mcp', resource: AUDIENCE });
    t.notOk(token.includes('.'), 'an opaque token');
    const authInfo = await introspecting.verifyAccessToken(token);
    t.match(authInfo, { clientId: 'client:opaque', scopes: ['mcp'], token });
  });

  await t.test('an introspection endpoint configured is used instead of the metadata’s', async (t) => {
    const endpoint = 'http://127.0.0.1:1/introspect';
    const configured = new OAuthResourceServer(
      settingsOf(idp.issuer, { introspection: { clientId: 'mcp-host', clientSecret: 'secret', endpoint } }),
      logger,
    );
    const error = await refusal(configured, 'opaque');
    t.equal(error.code, OAuthErrorCode.ServerError);
    t.match(error.message, `mcp-host could not introspect the access token at ${endpoint}: fetch failed`);
  });
});

t.test('an issuer whose metadata cannot be had: server_error naming it, logged, tried again', async (t) => {
  const served = await metadataServer(t);
  const { logger, warned, debugged } = recordingLogger();
  const server = new OAuthResourceServer(settingsOf(served.issuer), logger);
  const failed = (why: string) =>
    `mcp-host could not read the metadata of ${served.issuer} (RFC 8414 / OpenID discovery): ${why}; retry later (check http.oauth.issuer)`;
  const refusedWith = async (why: string) => {
    const error = await refusal(server, 'a.b.c');
    t.equal(error.code, OAuthErrorCode.ServerError, why);
    t.equal(error.message, failed(why));
  };

  await refusedWith('its metadata names no jwks_uri');
  t.same(served.accepts, ['application/json'], 'asked for JSON');
  served.document = { ...served.document, jwks_uri: 42 };
  await refusedWith('its metadata names no jwks_uri');
  const document = served.document;
  served.document = undefined;
  await refusedWith('it serves no metadata document');

  // Through the gate: a 500, and the reason logged (the host's failure, not the client's).
  const { status, body } = await challengeOf(t, await server.gate()(request('Bearer a.b.c')));
  t.equal(status, 500);
  t.same(body, { error: 'server_error', error_description: failed('it serves no metadata document') });
  t.same(warned, [failed('it serves no metadata document')]);

  // Not kept: the next token reads the metadata again, and a provider back in order is used.
  served.document = { ...document, jwks_uri: `${served.issuer}/jwks` };
  const signed = `${Buffer.from('{"alg":"RS256"}').toString('base64url')}.e30.c2ln`;
  t.match((await refusal(server, signed)).message, `could not fetch the signing keys of ${served.issuer}`);
  t.same(debugged, [`the keys of ${served.issuer} are at ${served.issuer}/jwks`]);
});

t.test('introspection asked for, but the metadata names no endpoint', async (t) => {
  const served = await metadataServer(t, { jwks_uri: 'http://127.0.0.1:1/jwks' });
  const server = new OAuthResourceServer(
    settingsOf(served.issuer, { introspection: { clientId: 'mcp-host', clientSecret: 'secret' } }),
    recordingLogger().logger,
  );
  const error = await refusal(server, 'opaque');
  t.equal(error.code, OAuthErrorCode.ServerError);
  t.equal(
    error.message,
    `mcp-host could not read the metadata of ${served.issuer} (RFC 8414 / OpenID discovery): its metadata names no introspection_endpoint (set http.oauth.introspection.endpoint); retry later (check http.oauth.issuer)`,
  );
});

t.test('prefetch: the metadata read at start, a failure logged', async (t) => {
  const closed = 'http://127.0.0.1:1';
  const { logger, warned } = recordingLogger();
  new OAuthResourceServer(settingsOf(closed), logger).prefetch();
  await until('the failure to be logged', () => warned.length > 0);
  t.same(warned, [
    `mcp-host could not read the metadata of ${closed} (RFC 8414 / OpenID discovery): fetch failed; retry later (check http.oauth.issuer) (at start; tokens will try again)`,
  ]);

  const served = await metadataServer(t, { jwks_uri: `http://127.0.0.1:1/jwks` });
  const recorded = recordingLogger();
  new OAuthResourceServer(settingsOf(served.issuer), recorded.logger).prefetch();
  await until('the metadata to be read', () => recorded.debugged.length > 0);
  t.same(recorded.debugged, [`the keys of ${served.issuer} are at http://127.0.0.1:1/jwks`]);
  t.same(recorded.warned, []);
});
