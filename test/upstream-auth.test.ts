// Remote mounts that require OAuth (docs/upstream-auth.md), end to end: a real
// OpenID provider on loopback (oidc-provider) and a real MCP server behind it
// that verifies every token (signature against the provider's JWKS, audience,
// scope) and records the Authorization headers it was sent. The host runs as
// a child process; `check` and `status` are run as a user runs them.
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { decodeJwt, decodeProtectedHeader, exportJWK, exportPKCS8, generateKeyPair } from 'jose';
import { eventually, runCli, startHttpHost, startStdioHost, until, type Teardown } from './helpers/host.js';
import { openExchangeChannel } from './helpers/exchange-channel.js';
import { startOpenIdProvider, TOKEN_EXCHANGE_GRANT } from './helpers/openid-provider.js';
import { controlEnv, makeWorkspace } from './helpers/packages.js';
import { startProtectedMcpServer } from './helpers/protected-mcp-server.js';
import { EVENT_MS } from './helpers/timing.js';
import { firstText } from './helpers/results.js';

const SECRET = 'host-client-secret';

/**
 * A config mounting the protected `url` under the prefix `p`, the host's client secret in UPSTREAM_SECRET, of the
 * authorization server `issuer` when given (token exchange requires it).
 */
function protectedMountConfig(
  t: Teardown,
  url: string,
  mode: 'clientCredentials' | 'tokenExchange',
  issuer?: string,
  more: Record<string, unknown> = {},
): string {
  const client = { clientId: 'mcp-host', clientSecretEnv: 'UPSTREAM_SECRET', ...(issuer && { issuer }) };
  return makeWorkspace(t).writeConfig({
    ...more,
    reload: { watch: false },
    upstreams: { pingIntervalMs: 0 },
    plugins: [{ url, prefix: 'p', auth: { [mode]: client } }],
  });
}

async function protectedUpstream(t: Teardown, accessTokenTtl?: number) {
  const op = await startOpenIdProvider(t, {
    clients: [{ clientId: 'mcp-host', clientSecret: SECRET }],
    ...(accessTokenTtl && { accessTokenTtl }),
  });
  const upstream = await startProtectedMcpServer(t, { issuer: op.issuer, jwksUri: op.jwksUri });
  return { op, upstream };
}

t.test('check names what each protected mount lacks, from its 401 or its authorization server', async (t) => {
  const { op, upstream } = await protectedUpstream(t);
  // A second server of the same authorization server, for the mounts that should come up.
  const served = await startProtectedMcpServer(t, { issuer: op.issuer, jwksUri: op.jwksUri });
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  await op.register({ clientId: 'mcp-host-key', jwks: { keys: [{ ...(await exportJWK(publicKey)), alg: 'ES256' }] } });
  const bareUrl = await startRefusingServer(t, {});
  // A server whose challenge names metadata nobody serves.
  const pointingAwayUrl = await startRefusingServer(t, {
    'www-authenticate': 'Bearer resource_metadata="http://127.0.0.1:9/metadata"',
  });
  const ws = makeWorkspace(t);
  writeFileSync(join(ws.dir, 'client.pem'), await exportPKCS8(privateKey));
  const client = { clientId: 'mcp-host', clientSecretEnv: 'UPSTREAM_SECRET' };
  const config = ws.writeConfig({
    reload: { watch: false },
    plugins: [
      { url: upstream.url, prefix: 'none' },
      {
        url: served.url,
        prefix: 'named',
        auth: {
          clientCredentials: { ...client, tokenUrl: `${op.issuer}/token`, resource: served.url, scopes: ['mcp'] },
        },
      },
      {
        url: served.url,
        prefix: 'keyed',
        auth: { clientCredentials: { clientId: 'mcp-host-key', privateKeyFile: 'client.pem', algorithm: 'ES256' } },
      },
      { url: bareUrl, prefix: 'bare', auth: { clientCredentials: client } },
      { url: pointingAwayUrl, prefix: 'away', auth: { clientCredentials: client } },
      {
        url: upstream.url,
        prefix: 'dead',
        auth: { clientCredentials: { ...client, tokenUrl: 'http://127.0.0.1:9/token' } },
      },
      { url: upstream.url, prefix: 'pinned', auth: { clientCredentials: { ...client, issuer: 'http://127.0.0.1:9' } } },
      {
        url: upstream.url,
        prefix: 'elsewhere',
        auth: {
          clientCredentials: {
            ...client,
            tokenUrl: `${op.issuer}/token`,
            resource: 'http://127.0.0.1:9/another-server',
          },
        },
      },
    ],
  });
  const run = await runCli(['check', '--config', config], { env: { ...process.env, UPSTREAM_SECRET: SECRET } });
  t.equal(run.code, 1, 'check fails');
  const problems = run.stdout;
  t.match(problems, 'mcp-host check: 6 problems in');
  t.match(
    problems,
    `(plugins[0]): could not be reached: ${upstream.url} requires an OAuth token (HTTP 401) from the authorization server ${op.issuer} (token endpoint ${op.issuer}/token; resource ${upstream.url}; scopes mcp;`,
  );
  t.match(problems, 'and the entry gives the host no way to get one.');
  t.match(
    problems,
    `Fix: register a client for mcp-host at ${op.issuer} and add to the entry auth: { clientCredentials: { clientId: "…", clientSecretEnv: "…" } }`,
  );
  t.notMatch(problems, '(plugins[1])', 'a token endpoint named in the entry needs no discovery');
  t.notMatch(problems, '(plugins[2])', 'a private_key_jwt client gets its token with its key');
  // The key's mount finds its authorization server from one 401; the one naming its token endpoint asks first.
  t.same(served.refusals, ['no bearer token'], 'one request went without a token: the first of the discovering mount');
  t.same(
    new Set(
      served.authorizations.flatMap((header) => (header ? [decodeJwt(header.slice('Bearer '.length)).client_id] : [])),
    ),
    new Set(['mcp-host', 'mcp-host-key']),
  );
  t.match(
    problems,
    `${bareUrl} refused the host with HTTP 401 and publishes no OAuth metadata: the host cannot tell where to get a token. Fix: name the token endpoint in the entry: auth.clientCredentials.tokenUrl`,
  );
  t.match(
    problems,
    `${pointingAwayUrl} refused the host with HTTP 401 and has OAuth metadata that could not be read (`,
  );
  t.match(problems, `http://127.0.0.1:9 gave client "mcp-host" no token for ${upstream.url}: fetch failed`);
  t.match(
    problems,
    `${upstream.url} names the authorization server ${op.issuer}, but client "mcp-host" is registered at http://127.0.0.1:9 (the entry's auth.clientCredentials.issuer): its credential is sent nowhere else. Fix: if the server has moved to ${op.issuer}, register the client there and change issuer;`,
  );
  t.match(
    problems,
    `${upstream.url} refused the token client "mcp-host" was granted for it (HTTP 401). Fix: check what the server requires of a token`,
  );
});

t.test(
  "check on a protected server without auth names its authorization server and the fix, in words, though the SDK refuses that server's metadata",
  async (t) => {
    // A client-credentials-only authorization server: its RFC 8414 metadata has no authorization_endpoint (nor
    // response_types_supported), which the SDK's schema requires, so the SDK's discovery throws on it.
    const issuer = await startMachineAuthorizationServer(t);
    const upstream = await startProtectedMcpServer(t, { issuer, jwksUri: `${issuer}/jwks` });
    const config = makeWorkspace(t).writeConfig({ plugins: [{ url: upstream.url, prefix: 'gh' }] });
    const run = await runCli(['check', '--config', config]);
    t.equal(run.code, 1, 'check fails');
    t.match(
      run.stdout,
      `- plugin "gh" (${upstream.url}) (plugins[0]): could not be reached: ${upstream.url} requires an OAuth token (HTTP 401) from the authorization server ${issuer} (resource ${upstream.url}; scopes mcp; its metadata could not be read: it is not metadata the MCP SDK accepts (authorization_endpoint: `,
    );
    t.match(
      run.stdout,
      `and the entry gives the host no way to get one. Fix: register a client for mcp-host at ${issuer} and add to the entry auth: { clientCredentials: { clientId: "…", clientSecretEnv: "…", tokenUrl: "…" } }`,
    );
    t.notMatch(run.stdout + run.stderr, /^\s*\{/m, 'no JSON log line in its output');
    t.notMatch(
      run.stdout,
      /warning: .*connecting failed/,
      'a warning that repeats a reported problem is not said twice',
    );
  },
);

t.test(
  'a secret in the config text, a malformed auth, or a secret that cannot be read, is refused at check',
  async (t) => {
    const ws = makeWorkspace(t);
    const url = 'http://127.0.0.1:9/mcp';
    const config = ws.writeConfig({
      plugins: [
        { url, prefix: 'a', auth: {} },
        { url, prefix: 'b', auth: { clientCredentials: {}, tokenExchange: 'x' } },
        {
          url,
          prefix: 'c',
          auth: {
            clientCredentials: {
              clientId: '',
              clientSecretEnv: '1X',
              privateKeyFile: 'k.pem',
              algorithm: 'none',
              scopes: ['a b'],
              tokenUrl: 'ftp://x',
              issuer: 'auth.example.com',
              colour: 1,
            },
          },
        },
        { url, prefix: 'd', auth: 'on' },
        { url, prefix: 'e', auth: { clientCredentials: 'x', oauth: true } },
        { url, prefix: 'f', auth: { clientCredentials: { clientId: 'h', clientSecretFile: 's', algorithm: 'RS256' } } },
        { url, prefix: 'g', auth: { clientCredentials: { clientId: 'mcp-host', clientSecret: 'hunter2' } } },
        // Valid, but their secrets cannot be read: refused when the entries are resolved, in the same run.
        {
          url,
          prefix: 'h',
          auth: { clientCredentials: { clientId: 'h', clientSecretEnv: 'UPSTREAM_AUTH_TEST_UNSET' } },
        },
        {
          url,
          prefix: 'i',
          auth: { tokenExchange: { clientId: 'h', clientSecretFile: 'no-such-secret', issuer: 'https://id.example' } },
        },
        { url, prefix: 'j', auth: { clientCredentials: { clientId: 'h', privateKeyFile: 'no-such.pem' } } },
        // Token exchange naming no issuer: the callers' tokens would go wherever the upstream says.
        { url, prefix: 'k', auth: { tokenExchange: { clientId: 'h', clientSecretEnv: 'UPSTREAM_SECRET' } } },
      ],
    });
    const run = await runCli(['check', '--config', config], { env: { ...process.env, UPSTREAM_AUTH_TEST_UNSET: '' } });
    t.equal(run.code, 1);
    for (const expected of [
      'plugins[0].auth: names no mode: expected exactly one of "clientCredentials" or "tokenExchange".',
      'plugins[1].auth: names "clientCredentials" and "tokenExchange": expected exactly one',
      'plugins[1].auth.clientCredentials.clientId: is missing',
      'plugins[1].auth.clientCredentials: names no credential: expected exactly one of "clientSecretEnv", "clientSecretFile" or "privateKeyFile".',
      'plugins[1].auth.tokenExchange: expected an object, got "x".',
      'plugins[2].auth.clientCredentials.clientId: expected a non-empty string',
      'plugins[2].auth.clientCredentials.clientSecretEnv: expected an environment variable name',
      'plugins[2].auth.clientCredentials: names "clientSecretEnv" and "privateKeyFile"',
      'plugins[2].auth.clientCredentials.algorithm: expected one of "RS256"',
      'plugins[2].auth.clientCredentials.scopes: expected an array of scopes',
      'plugins[2].auth.clientCredentials.tokenUrl: expected an http:// or https:// URL',
      'plugins[2].auth.clientCredentials.issuer: expected an http:// or https:// URL, got "auth.example.com".',
      'plugins[2].auth.clientCredentials.colour: unknown key "colour".',
      'plugins[3].auth: expected an object, got "on".',
      'plugins[4].auth.oauth: unknown key "oauth".',
      'plugins[5].auth.clientCredentials.algorithm: signs a private_key_jwt assertion, but the entry names no privateKeyFile.',
      "mcp-host.config.js: plugins[6].auth.clientCredentials.clientSecret: holds the client's credential in the config text",
      'Fix: remove clientSecret and write clientSecretEnv: "UPSTREAM_CLIENT_SECRET"',
      'plugins[7].auth.clientCredentials.clientSecretEnv: the environment variable UPSTREAM_AUTH_TEST_UNSET is empty: it should hold the secret of client "h". Fix: start mcp-host with UPSTREAM_AUTH_TEST_UNSET set',
      'plugins[8].auth.tokenExchange.clientSecretFile: cannot read the client secret from',
      'plugins[9].auth.clientCredentials.privateKeyFile: cannot read the private key from',
      `mcp-host.config.js: plugins[10].auth.tokenExchange.issuer: is missing: each caller's own access token is sent to the authorization server for exchange, and without issuer that would be whatever server the upstream's metadata names (a server that names another could collect every caller's token). Fix: name the authorization server client "h" is registered at, as its metadata names itself, e.g. issuer: "https://auth.example.com".`,
    ]) {
      t.match(run.stdout, expected);
    }
  },
);

t.test(
  'client credentials: the host gets its own token, renews it before it expires, and no client token reaches the upstream',
  async (t) => {
    // The token's lifetime bounds the steps it must outlive: the host's start and the first call, then the renewed
    // token's one call. The provider floors its `iat` to the second (exp = iat + ttl), so a token lives between
    // ttl - 1 and ttl seconds: with 2 s, a loaded machine's start could outlast the first token, and the first call
    // was then refused. At 10 s or more the host's renewal point (90% of the lifetime after it asked) also
    // falls before the token's `exp`, so waiting for that `exp` (below) passes both.
    const ttlSeconds = 10;
    const { op, upstream } = await protectedUpstream(t, ttlSeconds);
    // The client's token is the admin's too: /metrics counts the host's token requests.
    const config = protectedMountConfig(t, upstream.url, 'clientCredentials', undefined, {
      http: { port: 0, admin: { tokens: ['ops'] } },
    });
    const clientToken = 'the-client-token-of-the-host-itself';
    const host = await startHttpHost(t, config, {
      env: { MCP_HOST_HTTP_TOKENS: `ops:${clientToken}`, UPSTREAM_SECRET: SECRET },
    });
    const client = new Client({ name: 'upstream-auth-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(host.url), {
        requestInit: { headers: { Authorization: `Bearer ${clientToken}` } },
      }),
    );
    t.teardown(() => client.close());

    const first = await client.callTool({ name: 'p.whoami', arguments: {} });
    t.equal(firstText(first), 'mcp-host', 'the upstream saw the host as client mcp-host');
    // The first request goes without a token, and its 401 tells the host where to ask; the mount's other
    // connection (the host links it at both protocol eras) uses the same token.
    t.same(upstream.refusals, ['no bearer token'], 'one 401, to the first request, which told the host where to ask');
    t.equal(op.granted.client_credentials, 1, 'one token for the mount');
    const refusedBefore = upstream.refusals.length;
    const grantedBefore = 1;

    // The token's lifetime passes: the next call goes out with a fresh token, not with one the upstream would refuse.
    // Waited for until the first token's own `exp` (the upstream refuses it from then on), not for a fixed time.
    const firstToken = upstream.authorizations.find((header) => header !== undefined)!;
    const expiresAt = decodeJwt(firstToken.slice('Bearer '.length)).exp! * 1000;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 100));
    const second = await client.callTool({ name: 'p.whoami', arguments: {} });
    t.equal(firstText(second), 'mcp-host');
    t.equal(upstream.refusals.length, refusedBefore, 'no request failed for an expired token');
    t.equal(op.granted.client_credentials, grantedBefore + 1, 'the token was renewed before the call');

    const tokens = new Set(upstream.authorizations.filter((header) => header !== undefined));
    t.equal(tokens.size, grantedBefore + 1, 'every token granted reached the upstream, and nothing else did');
    for (const header of tokens) {
      t.notMatch(header!, clientToken, "the client's token never reaches the upstream");
      const claims = decodeJwt(header!.slice('Bearer '.length));
      t.equal(claims.aud, upstream.url, 'each token is issued for the upstream');
      t.equal(claims.client_id, 'mcp-host');
    }
    const metrics = await fetch(new URL('/metrics', host.url), { headers: { authorization: `Bearer ${clientToken}` } });
    t.match(
      await metrics.text(),
      /^mcp_host_upstream_token_requests_total\{mcp_host_mount="p",mcp_host_token_grant="client_credentials",mcp_host_token_outcome="ok",[^}]*\} 2$/m,
      'the first token and its renewal, counted on /metrics',
    );
  },
);

t.test('a client revoked at the authorization server takes the mount down, and status says why', async (t) => {
  // The revocation shows when the host next asks for a token: at 90% of the token's lifetime. That lifetime must
  // outlast the host's start and the first call (a 1 s token, which the provider's whole-second `iat` cuts to as
  // little as a moment, could expire on a loaded machine before the call reached the upstream); the wait for the
  // mount to go down is bounded by that lifetime plus the suite's own bound for an event.
  const ttlSeconds = 10;
  const { op, upstream } = await protectedUpstream(t, ttlSeconds);
  const ws = makeWorkspace(t);
  const env = { ...controlEnv(ws), UPSTREAM_SECRET: SECRET };
  const config = ws.writeConfig({
    reload: { watch: false },
    upstreams: { pingIntervalMs: 200, reconnectDelayMs: 200, maxReconnectDelayMs: 500 },
    plugins: [
      {
        url: upstream.url,
        prefix: 'p',
        auth: { clientCredentials: { clientId: 'mcp-host', clientSecretEnv: 'UPSTREAM_SECRET' } },
      },
      { url: upstream.url, prefix: 'q' },
    ],
  });
  const host = await startStdioHost(t, config, { env });
  t.equal(firstText(await host.client.callTool({ name: 'p.whoami', arguments: {} })), 'mcp-host');

  await op.revoke('mcp-host');
  let status = '';
  await eventually(
    'status reports the mount down for the revoked client',
    async () => {
      status = (await runCli(['status', '--config', config], { env })).stdout;
      return status.includes('invalid_client');
    },
    ttlSeconds * 1000 + EVENT_MS,
  );
  t.match(
    status,
    `p (${upstream.url}, remote): down: ${op.issuer} gave client "mcp-host" no token for ${upstream.url}: invalid_client`,
  );
  t.match(status, `Fix: check the client at ${op.issuer}: that it is registered, may use the client_credentials grant`);
  t.match(
    status,
    `q (${upstream.url}, remote): down: ${upstream.url} requires an OAuth token (HTTP 401) from the authorization server ${op.issuer}`,
    'a mount without auth says what it needs',
  );
  const call = await host.client.callTool({ name: 'p.whoami', arguments: {} }).catch((error: unknown) => error);
  t.match(
    String(call instanceof Error ? call.message : JSON.stringify(call)),
    `plugin "p" (${upstream.url}): is down: ${op.issuer} gave client "mcp-host" no token`,
    "a call to the mount is refused with the mount's cause",
  );
});

t.test(
  'token exchange: each caller reaches the upstream with a token of its own; a stdio client is refused',
  async (t) => {
    const { op, upstream } = await protectedUpstream(t);
    const config = protectedMountConfig(t, upstream.url, 'tokenExchange', op.issuer);
    const host = await startStdioHost(t, config, { env: { UPSTREAM_SECRET: SECRET } });
    const refused = await host.client.callTool({ name: 'p.whoami', arguments: {} }).then(
      (result) => JSON.stringify(result),
      (error: unknown) => String(error),
    );
    t.match(
      refused,
      `mount "p" calls ${upstream.url} as each caller, exchanging the caller's OAuth token for one of its own (auth.tokenExchange), and this is a stdio client: it has no OAuth token to exchange.`,
    );
    t.match(refused, 'Fix: connect over HTTP with an access token the host accepts (http.oauth)');

    // The exchange itself, on the channel a remote mount speaks through, for two OAuth identities.
    const { channel, answers } = await openExchangeChannel(t, upstream.url, SECRET, op.issuer);
    const callAs = async (id: number, sub: string, token = op.subjectToken(sub)) => {
      const identity = { kind: 'user' as const, name: sub, claims: { sub }, scopes: ['mcp'], token };
      await channel.send(
        { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
        { identity },
      );
      await until(`the answer to request ${id}`, () => answers.has(id));
      const answer = answers.get(id) as { result: { content: { text: string }[] } };
      return answer.result.content[0]!.text;
    };
    const aliceToken = op.subjectToken('alice');
    t.equal(await callAs(2, 'alice', aliceToken), 'alice');
    t.equal(await callAs(3, 'bob'), 'bob');
    t.equal(await callAs(4, 'alice', aliceToken), 'alice', 'alice again, with her cached exchanged token');
    t.equal(op.granted[TOKEN_EXCHANGE_GRANT], 2, 'one exchange per caller');
    const subjects = upstream.authorizations
      .filter((header) => header !== undefined)
      .map((header) => {
        const claims = decodeJwt(header!.slice('Bearer '.length));
        return claims.sub ?? claims.client_id;
      });
    t.same(new Set(subjects), new Set(['mcp-host', 'alice', 'bob']), 'the upstream saw the host and two subjects');
    t.notOk(
      upstream.authorizations.some((header) => header?.includes(aliceToken)),
      "a caller's own token never reaches the upstream",
    );
    // A caller's exchanged token the server stops accepting is exchanged again, once, and the call goes through.
    upstream.revokeSeen();
    t.equal(await callAs(5, 'alice', aliceToken), 'alice', 'alice, with a token exchanged anew');
    t.equal(op.granted[TOKEN_EXCHANGE_GRANT], 3);
    for (const [identity, who] of [
      [
        { kind: 'token' as const, name: 'ci', tokenName: 'ci', claims: {}, scopes: [] },
        'a client of the static token "ci"',
      ],
      [{ kind: 'anonymous' as const, name: 'anonymous', claims: {}, scopes: [] }, 'a client that sent no token'],
    ] as const) {
      await t.rejects(
        channel.send({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'whoami' } }, { identity }),
        { message: `and this is ${who}: it has no OAuth token to exchange.` },
      );
    }
    // A caller whose own token the authorization server no longer accepts, once its exchanged one is refused too:
    // that call is refused, naming why; the mount serves the others on.
    upstream.revokeSeen();
    op.revokeSubjectToken(aliceToken);
    await t.rejects(callAs(8, 'alice', aliceToken), {
      message: /mount "p": .* would not exchange the token of "alice" .*invalid_grant/,
    });
    t.equal(await callAs(9, 'bob'), 'bob', 'another caller is served');
    const stranger = {
      kind: 'user' as const,
      name: 'eve',
      claims: {},
      scopes: [],
      token: 'not-a-token-the-provider-issued',
    };
    await t.rejects(
      channel.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'whoami' } }, { identity: stranger }),
      { message: /mount "p": .* would not exchange the token of "eve" .*invalid_grant/ },
    );
  },
);

t.test(
  'a token the upstream stops accepting is replaced and the request retried once, after the keys rotated',
  async (t) => {
    const { op, upstream } = await protectedUpstream(t);
    const config = protectedMountConfig(t, upstream.url, 'clientCredentials');
    const host = await startStdioHost(t, config, { env: { UPSTREAM_SECRET: SECRET } });
    t.equal(firstText(await host.client.callTool({ name: 'p.whoami', arguments: {} })), 'mcp-host');
    await op.rotateKeys({ retireOld: true });
    upstream.revokeSeen();
    const refusedBefore = upstream.refusals.length;
    t.equal(
      firstText(await host.client.callTool({ name: 'p.whoami', arguments: {} })),
      'mcp-host',
      'the call succeeds',
    );
    t.same(upstream.refusals.slice(refusedBefore), ['revoked'], 'one refusal: the old token, once');
    t.equal(op.granted.client_credentials, 2, 'a new token was asked for');
    const last = upstream.authorizations.at(-1)!;
    t.equal(decodeProtectedHeader(last.slice('Bearer '.length)).kid, op.currentKid(), 'signed with the rotated key');
  },
);

/** A server that answers every request 401 with `headers`, and no OAuth metadata. */
/** An authorization server for machines alone: RFC 8414 metadata naming only its token endpoint and grant. */
async function startMachineAuthorizationServer(t: Teardown): Promise<string> {
  let issuer = '';
  const server = createServer((req, res) => {
    if (req.url !== '/.well-known/oauth-authorization-server') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ issuer, token_endpoint: `${issuer}/token`, grant_types_supported: ['client_credentials'] }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return issuer;
}

async function startRefusingServer(t: Teardown, headers: Record<string, string>): Promise<string> {
  const server = createServer((_req, res) => res.writeHead(401, headers).end('a token is required'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}
