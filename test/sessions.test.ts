/**
 * Two clients sharing one plugin instance through the host, over HTTP
 * sessions: what one session causes or asks for stays with that session.
 */
import t, { type Test } from 'tap';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { makeWorkspace } from './helpers/packages.js';
import { assertLogged, startHttpHost, until } from './helpers/host.js';

const SHARED = `
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

export default {
  create() {
    const server = new McpServer(
      { name: 'shared', version: '1.0.0' },
      { capabilities: { logging: {}, resources: { subscribe: true } } },
    );
    server.registerTool('ask', { inputSchema: z.object({ who: z.string() }) }, async ({ who }, ctx) => {
      const answer = await ctx.mcpReq.elicitInput({
        message: 'name for ' + who + '?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
      });
      return { content: [{ type: 'text', text: answer.action + ':' + answer.content?.name }] };
    });
    server.registerTool('chatter', {}, async (ctx) => {
      await ctx.mcpReq.log('info', 'an info line');
      await ctx.mcpReq.log('error', 'an error line');
      return { content: [] };
    });
    server.registerTool('announce', {}, async () => {
      // Not tied to any call: no session hears it (it could carry another's data); the host logs it.
      setTimeout(() => {
        void server.sendLoggingMessage({ level: 'info', data: 'an announcement' });
        void server.sendLoggingMessage({ level: 'error', data: 'an alarm' });
      }, 10);
      return { content: [] };
    });
    server.registerTool('touch', { inputSchema: z.object({ uri: z.string() }) }, async ({ uri }) => {
      await server.server.sendResourceUpdated({ uri });
      return { content: [] };
    });
    server.registerResource('watched', 'doc://watched', {}, async (uri) => ({ contents: [{ uri: uri.href, text: 'w' }] }));
    server.registerResource('other', 'doc://other', {}, async (uri) => ({ contents: [{ uri: uri.href, text: 'o' }] }));
    server.registerResource('marker', 'doc://marker', {}, async (uri) => ({ contents: [{ uri: uri.href, text: 'm' }] }));
    server.server.setRequestHandler('resources/subscribe', async () => ({}));
    server.server.setRequestHandler('resources/unsubscribe', async () => ({}));
    return server;
  },
};
`;

interface Session {
  client: Client;
  asked: string[];
  logs: string[];
  updates: string[];
}

async function session(t: Test, url: string, name: string): Promise<Session> {
  const client = new Client({ name, version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  const state: Session = { client, asked: [], logs: [], updates: [] };
  client.setRequestHandler('elicitation/create', async (request) => {
    state.asked.push(String(request.params.message));
    return { action: 'accept', content: { name } };
  });
  client.setNotificationHandler('notifications/message', (n) => void state.logs.push(String(n.params.data)));
  client.setNotificationHandler('notifications/resources/updated', (n) => void state.updates.push(n.params.uri));
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  t.teardown(() => client.close());
  return state;
}

/**
 * Settle both sessions' notification streams: each subscribes to
 * doc://marker, the plugin updates it, and once each session has heard that
 * update, whatever the host sent before it on that stream has arrived too,
 * so "heard once" and "heard nothing" can be asserted. The marker's own
 * updates are taken out of `updates` again.
 */
async function settled(...sessions: Session[]): Promise<void> {
  for (const { client } of sessions) await client.subscribeResource({ uri: 'doc://marker' });
  await sessions[0]!.client.callTool({ name: 'touch', arguments: { uri: 'doc://marker' } });
  await until('the marker update on every session', () => sessions.every((s) => s.updates.includes('doc://marker')));
  for (const s of sessions) {
    await s.client.unsubscribeResource({ uri: 'doc://marker' });
    s.updates.splice(s.updates.indexOf('doc://marker'), 1);
  }
}

t.test('two sessions on one shared plugin', async (t) => {
  const ws = makeWorkspace(t);
  ws.writePackage(
    'node_modules/@t/shared',
    { name: '@t/shared', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': {} },
    { 'index.js': SHARED },
  );
  const host = await startHttpHost(t, ws.writeConfig({ plugins: [{ package: '@t/shared', flat: true }] }));
  const alice = await session(t, host.url, 'alice');
  const bob = await session(t, host.url, 'bob');

  t.test('an elicitation reaches the caller only, and its answer returns', async (t) => {
    const [a, b] = await Promise.all([
      alice.client.callTool({ name: 'ask', arguments: { who: 'a' } }),
      bob.client.callTool({ name: 'ask', arguments: { who: 'b' } }),
    ]);
    t.same(a.content, [{ type: 'text', text: 'accept:alice' }]);
    t.same(b.content, [{ type: 'text', text: 'accept:bob' }]);
    t.same(alice.asked, ['name for a?']);
    t.same(bob.asked, ['name for b?']);
  });

  t.test("each session gets its calls' log messages at the level it set, and no one else's", async (t) => {
    await alice.client.setLoggingLevel('error');
    await bob.client.setLoggingLevel('debug');
    alice.logs.length = bob.logs.length = 0;
    await alice.client.callTool({ name: 'chatter', arguments: {} });
    await bob.client.callTool({ name: 'chatter', arguments: {} });
    await until('the call logs', () => alice.logs.length >= 1 && bob.logs.length >= 2);
    t.same(alice.logs, ['an error line'], "a call's logs go to its caller, filtered by the caller's level");
    t.same(bob.logs, ['an info line', 'an error line']);
    alice.logs.length = bob.logs.length = 0;
    await alice.client.callTool({ name: 'announce', arguments: {} });
    await until('the announcement in the host log', () => /"data":"an alarm"/.test(host.log()));
    await bob.client.callTool({ name: 'chatter', arguments: {} });
    await until("bob's own call's logs, after it", () => bob.logs.length >= 2);
    await settled(alice, bob);
    t.same(alice.logs, [], 'a log tied to no call reaches no session');
    t.same(bob.logs, ['an info line', 'an error line'], 'only its own call reached bob');
    await assertLogged(
      t,
      host.log,
      /"data":"an announcement".*log message from the plugin, tied to no single client session/,
    );
  });

  t.test('a resource update reaches only the sessions subscribed to it', async (t) => {
    await alice.client.subscribeResource({ uri: 'doc://watched' });
    await bob.client.subscribeResource({ uri: 'doc://other' });
    await bob.client.callTool({ name: 'touch', arguments: { uri: 'doc://watched' } });
    await until('the update', () => alice.updates.length > 0);
    await settled(alice, bob);
    t.same(alice.updates, ['doc://watched'], 'heard once');
    t.same(bob.updates, [], 'bob did not subscribe to doc://watched');
    await alice.client.unsubscribeResource({ uri: 'doc://watched' });
    await bob.client.callTool({ name: 'touch', arguments: { uri: 'doc://watched' } });
    await settled(alice, bob);
    t.same(alice.updates, ['doc://watched'], 'no update after unsubscribing');
    t.same(bob.updates, [], 'nor to bob');
  });
});
