// A `sessions: 'per-client'` mount (docs/isolation.md) against one client
// that opens session after session to take every upstream the mount may
// open: a client holds at most half of them, and another client still gets
// one. The host runs as a child process on HTTP with two bearer tokens.
import t from 'tap';
import type { Client } from '@modelcontextprotocol/client';
import { connectWithBearer, startHttpHost } from './helpers/host.js';
import { makeWorkspace } from './helpers/packages.js';

/** A stdio server whose `pid` tool says which child answered. */
const CHILD_SERVER = `
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
const server = new McpServer({ name: 'child', version: '1.0.0' });
server.registerTool('pid', { inputSchema: {} }, async () => ({ content: [{ type: 'text', text: String(process.pid) }] }));
await server.connect(new StdioServerTransport());
`;

t.test('one client holds at most half of a per-client mount’s upstreams: another still gets one', async (t) => {
  const ws = makeWorkspace(t);
  const script = ws.writeFile('child/server.js', CHILD_SERVER);
  const config = ws.writeConfig({
    reload: { watch: false },
    http: { port: 0, auth: { tokens: ['token-of-mallory-0123456789', 'token-of-alice-0123456789'] } },
    upstreams: { maxPerClientSessions: 4 },
    plugins: [{ command: process.execPath, args: [script], prefix: 'child', sessions: 'per-client' }],
  });
  const host = await startHttpHost(t, config);
  const session = (token: string) => connectWithBearer(t, host.url, token, 'per-client-attack');
  const pid = (client: Client) => client.callTool({ name: 'child.pid', arguments: {} });
  const mallory = [await session('token-of-mallory-0123456789'), await session('token-of-mallory-0123456789')];
  for (const client of mallory) t.notOk((await pid(client)).isError, 'mallory’s session gets a child');
  const third = await session('token-of-mallory-0123456789');
  await t.rejects(pid(third), {
    message: `has 2 of its 4 upstreams (upstreams.maxPerClientSessions, with sessions: 'per-client') open for sessions of token-11d9eef1, the most one client may hold (half, so that one client cannot take them all), so HTTP session`,
  });
  await t.rejects(pid(third), {
    message:
      'Fix: end sessions of token-11d9eef1 no longer used (DELETE with their Mcp-Session-Id), or raise upstreams.maxPerClientSessions in the host config.',
  });
  // Without the share, mallory's third and fourth sessions would take the last two, and alice would get none.
  await t.rejects(pid(await session('token-of-mallory-0123456789')), { message: 'the most one client may hold' });
  const alice = await session('token-of-alice-0123456789');
  t.notOk((await pid(alice)).isError, 'alice, another client, still gets a child of her own');
});
