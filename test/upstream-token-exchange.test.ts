// Token exchange end to end (issue #30, docs/upstream-auth.md): HTTP clients
// authenticate to the host with access tokens from a real OpenID provider,
// and a `url:` mount with `auth.tokenExchange` calls a real token-verifying
// MCP server as each of them, with a token the provider issued for it in
// exchange for the caller's own (RFC 8693). The upstream is asked who it
// saw, and shown never to have been sent a caller's own token.
import t, { type Test } from 'tap';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import { startHttpHost, startStdioHost } from './helpers/host.js';
import { freePort } from './helpers/engines.js';
import { makeWorkspace } from './helpers/packages.js';
import { modernClient } from './helpers/cluster.js';
import { DEFAULT_CLIENTS, startOpenIdProvider, TOKEN_EXCHANGE_GRANT } from './helpers/openid-provider.js';
import { startProtectedMcpServer } from './helpers/protected-mcp-server.js';
import { firstText } from './helpers/results.js';

const STATIC_TOKEN = 'static-ci-token-0123456789';
const HOST_SECRET = DEFAULT_CLIENTS.find((client) => client.clientId === 'mcp-host')!.clientSecret!;

const idp = await startOpenIdProvider(t);
const EXCHANGE = { tokenExchange: { clientId: 'mcp-host', clientSecretEnv: 'UPSTREAM_SECRET', issuer: idp.issuer } };
const upstream = await startProtectedMcpServer(t, { issuer: idp.issuer, jwksUri: idp.jwksUri });
const port = await freePort();
const audience = `http://127.0.0.1:${port}/mcp`;
const ws = makeWorkspace(t);
const mounts = [
  { url: upstream.url, prefix: 'shared', auth: EXCHANGE },
  { url: upstream.url, prefix: 'own', sessions: 'per-client', auth: EXCHANGE },
];
const host = await startHttpHost(
  t,
  ws.writeConfig({
    reload: { watch: false },
    upstreams: { pingIntervalMs: 0 },
    http: { port, auth: { tokens: [`ci:${STATIC_TOKEN}`] }, oauth: { issuer: idp.issuer, audience, scopes: ['mcp'] } },
    plugins: mounts,
  }),
  { args: [], env: { MCP_HOST_HTTP_TOKENS: undefined, UPSTREAM_SECRET: HOST_SECRET } },
);

async function connect(t: Test, token: string, client = new Client({ name: 'exchange', version: '1.0.0' })) {
  await client.connect(
    new StreamableHTTPClientTransport(new URL(host.url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  t.teardown(() => client.close());
  return client;
}

const whoami = async (client: Client, mount: string) =>
  firstText(await client.callTool({ name: `${mount}.whoami`, arguments: {} }));

/** What a call to the shared mount answers: the refusal's message, or the result when it is not refused. */
const refusalOf = (client: Client) =>
  client.callTool({ name: 'shared.whoami', arguments: {} }).then(
    (result) => JSON.stringify(result),
    (error: unknown) => String(error),
  );

/** The subjects of the tokens the upstream was sent, in order. */
const subjectsSeen = () =>
  upstream.authorizations.flatMap((header) => {
    if (header === undefined) return [];
    const claims = decodeJwt(header.slice('Bearer '.length));
    return [String(claims.sub ?? claims.client_id)];
  });

t.test('two identities reach the upstream as two subjects, in both eras, with exchanged tokens only', async (t) => {
  const alice = await idp.token('alice-agent', { scope: 'mcp', resource: audience });
  const carol = await idp.token('carol-agent', { scope: 'mcp', resource: audience });
  const exchangesBefore = idp.granted[TOKEN_EXCHANGE_GRANT] ?? 0;

  // Legacy sessions: their tools/call is served on the HTTP hot path, past the front server.
  const aliceLegacy = await connect(t, alice);
  const carolLegacy = await connect(t, carol);
  t.equal(await whoami(aliceLegacy, 'shared'), 'alice-agent', "alice's legacy session calls as alice");
  t.equal(await whoami(carolLegacy, 'shared'), 'carol-agent', "carol's legacy session calls as carol");
  t.equal(await whoami(aliceLegacy, 'shared'), 'alice-agent');
  t.equal(idp.granted[TOKEN_EXCHANGE_GRANT], exchangesBefore + 2, 'one exchange per subject');

  // A 2026-07-28 request, with another token of alice's: the same subject, so her cached exchanged token.
  const aliceAgain = await idp.token('alice-agent', { scope: 'mcp', resource: audience });
  const aliceModern = await connect(t, aliceAgain, modernClient());
  const carolModern = await connect(t, carol, modernClient());
  t.equal(await whoami(aliceModern, 'shared'), 'alice-agent', 'a 2026-07-28 call as alice');
  t.equal(await whoami(carolModern, 'shared'), 'carol-agent', 'a 2026-07-28 call as carol');
  t.equal(idp.granted[TOKEN_EXCHANGE_GRANT], exchangesBefore + 2, 'cached per subject, whichever of its tokens came');

  // A mount with an upstream session per client session exchanges for its own caller too.
  t.equal(await whoami(aliceLegacy, 'own'), 'alice-agent', "alice's own upstream session calls as alice");
  t.equal(await whoami(carolLegacy, 'own'), 'carol-agent', "carol's own upstream session calls as carol");

  t.same(
    new Set(subjectsSeen()),
    new Set(['mcp-host', 'alice-agent', 'carol-agent']),
    "the upstream saw the host's own token (handshake, lists) and the two subjects'",
  );
  for (const own of [alice, aliceAgain, carol]) {
    t.notOk(
      upstream.authorizations.some((header) => header?.includes(own)),
      "a client's own token never reached the upstream",
    );
  }
});

t.test(
  "one subject through another client, or with fewer scopes, gets an exchange of its own: never another grant's token",
  async (t) => {
    const dana = (clientId: string, scope: string) =>
      idp.accessToken(audience, { sub: 'dana', client_id: clientId, scope });
    const exchangesBefore = idp.granted[TOKEN_EXCHANGE_GRANT] ?? 0;
    for (const [clientId, scope, why] of [
      ['dashboard', 'mcp notes', 'dana through the dashboard'],
      ['dashboard', 'mcp notes', "another token of the same grant: that grant's exchanged token"],
      ['plugin-app', 'mcp notes', 'dana through another client'],
      ['dashboard', 'mcp', 'dana through the dashboard, with fewer scopes'],
    ]) {
      const client = await connect(t, await dana(clientId!, scope!), modernClient());
      t.equal(await whoami(client, 'shared'), 'dana', why);
    }
    t.equal(idp.granted[TOKEN_EXCHANGE_GRANT], exchangesBefore + 3, 'one exchange per grant');
    const danas = new Set(
      upstream.authorizations.filter(
        (header) => header !== undefined && decodeJwt(header.slice('Bearer '.length)).sub === 'dana',
      ),
    );
    t.equal(danas.size, 3, 'the upstream was sent three exchanged tokens of dana, one per grant');
  },
);

t.test('a static-token client and a stdio client are refused, naming why and the fix', async (t) => {
  const ci = await connect(t, STATIC_TOKEN);
  t.match(
    await refusalOf(ci),
    `mount "shared" calls ${upstream.url} as each caller, exchanging the caller's OAuth token for one of its own (auth.tokenExchange), and this is a client of the static token "ci": it has no OAuth token to exchange. Fix: connect over HTTP with an access token the host accepts (http.oauth)`,
    'a static-token client is refused, naming its token and the fix',
  );

  const stdio = await startStdioHost(t, makeWorkspace(t).writeConfig({ reload: { watch: false }, plugins: mounts }), {
    env: { UPSTREAM_SECRET: HOST_SECRET },
  });
  t.match(
    await refusalOf(stdio.client),
    'and this is a stdio client: it has no OAuth token to exchange.',
    'a stdio client is refused',
  );
});
