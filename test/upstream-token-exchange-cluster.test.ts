// Token exchange across a cluster (docs/upstream-auth.md, "In a cluster"): a
// legacy session is held by one replica, and its calls sent to another are
// forwarded to it. The owner makes the call, so the owner exchanges the
// caller's token: the forwarding stamp carries it sealed for the owner
// under the cluster key (host/cluster/token-seal.ts). Two real replicas, a
// real Redis and HAProxy, a real OpenID provider, a real token-verifying
// upstream.
import t from 'tap';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import { makeWorkspace } from './helpers/packages.js';
import { startCluster } from './helpers/cluster.js';
import { until } from './helpers/host.js';
import { firstText } from './helpers/results.js';
import { DEFAULT_CLIENTS, startOpenIdProvider, TOKEN_EXCHANGE_GRANT } from './helpers/openid-provider.js';
import { startProtectedMcpServer } from './helpers/protected-mcp-server.js';

const AUDIENCE = 'https://mcp.cluster.test/mcp';

t.test(
  "a call forwarded to the session's owner is made there as its caller, with a token exchanged there",
  async (t) => {
    const idp = await startOpenIdProvider(t);
    const upstream = await startProtectedMcpServer(t, { issuer: idp.issuer, jwksUri: idp.jwksUri });
    const ws = makeWorkspace(t);
    const cluster = await startCluster(t, ws, {
      config: {
        http: { port: 0, oauth: { issuer: idp.issuer, audience: AUDIENCE, scopes: ['mcp'] } },
        plugins: [
          {
            url: upstream.url,
            prefix: 'x',
            auth: { tokenExchange: { clientId: 'mcp-host', clientSecretEnv: 'UPSTREAM_SECRET', issuer: idp.issuer } },
          },
        ],
      },
      env: {
        MCP_HOST_HTTP_TOKENS: undefined,
        UPSTREAM_SECRET: DEFAULT_CLIENTS.find((client) => client.clientId === 'mcp-host')!.clientSecret!,
      },
    });
    const [owner, other] = cluster.replicas as [(typeof cluster.replicas)[0], (typeof cluster.replicas)[0]];

    /** A legacy session opened on the owner, every later POST of it sent to the other replica. */
    const connectThroughOther = async (token: string) => {
      let opened = false;
      const client = new Client({ name: 'forwarded', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(owner.url), {
          fetch: (_input, init) => {
            const posted = (init?.method ?? 'GET') === 'POST';
            const url = posted && opened ? other.url : owner.url;
            if (posted) opened = true;
            return fetch(url, init);
          },
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      t.teardown(() => client.close());
      return client;
    };
    const alice = await idp.token('alice-agent', { scope: 'mcp', resource: AUDIENCE });
    const carol = await idp.token('carol-agent', { scope: 'mcp', resource: AUDIENCE });
    const exchangesBefore = idp.granted[TOKEN_EXCHANGE_GRANT] ?? 0;
    const forwards = () => other.log().match(/forwarded a POST to replica/g)?.length ?? 0;
    const forwardsBefore = forwards();

    for (const [token, subject] of [
      [alice, 'alice-agent'],
      [carol, 'carol-agent'],
    ] as const) {
      const client = await connectThroughOther(token);
      t.equal(
        firstText(await client.callTool({ name: 'x.whoami', arguments: {} })),
        subject,
        `${subject}'s call, forwarded, reached the upstream as ${subject}`,
      );
    }
    // Its log reaches the test on a pipe of its own, which the answers may overtake.
    await until('the other replica to log its forwards', () => forwards() > forwardsBefore).catch(() => {});
    t.ok(forwards() > forwardsBefore, 'the calls were forwarded by the other replica');
    t.equal(idp.granted[TOKEN_EXCHANGE_GRANT], exchangesBefore + 2, 'one exchange per subject, on the owner');
    const subjects = upstream.authorizations.flatMap((header) =>
      header === undefined ? [] : [String(decodeJwt(header.slice('Bearer '.length)).sub)],
    );
    t.ok(subjects.includes('alice-agent') && subjects.includes('carol-agent'), 'the upstream saw both subjects');
    for (const token of [alice, carol]) {
      t.notOk(
        upstream.authorizations.some((header) => header?.includes(token)),
        "a client's own token never reached the upstream",
      );
      t.notMatch(`${owner.log()}${other.log()}`, token, "nor either replica's log");
    }
  },
);
