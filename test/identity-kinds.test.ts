// A user and a client are two identities (issue #38, docs/identity.md): an
// OAuth token with a `sub` is the user it names, one with a `client_id`
// alone (a client-credentials token) the client it names, and a client named
// "alice" is not the user alice anywhere an identity is a key: her legacy
// session, her rate-limit bucket, the access rules for her `sub`, and the
// audit record, which says which. Tokens are signed by a real OpenID provider
// on loopback (oidc-provider); the host runs as a child process over HTTP,
// driven by the SDK's own Client.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import type { Client } from '@modelcontextprotocol/client';
import { connectWithBearer, listOnSession, postInitialize, startHttpHost, until } from './helpers/host.js';
import { freePort } from './helpers/engines.js';
import { makeWorkspace } from './helpers/packages.js';
import { startOpenIdProvider } from './helpers/openid-provider.js';

const idp = await startOpenIdProvider(t);
const port = await freePort();
const audience = `http://127.0.0.1:${port}/mcp`;
const ws = makeWorkspace(t);
const host = await startHttpHost(
  t,
  ws.writeConfig({
    reload: { watch: false },
    http: { port, oauth: { issuer: idp.issuer, audience, scopes: ['mcp'] } },
    plugins: [{ package: '@mcp-host/clock' }],
    // Disjoint, so that what each sees says which rules matched it.
    access: [
      { who: { sub: 'alice' }, tools: ['clock.now'] },
      { who: { client_id: 'alice' }, tools: ['clock.list_time_zones'] },
    ],
    limits: { callsPerMinute: { default: 1 } },
    audit: { file: './audit.log' },
  }),
  { args: [], env: { MCP_HOST_HTTP_TOKENS: undefined } },
);

/** A token as the provider signs it, for this host, with `claims`. */
function token(claims: Record<string, unknown>): Promise<string> {
  return idp.accessToken(audience, { scope: 'mcp', ...claims });
}
/** The user alice, through the app she uses. */
const userAlice = () => token({ sub: 'alice', client_id: 'app' });
/** A client-credentials token of a client named alice: no `sub`. */
const clientAlice = () => token({ client_id: 'alice' });

function connect(t: Test, bearer: string): Promise<Client> {
  return connectWithBearer(t, host.url, bearer, 'identity-kinds');
}

async function refusal(attempt: Promise<unknown>): Promise<{ code?: number; message?: string }> {
  return attempt.then(
    () => ({}),
    (error: unknown) => error as { code?: number; message?: string },
  );
}

t.test(
  "a client named alice gets 404 on the user alice's legacy session; another token of hers reaches it",
  async (t) => {
    const opened = await postInitialize(host.url, { token: await userAlice() });
    t.equal(opened.status, 200);
    const session = opened.headers.get('mcp-session-id')!;
    const list = async (bearer: string) => (await listOnSession(host.url, session, bearer)).status;
    t.equal(await list(await clientAlice()), 404, 'the client alice: the session does not exist for it');
    t.equal(await list(await userAlice()), 200, 'another token of the user alice: the session is hers');
  },
);

t.test('access rules: who.sub is for the user alone, who.client_id for the client', async (t) => {
  const names = async (bearer: string) => (await (await connect(t, bearer)).listTools()).tools.map((tool) => tool.name);
  t.same(await names(await userAlice()), ['clock.now'], 'the user alice: the rule for her sub');
  t.same(await names(await clientAlice()), ['clock.list_time_zones'], 'the client alice: the rule for its client_id');
});

t.test('rate limits: the user alice and the client alice each have a bucket; the audit log says which', async (t) => {
  const user = await connect(t, await userAlice());
  const client = await connect(t, await clientAlice());
  await user.callTool({ name: 'clock.now', arguments: {} });
  await client.callTool({ name: 'clock.list_time_zones', arguments: {} });
  t.match(await refusal(user.callTool({ name: 'clock.now', arguments: {} })), {
    code: -32029,
    message: /^Rate limit: user "alice" has made 1 calls this minute/,
  });
  t.match(await refusal(client.callTool({ name: 'clock.list_time_zones', arguments: {} })), {
    code: -32029,
    message: /^Rate limit: client "alice" has made 1 calls this minute/,
  });

  const file = join(ws.dir, 'audit.log');
  const calls = () =>
    (existsSync(file) ? readFileSync(file, 'utf8') : '')
      .split('\n')
      .filter((line) => line.includes('"method":"tools/call"'))
      .map((line) => JSON.parse(line) as { identity: unknown; decision: string; rule?: unknown });
  await until('the four calls to be audited', () => calls().length === 4);
  t.same(
    calls().map(({ identity, decision, rule }) => ({ identity, decision, rule })),
    [
      { identity: { name: 'alice', kind: 'user' }, decision: 'allow', rule: 0 },
      { identity: { name: 'alice', kind: 'client' }, decision: 'allow', rule: 1 },
      { identity: { name: 'alice', kind: 'user' }, decision: 'refuse', rule: 'limits.callsPerMinute.default' },
      { identity: { name: 'alice', kind: 'client' }, decision: 'refuse', rule: 'limits.callsPerMinute.default' },
    ],
  );
});
