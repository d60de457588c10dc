// The host as an OAuth resource server (http.oauth; DESIGN.md, "Identity and
// access"), against a real OpenID provider on loopback (oidc-provider): its
// JWT access tokens verified against the provider's JWKS, opaque ones
// introspected, the RFC 9728 metadata document, the 401 and 403 challenges,
// static tokens beside OAuth, the identity reaching the handlers of both
// eras, sessions bound to it, and the token never reaching an upstream.
import t, { type Test } from 'tap';
import { generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import {
  Client,
  StreamableHTTPClientTransport,
  discoverOAuthProtectedResourceMetadata,
} from '@modelcontextprotocol/client';
import { assertLogged, listOnSession, postInitialize, startHttpHost, until, type HttpHost } from './helpers/host.js';
import { EVENT_MS } from './helpers/timing.js';
import { validateConfig } from '../host/config/validate.js';
import { formatProblem, problemsOf } from '../host/errors.js';
import { oauthSettingsOf } from '../host/serve/oauth-settings.js';
import { freePort } from './helpers/engines.js';
import { makeWorkspace } from './helpers/packages.js';
import { writeZoo } from './helpers/zoo.js';
import { startOpenIdProvider, type OpenIdProvider } from './helpers/openid-provider.js';
import { modernClient } from './helpers/cluster.js';
import { sayingHello, startRecordingUpstream, type RecordingUpstream } from './helpers/recording-upstream.js';

const FILE = '/srv/mcp-host.config.js';
const STATIC_TOKEN = 'static-ci-token-0123456789';
const INTROSPECTION_SECRET = 'mcp-host-secret-0123456789abcdef';

interface Setup {
  idp: OpenIdProvider;
  host: HttpHost;
  audience: string;
  base: string;
  upstream: RecordingUpstream;
}

/** The provider, an upstream, and a host on a port chosen first (the audience is its URL) trusting the provider. */
async function setUp(t: Test): Promise<Setup> {
  const idp = await startOpenIdProvider(t);
  const upstream = await startRecordingUpstream(t, sayingHello);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const audience = `${base}/mcp`;
  const ws = makeWorkspace(t);
  writeZoo(ws);
  const config = ws.writeConfig({
    reload: { watch: false },
    http: {
      port,
      auth: { tokens: [STATIC_TOKEN] },
      oauth: {
        issuer: idp.issuer,
        audience,
        scopes: ['mcp'],
        introspection: { clientId: 'mcp-host', clientSecretEnv: 'IDP_INTROSPECTION_SECRET' },
      },
    },
    plugins: [{ package: '@zoo/good' }, { url: upstream.url, prefix: 'up' }],
  });
  const host = await startHttpHost(t, config, {
    args: [],
    env: {
      MCP_HOST_HTTP_TOKENS: undefined,
      MCP_HOST_LOG_LEVEL: 'debug',
      IDP_INTROSPECTION_SECRET: INTROSPECTION_SECRET,
    },
  });
  return { idp, host, audience, base, upstream };
}

/** A raw 2025-era initialize, with `token` as its bearer token when given. */
function post(url: string, token?: string): Promise<Response> {
  return postInitialize(url, token === undefined ? {} : { token });
}

async function connect(t: Test, url: string, token: string, client = new Client({ name: 'oauth', version: '1.0.0' })) {
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  t.teardown(() => client.close());
  return client;
}

/** A token as the provider would sign it, with some claims changed. */
async function signed(idp: OpenIdProvider, audience: string, change: JWTPayload): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return idp.sign({
    iss: idp.issuer,
    aud: audience,
    sub: 'alice-agent',
    client_id: 'alice-agent',
    scope: 'mcp',
    iat: now,
    exp: now + 300,
    ...change,
  });
}

// One provider, upstream and host for the tests below (the key rotation last: it changes the provider's key).
const { idp, host, audience, base, upstream } = await setUp(t);

t.test(
  'a valid access token serves both eras; the identity reaches the handlers; the token reaches no upstream',
  async (t) => {
    const token = await idp.token('alice-agent', { scope: 'mcp notes', resource: audience });

    const aliceLine =
      /"identity":\{"kind":"user","name":"alice-agent","sub":"alice-agent","client_id":"alice-agent"\}/g;
    const handledForAlice = () => host.log().match(aliceLine)?.length ?? 0;
    const before = handledForAlice();
    const legacy = await connect(t, host.url, token);
    t.same((await legacy.callTool({ name: 'up.hello', arguments: {} })).content, [{ type: 'text', text: 'hello' }]);
    t.ok(
      (await legacy.listTools()).tools.some((tool) => tool.name === 'good.echo'),
      'a legacy session lists the tools',
    );
    await until('the legacy call to be logged for alice', () => handledForAlice() === before + 1);
    t.pass("the legacy session's handler saw alice");

    const modern = await connect(t, host.url, token, modernClient());
    t.same((await modern.callTool({ name: 'up.hello', arguments: {} })).content, [{ type: 'text', text: 'hello' }]);
    await until('the 2026-07-28 call to be logged for alice', () => handledForAlice() === before + 2);
    t.pass('the 2026-07-28 handler saw alice');

    t.notMatch(host.log(), token, "the host's log never shows the token");
    t.ok(upstream.seen.length > 0, `the upstream saw ${upstream.seen.length} requests`);
    t.notOk(
      upstream.seen.some((headers) => JSON.stringify(headers).includes(token) || headers.authorization !== undefined),
      "none carried the client's token, nor any Authorization",
    );
  },
);

t.test(
  'the protected resource metadata: RFC 9728 shape, at both well-known paths, read by the SDK client',
  async (t) => {
    const expected = {
      resource: audience,
      authorization_servers: [idp.issuer],
      scopes_supported: ['mcp'],
      bearer_methods_supported: ['header'],
    };
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const answer = await fetch(`${base}${path}`);
      t.equal(answer.status, 200, path);
      t.match(answer.headers.get('content-type'), /^application\/json/);
      t.same(await answer.json(), expected, `${path} names the issuer, the resource and the scopes`);
    }
    t.same(await discoverOAuthProtectedResourceMetadata(host.url), expected, "the SDK client's discovery reads it");
    const refused = await fetch(`${base}/.well-known/oauth-protected-resource`, { method: 'POST' });
    t.equal(refused.status, 405);
    t.equal(refused.headers.get('allow'), 'GET');

    const none = await post(host.url);
    t.equal(none.status, 401, 'no token: 401');
    t.equal(
      none.headers.get('www-authenticate'),
      `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp", scope="mcp"`,
      'no token: the challenge names where the metadata is, and no error code (RFC 6750 §3.1)',
    );
    t.match(((await none.json()) as { error_description: string }).error_description, idp.issuer);
  },
);

t.test('every bad token is 401 invalid_token with the metadata pointer and what was wrong', async (t) => {
  const now = Math.floor(Date.now() / 1000);
  const otherKey = await generateKeyPair('RS256');
  const other = (kid: string) =>
    new SignJWT({ sub: 'mallory', scope: 'mcp' })
      .setProtectedHeader({ alg: 'RS256', kid })
      .setIssuer(idp.issuer)
      .setAudience(audience)
      .setExpirationTime('5m')
      .sign(otherKey.privateKey);
  const unsigned = [
    Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url'),
    Buffer.from(
      JSON.stringify({ iss: idp.issuer, aud: audience, sub: 'mallory', scope: 'mcp', exp: now + 300 }),
    ).toString('base64url'),
    '',
  ].join('.');
  const cases: [string, string, RegExp][] = [
    [
      'wrong audience',
      await signed(idp, audience, { aud: 'https://elsewhere.example/mcp' }),
      /not issued for this resource/,
    ],
    [
      'a token for another resource, from the provider',
      await idp.token('alice-agent', { scope: 'mcp', resource: 'https://other.example/mcp' }),
      /not issued for this resource .* get a token for the resource/,
    ],
    ['wrong issuer', await signed(idp, audience, { iss: 'https://evil.example' }), /not issued by http/],
    ['expired', await signed(idp, audience, { exp: now - 600, iat: now - 900 }), /it has expired/],
    ['not valid yet', await signed(idp, audience, { nbf: now + 600 }), /not valid yet/],
    ['unsigned (alg: none)', unsigned, /algorithm this mcp-host does not accept/],
    ['signed by another key, under the current key id', await other(idp.currentKid()), /signature does not verify/],
    ['signed by another key, under its own key id', await other('mallory-key'), /signature does not verify/],
    ['not a JWT, and not known to the introspection endpoint', 'an-opaque-token-nobody-issued', /not active/],
    ['a bearer token that is neither', 'x.y', /not active/],
  ];
  for (const [what, token, description] of cases) {
    const answer = await post(host.url, token);
    t.equal(answer.status, 401, `${what}: 401`);
    const challenge = answer.headers.get('www-authenticate') ?? '';
    t.match(challenge, /^Bearer error="invalid_token"/, `${what}: invalid_token`);
    t.match(challenge, `resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`, `${what}: the pointer`);
    const body = (await answer.json()) as { error: string; error_description: string };
    t.equal(body.error, 'invalid_token');
    t.match(body.error_description, description, `${what}: ${body.error_description}`);
  }
  t.notMatch(host.log(), /mallory/, 'no refused token reached a handler');
});

t.test('a token without a required scope is 403 insufficient_scope naming the scope', async (t) => {
  const answer = await post(host.url, await idp.token('bob-agent', { scope: 'notes', resource: audience }));
  t.equal(answer.status, 403);
  t.match(answer.headers.get('www-authenticate'), /^Bearer error="insufficient_scope"/);
  t.match(answer.headers.get('www-authenticate'), /scope="mcp"/);
  const body = (await answer.json()) as { error: string; error_description: string };
  t.equal(body.error, 'insufficient_scope');
  t.match(body.error_description, 'the access token lacks the scope "mcp" this mcp-host requires (http.oauth.scopes)');
});

t.test(
  'static tokens and introspected opaque tokens work beside JWTs; a session answers only its own identity',
  async (t) => {
    const staticClient = await connect(t, host.url, STATIC_TOKEN);
    t.ok((await staticClient.listTools()).tools.length > 0, 'a static token still opens a session');

    const opaque = await idp.token('opaque', { scope: 'mcp', resource: audience });
    t.notMatch(opaque, /\./, 'the provider issued an opaque token');
    const opaqueClient = await connect(t, host.url, opaque);
    t.same((await opaqueClient.callTool({ name: 'up.hello', arguments: {} })).content, [
      { type: 'text', text: 'hello' },
    ]);
    await assertLogged(t, host.log, /"identity":\{"kind":"client","name":"opaque","client_id":"opaque"\}/);

    // Alice's session, then a request on it with another identity's token (and with a second token of Alice's).
    const alice = await idp.token('alice-agent', { scope: 'mcp', resource: audience });
    const opened = await post(host.url, alice);
    t.equal(opened.status, 200);
    const session = opened.headers.get('mcp-session-id')!;
    const list = (token: string) => listOnSession(host.url, session, token);
    t.equal((await list(opaque)).status, 404, "another identity's token: the session does not exist for it");
    t.equal((await list(STATIC_TOKEN)).status, 404, 'nor for a static token');
    const again = await idp.token('alice-agent', { scope: 'mcp', resource: audience });
    t.equal((await list(again)).status, 200, 'another token of the same subject: the session is its own');
  },
);

t.test('an opaque token whose introspection names no audience is refused: it may be for any resource', async (t) => {
  // Asked for no resource, the provider issues an opaque token its introspection gives no "aud".
  const unbound = await idp.token('opaque', { scope: 'mcp' });
  t.notMatch(unbound, /\./, 'an opaque token');
  const answer = await post(host.url, unbound);
  t.equal(answer.status, 401);
  t.match(answer.headers.get('www-authenticate'), /^Bearer error="invalid_token"/);
  t.match(
    ((await answer.json()) as { error_description: string }).error_description,
    `the access token was refused: it was not issued for this resource (its "aud" is not ${audience}); get a token for the resource ${audience}`,
  );
});

t.test('http.oauth is validated: each mistake names its key and the fix', async (t) => {
  const refusals = (oauth: unknown, plugins: unknown[] = []): string => {
    try {
      validateConfig({ http: { port: 0, oauth }, plugins }, FILE);
      return '';
    } catch (error) {
      return problemsOf(error, 'config').map(formatProblem).join('\n');
    }
  };
  const issuer = 'https://id.example.com';
  const audience = 'https://mcp.example.com/mcp';
  t.equal(refusals({ issuer, audience, scopes: ['mcp'], algorithms: ['ES256'], clockSkewSeconds: 5 }), '');
  t.equal(refusals({ issuer: 'http://127.0.0.1:8080', audience }), '', 'http:// for an issuer on this machine');
  t.equal(refusals({ issuer: 'http://localhost:8080/realms/mcp', audience }), '', 'on localhost too');
  t.match(refusals({ issuer: 'id.example.com', audience }), /http\.oauth\.issuer.*expected an https:\/\/ URL/s);
  t.match(refusals({ audience }), /http\.oauth\.issuer.*expected an https:\/\/ URL/s);
  t.match(
    refusals({ issuer: 'http://id.example.com', audience }),
    /http\.oauth\.issuer.*http:\/\/ only for localhost/s,
  );
  t.match(refusals({ issuer: `${issuer}?tenant=1`, audience }), /http\.oauth\.issuer.*without query or fragment/s);
  t.match(
    refusals({ issuer, audience: 'mcp' }),
    /http\.oauth\.audience.*expected an http:\/\/ or https:\/\/ URL.*e\.g\. audience:/s,
  );
  t.match(
    refusals({ issuer, audience, algorithms: ['none'] }),
    /http\.oauth\.algorithms.*"none" and HS\* are never accepted/s,
  );
  t.match(refusals({ issuer, audience, algorithms: ['HS256'] }), /http\.oauth\.algorithms/);
  t.match(refusals({ issuer, audience, algorithms: [] }), /http\.oauth\.algorithms/);
  t.match(refusals({ issuer, audience, scopes: ['a b'] }), /http\.oauth\.scopes.*without spaces/s);
  t.match(refusals({ issuer, audience, clockSkewSeconds: 3600 }), /http\.oauth\.clockSkewSeconds.*from 0 to 300/s);
  t.match(
    refusals({ issuer, audience, introspection: { clientId: 'mcp-host' } }),
    /http\.oauth\.introspection.*names no client secret.*give exactly one/s,
  );
  t.match(
    refusals({ issuer, audience, introspection: { clientId: 'h', clientSecretEnv: 'A', clientSecretFile: 'b' } }),
    /names both clientSecretEnv and clientSecretFile/,
  );
  t.match(
    refusals({ issuer, audience, introspection: { clientSecretEnv: 'A' } }),
    /http\.oauth\.introspection\.clientId/,
  );
  t.match(refusals({ issuer, audience, introspection: 'yes' }), /http\.oauth\.introspection.*expected an object/s);
  t.match(refusals({ issuer, audience, issuers: [] }), /http\.oauth\.issuers/);
  const forwarding = refusals({ issuer, audience }, [
    { url: 'http://127.0.0.1:4000/mcp', prefix: 'up', forwardHeaders: ['authorization'] },
  ]);
  t.match(
    forwarding,
    /with http.auth or http.oauth that header carries the client.s token for mcp-host itself/,
    "with http.oauth, forwarding a client's Authorization is refused at load",
  );
  t.match(refusals('https://id.example.com'), /http\.oauth.*expected an object.*e\.g\. oauth: \{ issuer/s);
});

t.test('the introspection secret is read at start: an empty or unreadable one is refused, naming where', async (t) => {
  const ws = makeWorkspace(t);
  const config = { issuer: 'https://id.example.com', audience: 'https://mcp.example.com/mcp' };
  const read = (introspection: Record<string, string>) => {
    try {
      return oauthSettingsOf({ ...config, introspection: { clientId: 'mcp-host', ...introspection } }, 'WHERE', ws.dir);
    } catch (error) {
      return (error as Error).message;
    }
  };
  ws.writeFile('secret', 'file-secret\n');
  ws.writeFile('empty', '\n');
  process.env.OAUTH_TEST_SECRET = 'env-secret';
  t.match(read({ clientSecretEnv: 'OAUTH_TEST_SECRET' }), { introspection: { clientSecret: 'env-secret' } });
  t.equal(process.env.OAUTH_TEST_SECRET, undefined, 'the variable is withheld from plugins once read');
  t.match(read({ clientSecretFile: 'secret', endpoint: 'https://id.example.com/introspect' }), {
    introspection: { clientSecret: 'file-secret', endpoint: 'https://id.example.com/introspect' },
  });
  t.match(
    read({ clientSecretEnv: 'OAUTH_TEST_UNSET' }),
    /WHERE.*OAUTH_TEST_UNSET is unset or empty.*secret of client mcp-host/s,
  );
  t.match(read({ clientSecretFile: 'empty' }), /the file empty holds nothing/);
  t.match(read({ clientSecretFile: 'missing' }), /cannot read the introspection client secret .*missing/);
  t.match(oauthSettingsOf(config, 'WHERE', ws.dir), { scopes: [], clockSkewSeconds: 30, algorithms: ['RS256'] });
});

t.test('with http.oauth alone a host binds beyond loopback; an issuer out of reach is a 500 naming it', async (t) => {
  const ws = makeWorkspace(t);
  writeZoo(ws);
  const port = await freePort();
  const config = ws.writeConfig({
    reload: { watch: false },
    http: {
      port,
      oauth: {
        issuer: `http://127.0.0.1:${await freePort()}`,
        audience: `http://127.0.0.1:${port}/mcp`,
        introspection: { clientId: 'mcp-host', clientSecretEnv: 'IDP_SOME_SECRET' },
      },
    },
    plugins: [{ package: '@zoo/good' }],
  });
  // No static token: OAuth alone makes the endpoint not open, so a bind beyond loopback is allowed.
  const host = await startHttpHost(t, config, {
    args: ['--http', '0.0.0.0:0'],
    env: { IDP_SOME_SECRET: 'something', MCP_HOST_HTTP_TOKENS: undefined },
  });
  await assertLogged(t, host.log, /could not read the metadata of .* \(at start; tokens will try again\)/);
  t.notMatch(host.log(), 'reachable beyond this machine', 'not served open');
  const url = host.url.replace('0.0.0.0', '127.0.0.1');
  t.equal((await post(url)).status, 401, 'a request without a token is refused');
  const answer = await post(url, 'an-opaque-token');
  t.equal(answer.status, 500);
  const body = (await answer.json()) as { error: string; error_description: string };
  t.equal(body.error, 'server_error');
  t.match(
    body.error_description,
    /could not read the metadata of http:\/\/127\.0\.0\.1:\d+ .*check http\.oauth\.issuer/,
  );
  await assertLogged(t, host.log, /could not read the metadata of/);
  t.equal((await fetch(url.replace(/mcp$/, 'healthz'))).status, 200, 'the host is up all the same');
});

t.test('a rotated signing key (a new kid) is fetched and accepted', async (t) => {
  t.equal((await post(host.url, await idp.token('alice-agent', { scope: 'mcp', resource: audience }))).status, 200);
  const fetchedBefore = idp.jwksFetches();
  await idp.rotateKeys();
  const rotated = await idp.token('alice-agent', { scope: 'mcp', resource: audience });
  // A key id the host has not seen makes it fetch the JWKS again, at most every 2 s (JWKS_REFETCH_COOLDOWN_MS):
  // within that of the first fetch the token is refused, after it accepted.
  // The cooldown then a JWKS round trip: an event, bounded by EVENT_MS.
  const deadline = Date.now() + EVENT_MS;
  let status = (await post(host.url, rotated)).status;
  while (status !== 200 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    status = (await post(host.url, rotated)).status;
  }
  t.equal(status, 200, 'a token signed with the new key is accepted');
  t.ok(idp.jwksFetches() > fetchedBefore, 'the host fetched the JWKS again for it');
});
