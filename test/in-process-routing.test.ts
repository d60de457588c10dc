// What a plugin sends while serving a call, routed by the in-process link and
// the upstream peer to the call that caused it. Real parts: the conformance
// plugin (and a small v2 server) connected over the link to the host's peer,
// each call with the hooks a client session would give it. The SDK helpers
// plugins use (`ctx.mcpReq.elicitInput`, `server.sendLoggingMessage`) do not
// name the request they serve; the link's async context does.
import t from 'tap';
import conformancePlugin from '@mcp-host/conformance';
import { McpServer, type JSONRPCNotification } from '@modelcontextprotocol/server';
import type { CallHooks } from '../host/vocabulary/call-hooks.js';
import { linkedPeer } from './helpers/linked-peer.js';
import { firstText } from './helpers/results.js';

/** The hooks of one client's call: it answers elicitations as `who`, and records what reached it. */
function session(who: string) {
  const asked: string[] = [];
  const notified: JSONRPCNotification[] = [];
  const hooks: CallHooks = {
    onRequest: async (request) => {
      asked.push(String(request.params?.message));
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { action: 'accept', content: { username: who, email: `${who}@example.com` } };
    },
    onNotification: (notification) => void notified.push(notification),
  };
  return { asked, notified, hooks };
}

t.test('concurrent elicitations each reach the call that caused them', async (t) => {
  const { peer } = await linkedPeer(t, conformancePlugin.create({}));
  const alice = session('alice');
  const bob = session('bob');
  const [forAlice, forBob] = await Promise.all([
    peer.request('tools/call', { name: 'test_elicitation', arguments: { message: 'for alice' } }, alice.hooks),
    peer.request('tools/call', { name: 'test_elicitation', arguments: { message: 'for bob' } }, bob.hooks),
  ]);
  t.same(alice.asked, ['for alice']);
  t.same(bob.asked, ['for bob']);
  t.equal(
    firstText(forAlice),
    'User response: action=accept, content={"username":"alice","email":"alice@example.com"}',
  );
  t.equal(firstText(forBob), 'User response: action=accept, content={"username":"bob","email":"bob@example.com"}');
});

t.test('a log message sent during a call reaches that call; a catalogue change reaches every session', async (t) => {
  const server = new McpServer({ name: 'grower', version: '1.0.0' }, { capabilities: { logging: {} } });
  server.registerTool('grow', { description: 'Logs, then registers another tool' }, async () => {
    await server.server.sendLoggingMessage({ level: 'info', data: 'growing' });
    server.registerTool('grown', { description: 'Added during a call' }, async () => ({ content: [] }));
    return { content: [{ type: 'text', text: 'grown' }] };
  });
  const { peer, mountWide } = await linkedPeer(t, server);
  const caller = session('caller');
  const bystander = session('bystander');
  await Promise.all([
    peer.request('tools/call', { name: 'grow', arguments: {} }, caller.hooks),
    peer.request('tools/list', {}, bystander.hooks),
  ]);
  // A round trip after both calls: whatever the plugin sent before its answer to it has arrived.
  await peer.request('ping', {});
  t.same(
    caller.notified.map((n) => [n.method, n.params?.data]),
    [['notifications/message', 'growing']],
  );
  t.same(bystander.notified, [], 'another call in flight hears nothing of it');
  t.same(
    mountWide.map((n) => n.method),
    ['notifications/tools/list_changed'],
    'the list change goes to the runtime, for every session',
  );
});

t.test('a hook that throws instead of rejecting becomes the plugin’s error answer', async (t) => {
  const { peer } = await linkedPeer(t, conformancePlugin.create({}));
  const result = await peer.request(
    'tools/call',
    { name: 'test_sampling', arguments: { prompt: 'hi' } },
    {
      onRequest: () => {
        throw new Error('this client cannot be asked for sampling');
      },
    },
  );
  t.match(result, { isError: true, content: [{ type: 'text', text: /this client cannot be asked for sampling/ }] });
  t.match(await peer.request('tools/call', { name: 'test_simple_text', arguments: {} }), {
    content: [{ text: 'This is a simple text response for testing.' }],
  });
});
