// OAuth identities across a cluster (DESIGN.md, "Identity and access" and
// "Scale"): a legacy session opened on one replica with an access token, and
// a request for it sent to another replica, which forwards it to the owner.
// The owner must serve it for the same identity the forwarding replica
// verified (carried in the signed forwarding stamp, never the token), and a
// request with another identity's token is answered as for no session.
// Two real replicas, a real Redis, a real OpenID provider.
import t from 'tap';
import { makeWorkspace } from './helpers/packages.js';
import { assertLogged, until } from './helpers/host.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { alternating, answering, modernClient, startCluster } from './helpers/cluster.js';
import { firstText } from './helpers/results.js';
import { startOpenIdProvider } from './helpers/openid-provider.js';

const AUDIENCE = 'https://mcp.cluster.test/mcp';
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

t.test(
  'a request forwarded to the replica holding its session is served for the identity the first one verified',
  async (t) => {
    const idp = await startOpenIdProvider(t);
    const ws = makeWorkspace(t);
    const cluster = await startCluster(t, ws, {
      config: { http: { port: 0, oauth: { issuer: idp.issuer, audience: AUDIENCE, scopes: ['mcp'] } } },
      env: { MCP_HOST_HTTP_TOKENS: undefined },
    });
    const [owner, other] = cluster.replicas as [(typeof cluster.replicas)[0], (typeof cluster.replicas)[0]];
    const alice = await idp.token('alice-agent', { scope: 'mcp notes', resource: AUDIENCE });

    const send = (url: string, token: string, body: object, session?: string) =>
      fetch(url, {
        method: 'POST',
        headers: {
          ...HEADERS,
          authorization: `Bearer ${token}`,
          ...(session && { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }),
        },
        body: JSON.stringify({ jsonrpc: '2.0', ...body }),
      });
    const opened = await send(owner.url, alice, {
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'alice', version: '1.0.0' } },
    });
    t.equal(opened.status, 200);
    const session = opened.headers.get('mcp-session-id')!;
    await opened.text();
    t.equal((await send(owner.url, alice, { method: 'notifications/initialized' }, session)).status, 202);

    const call = await send(
      other.url,
      alice,
      { id: 2, method: 'tools/call', params: { name: 'r.whoami', arguments: {} } },
      session,
    );
    t.equal(call.status, 200, 'the other replica forwarded the call to the owner');
    t.match(await call.text(), /"result"/);
    await assertLogged(
      t,
      owner.log,
      /"identity":\{"kind":"user","name":"alice-agent","sub":"alice-agent","client_id":"alice-agent"\}/,
      'the owner served it for alice, as the forwarding replica verified her',
    );
    t.notMatch(owner.log(), alice, "the token never reached the owner's log");

    // Another identity's valid token on alice's session, through the other replica: no such session for it.
    const carol = await idp.token('carol-agent', { scope: 'mcp', resource: AUDIENCE });
    const refused = await send(other.url, carol, { id: 3, method: 'tools/list' }, session);
    t.equal(refused.status, 404, "carol's token on alice's session: the owner answers as for no session");
    t.match(await refused.text(), /Session not found/);
    const again = await idp.token('alice-agent', { scope: 'mcp', resource: AUDIENCE });
    const listed = await send(other.url, again, { id: 4, method: 'tools/list' }, session);
    t.equal(listed.status, 200, "alice's second token reaches her session through the other replica");
    await listed.text();

    // A 2026-07-28 call whose retries alternate replicas: the retry that lands on the other replica is
    // forwarded to the one holding the call, with alice's identity, and served for her there.
    const modern = modernClient();
    answering(modern);
    await modern.connect(
      new StreamableHTTPClientTransport(new URL(owner.url), {
        fetch: alternating([owner.url, other.url]),
        requestInit: { headers: { authorization: `Bearer ${alice}` } },
      }),
    );
    t.teardown(() => modern.close());
    const forwards = () => `${owner.log()}${other.log()}`.match(/forwarded a POST to replica/g)?.length ?? 0;
    const before = forwards();
    const aliceLine = /"identity":\{"kind":"user","name":"alice-agent"/g;
    const forAlice = () => `${owner.log()}${other.log()}`.match(aliceLine)?.length ?? 0;
    const aliceBefore = forAlice();
    t.match(firstText(await modern.callTool({ name: 'r.ask_twice', arguments: {} })), /^first! then second!/);
    // The replicas log asynchronously: the forward's line may come a little after the answer.
    await until('the retry that reached the other replica to be forwarded to the holder', () => forwards() > before);
    t.pass('a retry was forwarded to the replica holding the call');
    await until('the call and its two retries to be served for alice', () => forAlice() >= aliceBefore + 3);
    t.pass('the call and both retries, the forwarded one too, were served for alice');
    for (const replica of [owner, other]) {
      t.notMatch(replica.log(), /"identity":\{"kind":"anonymous"/, 'no handler served anyone but alice');
    }
  },
);
