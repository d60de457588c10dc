// The hot path (host/proxy/hot-path.ts) over Streamable HTTP: a 2025-era
// session's tools/call, prompts/get and resources/read skip the front
// server's SDK dispatch, and each guarantee the SDK path gave them over
// HTTP is asserted here: the host as a child process serving HTTP on
// 127.0.0.1, the SDK's Client, real plugin packages. (Curation, limits,
// result checks and error codes are routing's, the same over either
// transport: test/hot-path.test.ts holds them; forwarded headers and a
// plugin closing its call's stream are held by forward-headers.test.ts and
// resumable-streams.test.ts, whose calls take this path too.)
import t from 'tap';
import { Client, StreamableHTTPClientTransport, type LoggingMessageNotification } from '@modelcontextprotocol/client';
import { makeWorkspace } from './helpers/packages.js';
import { eventually, startHttpHost } from './helpers/host.js';
import { firstText } from './helpers/results.js';

/** A v2 plugin whose tools exercise what travels with a call. */
const KIT = `import { McpServer } from '@modelcontextprotocol/server';
let aborted = 0;
let waiting = 0;
export default {
  create() {
    const server = new McpServer({ name: 'kit', version: '1.0.0' }, { capabilities: { logging: {} } });
    server.registerTool('wait', { description: 'Waits until cancelled' }, (ctx) => {
      waiting++;
      return new Promise((resolve) => ctx.mcpReq.signal.addEventListener('abort', () => { aborted++; resolve({ content: [] }); }));
    });
    server.registerTool('waiting', { description: 'How many calls to wait arrived' }, async () => ({
      content: [{ type: 'text', text: String(waiting) }],
    }));
    server.registerTool('aborted', { description: 'How many calls were cancelled' }, async () => ({
      content: [{ type: 'text', text: String(aborted) }],
    }));
    server.registerTool('chatty', { description: 'Reports progress and logs at two levels' }, async (ctx) => {
      const progressToken = ctx.mcpReq._meta?.progressToken;
      if (progressToken !== undefined) {
        await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress: 1, total: 1 } });
      }
      await ctx.mcpReq.log('info', 'quiet');
      await ctx.mcpReq.log('error', 'loud');
      return { content: [{ type: 'text', text: 'done' }] };
    });
    server.registerTool('ask', { description: 'Asks the user a name' }, async (ctx) => {
      const answer = await ctx.mcpReq.elicitInput({
        message: 'Your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
      });
      return { content: [{ type: 'text', text: String(answer.content?.name) }] };
    });
    server.registerPrompt('greet', { description: 'A greeting' }, async () => ({
      messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }],
    }));
    server.registerResource('note', 'kit://note', {}, async (uri) => ({ contents: [{ uri: uri.href, text: 'a note' }] }));
    return server;
  },
};
`;

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

t.test('calls, prompts and reads over a 2025-era HTTP session keep every guarantee on the hot path', async (t) => {
  const ws = makeWorkspace(t);
  ws.writePackage(
    'node_modules/kit',
    { name: 'kit', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': {} },
    { 'index.js': KIT },
  );
  const config = ws.writeConfig({
    reload: { watch: false },
    // Fewer revisions than the SDK speaks: the session's transport must be told them, through the hot path's wrapper.
    protocolVersions: ['2025-06-18', '2025-11-25'],
    plugins: [{ package: 'kit', prefix: 'kit' }],
  });
  const host = await startHttpHost(t, config);
  const client = new Client({ name: 'hot-http', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  const transport = new StreamableHTTPClientTransport(new URL(host.url));
  await client.connect(transport);
  t.teardown(() => client.close());
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'ada' } }));
  const session = {
    ...MCP_HEADERS,
    'mcp-session-id': transport.sessionId!,
    'mcp-protocol-version': client.getNegotiatedProtocolVersion()!,
  };
  /** A raw POST on the session: its answer's body, the call's own SSE stream, read whole. */
  const post = async (id: number, method: string, params: object, headers: Record<string, string> = session) => {
    const response = await fetch(host.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    });
    return { status: response.status, body: await response.text() };
  };

  const pluginHasWaiting = (calls: number) =>
    eventually(
      `the plugin to have ${calls} call(s) to wait`,
      async () => firstText(await client.callTool({ name: 'kit.waiting' })) === String(calls),
    );

  await t.test('the plugin answers, under its served name', async (t) => {
    t.equal(firstText(await client.callTool({ name: 'kit.aborted' })), '0');
    const prompt = await client.getPrompt({ name: 'kit.greet' });
    t.same(prompt.messages[0]?.content, { type: 'text', text: 'hello' });
    const read = await client.readResource({ uri: 'kit://note' });
    t.same(read.contents, [{ uri: 'kit://note', text: 'a note' }]);
  });

  await t.test("progress and log messages (at the level the client set) travel on the call's own stream", async (t) => {
    await client.setLoggingLevel('error');
    const { status, body } = await post(101, 'tools/call', { name: 'kit.chatty', _meta: { progressToken: 'p1' } });
    t.equal(status, 200);
    const events = body
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice('data: '.length)) as { method?: string; id?: number; params?: object });
    t.match(
      events,
      [
        { method: 'notifications/progress', params: { progressToken: 'p1', progress: 1 } },
        { method: 'notifications/message', params: { level: 'error', data: 'loud' } },
        { id: 101, result: { content: [{ type: 'text', text: 'done' }] } },
      ],
      'the call\'s stream carries its progress, its log message at "error" and then its answer',
    );
    t.equal(events.length, 3, 'the "info" message is below the level set, and not sent');

    // A level MCP does not have is the SDK's to refuse, and leaves the level set as it was.
    const refused = await post(104, 'logging/setLevel', { level: 'loudest' });
    t.match(refused.body, /"id":104,"error":\{"code":-32603,"message":".*invalid_value.*emergency/);
    const again = await post(105, 'tools/call', { name: 'kit.chatty' });
    t.notMatch(again.body, /"data":"quiet"/, 'still at "error"');
    t.match(again.body, /"data":"loud"/);
  });

  await t.test('the SDK client gets the log messages the level admits', async (t) => {
    const logged: unknown[] = [];
    client.setNotificationHandler(
      'notifications/message',
      (n: LoggingMessageNotification) => void logged.push(n.params.data),
    );
    await client.setLoggingLevel('info');
    t.equal(firstText(await client.callTool({ name: 'kit.chatty' })), 'done');
    t.same(logged, ['quiet', 'loud']);
  });

  await t.test("a plugin's question mid-call reaches the client and its answer the plugin", async (t) => {
    t.equal(firstText(await client.callTool({ name: 'kit.ask' })), 'ada');
  });

  await t.test('a cancelled call is cancelled in the plugin', async (t) => {
    const controller = new AbortController();
    const call = client.callTool({ name: 'kit.wait' }, { signal: controller.signal });
    // Cancelled once the plugin has the call: over HTTP the cancellation is a POST of its own, which could overtake it.
    await pluginHasWaiting(1);
    controller.abort('changed my mind');
    await t.rejects(call);
    await eventually(
      'the plugin saw the cancellation',
      async () => firstText(await client.callTool({ name: 'kit.aborted' })) === '1',
    );
  });

  await t.test('a client that drops the POST carrying a call cancels it in the plugin', async (t) => {
    const dropped = new AbortController();
    const call = fetch(host.url, {
      method: 'POST',
      headers: session,
      body: JSON.stringify({ jsonrpc: '2.0', id: 102, method: 'tools/call', params: { name: 'kit.wait' } }),
      signal: dropped.signal,
    });
    // Dropped once the plugin has the call: the host may answer with its stream before the call reaches the plugin.
    const response = await call;
    t.equal(response.status, 200);
    await pluginHasWaiting(2);
    dropped.abort();
    await eventually(
      'the plugin saw the disconnection as a cancellation',
      async () => firstText(await client.callTool({ name: 'kit.aborted' })) === '2',
    );
  });

  await t.test('a revision the host does not serve is refused, naming the versions it does', async (t) => {
    const { status, body } = await post(
      103,
      'tools/call',
      { name: 'kit.aborted' },
      {
        ...session,
        'mcp-protocol-version': '2025-03-26',
      },
    );
    t.equal(status, 400);
    t.match(body, /Unsupported protocol version: 2025-03-26 \(supported versions: 2025-06-18, 2025-11-25\)/);
  });
});
