// The hot path (host/proxy/hot-path.ts): a 2025-era client's tools/call,
// prompts/get and resources/read over stdio are served without the front
// server's SDK dispatch. Each guarantee the SDK path gave them is asserted
// here through that path: the host as a child process on stdio, the SDK's
// Client (2025-era, as it connects by default), real plugin packages.
import t from 'tap';
import { ProtocolError, type JSONRPCMessage, type LoggingMessageNotification } from '@modelcontextprotocol/client';
import { makeWorkspace } from './helpers/packages.js';
import { eventually, startStdioHost } from './helpers/host.js';
import { firstText } from './helpers/results.js';
import { progressOnTheWire } from './helpers/wire-progress.js';

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
    server.registerTool('progress', { description: 'Reports progress twice' }, async (ctx) => {
      const progressToken = ctx.mcpReq._meta?.progressToken;
      // Spaced, as a real tool's progress is (the test reads it off the wire: helpers/wire-progress.ts).
      for (const progress of [1, 2]) {
        await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, total: 2 } });
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return { content: [{ type: 'text', text: 'done' }] };
    });
    server.registerTool('log', { description: 'Logs at two levels' }, async (ctx) => {
      await ctx.mcpReq.log('info', 'quiet');
      await ctx.mcpReq.log('error', 'loud');
      return { content: [{ type: 'text', text: 'logged' }] };
    });
    server.registerTool('ask', { description: 'Asks the user a name' }, async (ctx) => {
      const answer = await ctx.mcpReq.elicitInput({
        message: 'Your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
      });
      return { content: [{ type: 'text', text: String(answer.content?.name) }] };
    });
    server.registerTool('big', { description: 'Answers more than its limit' }, async () => ({
      content: [{ type: 'text', text: 'x'.repeat(5000) }],
    }));
    server.registerTool('hidden', { description: 'Curated out' }, async () => ({ content: [] }));
    server.registerPrompt('greet', { description: 'A greeting' }, async () => ({
      messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }],
    }));
    server.registerResource('note', 'kit://note', {}, async (uri) => ({ contents: [{ uri: uri.href, text: 'a note' }] }));
    return server;
  },
};
`;

/**
 * A hand-written server (no SDK): its answers are what the host must check
 * and complete itself, as it would a child's or a remote's.
 */
const RAW = `export default {
  create() {
    return {
      async connect(transport) {
        const answer = (id, body) => transport.send({ jsonrpc: '2.0', id, ...body });
        transport.onmessage = (message) => {
          if (!('id' in message) || !('method' in message)) return;
          if (message.method === 'initialize') {
            return answer(message.id, { result: {
              protocolVersion: message.params.protocolVersion,
              capabilities: { tools: {}, resources: {} },
              serverInfo: { name: 'raw', version: '1.0.0' },
            } });
          }
          if (message.method === 'tools/list') {
            return answer(message.id, { result: { tools: ['structured', 'malformed', 'changing'].map((name) => ({ name, inputSchema: { type: 'object' } })) } });
          }
          if (message.method === 'resources/list') return answer(message.id, { result: { resources: [] } });
          if (message.method === 'resources/templates/list') return answer(message.id, { result: { resourceTemplates: [] } });
          if (message.method === 'resources/read') {
            return answer(message.id, { error: { code: -32002, message: 'Resource not found', data: { uri: message.params.uri } } });
          }
          if (message.method === 'tools/call' && message.params.name === 'structured') {
            return answer(message.id, { result: { structuredContent: { n: 1 } } });
          }
          if (message.method === 'tools/call' && message.params.name === 'changing') {
            // The result is changed after it is answered, \`after\` microtasks later: malformed, and 100 KB.
            const result = { content: [{ type: 'text', text: 'as answered' }] };
            answer(message.id, { result });
            let left = message.params.arguments.after;
            const change = () => (left-- > 0 ? queueMicrotask(change) : (result.content = 'x'.repeat(100000)));
            return change();
          }
          if (message.method === 'tools/call') return answer(message.id, { result: { content: 'not a list' } });
          answer(message.id, { error: { code: -32601, message: 'Method not found' } });
        };
        await transport.start();
      },
      async close() {},
    };
  },
};
`;

function workspace(t: Parameters<typeof makeWorkspace>[0]) {
  const ws = makeWorkspace(t);
  ws.writePackage(
    'node_modules/kit',
    { name: 'kit', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': {} },
    {
      'index.js': KIT,
    },
  );
  ws.writePackage(
    'node_modules/raw',
    { name: 'raw', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': {} },
    {
      'index.js': RAW,
    },
  );
  return ws.writeConfig({
    plugins: [
      { package: 'kit', prefix: 'kit', maxResultBytes: 2000, tools: { exclude: ['hidden'] } },
      { package: 'raw', prefix: 'raw' },
    ],
  });
}

t.test('calls, prompts and reads keep every guarantee on the hot path', async (t) => {
  const config = workspace(t);
  const host = await startStdioHost(t, config, { clientOptions: { capabilities: { elicitation: { form: {} } } } });
  const { client } = host;
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'ada' } }));

  await t.test("progress reaches the client under the client's own token", async (t) => {
    const wire = progressOnTheWire(host.transport);
    const result = await client.callTool({ name: 'kit.progress' }, { onprogress: () => {} });
    t.equal(firstText(result), 'done');
    t.same(wire.take(), [1, 2]);
  });

  await t.test('the plugin answers, under its served name', async (t) => {
    t.equal(firstText(await client.callTool({ name: 'kit.aborted' })), '0');
    const prompt = await client.getPrompt({ name: 'kit.greet' });
    t.same(prompt.messages[0]?.content, { type: 'text', text: 'hello' });
    const read = await client.readResource({ uri: 'kit://note' });
    t.same(read.contents, [{ uri: 'kit://note', text: 'a note' }]);
  });

  await t.test('curation: a tool the entry excludes does not exist', async (t) => {
    await t.rejects(client.callTool({ name: 'kit.hidden' }), {
      message: /Unknown tool "kit.hidden": no mounted plugin serves it. Fix: use a name from tools\/list/,
    });
  });

  await t.test("limits: a result over the entry's maxResultBytes is refused naming the plugin", async (t) => {
    await t.rejects(client.callTool({ name: 'kit.big' }), {
      message: /plugin "kit".*over its limit of 2000 bytes/,
    });
  });

  await t.test(
    'result checks: a malformed result is refused naming the plugin, a content-less one completed',
    async (t) => {
      await t.rejects(client.callTool({ name: 'raw.malformed' }), {
        message: /plugin "raw".*not a valid MCP CallToolResult: content/,
      });
      const structured = await client.callTool({ name: 'raw.structured' });
      t.same(structured, { structuredContent: { n: 1 }, content: [] });
    },
  );

  await t.test(
    'what the client is sent is the result the host checked, though the plugin changes it afterwards',
    async (t) => {
      // However many microtasks later an in-process plugin changes the result it answered with, the client gets
      // either the result as it was checked, or, when the change came before the check, the check's refusal.
      const outcomes = new Set<string>();
      for (let after = 0; after <= 30; after++) {
        const outcome = await client.callTool({ name: 'raw.changing', arguments: { after } }).then(
          (result) => `answered ${JSON.stringify(result.content)}`,
          (error: unknown) => `refused: ${(error as Error).message}`,
        );
        outcomes.add(outcome.replace(/plugin "raw".*not a valid MCP CallToolResult: content.*/, 'not valid'));
      }
      t.same([...outcomes].sort(), ['answered [{"type":"text","text":"as answered"}]', 'refused: not valid']);
    },
  );

  await t.test('errors keep their code: "not found" reaches a 2025-era client as -32602 naming the URI', async (t) => {
    const error = await client.readResource({ uri: 'raw://missing' }).catch((thrown: unknown) => thrown);
    t.ok(error instanceof ProtocolError, String(error));
    t.equal((error as ProtocolError).code, -32602);
    t.same((error as ProtocolError).data, { uri: 'raw://missing' });
  });

  await t.test('log messages reach the client at the level it set', async (t) => {
    const logged: unknown[] = [];
    client.setNotificationHandler(
      'notifications/message',
      (n: LoggingMessageNotification) => void logged.push(n.params.data),
    );
    await client.setLoggingLevel('error');
    t.equal(firstText(await client.callTool({ name: 'kit.log' })), 'logged');
    t.same(logged, ['loud']);
  });

  await t.test("a plugin's question mid-call reaches the client and its answer the plugin", async (t) => {
    t.equal(firstText(await client.callTool({ name: 'kit.ask' })), 'ada');
  });

  await t.test('cancelling a call cancels it in the plugin, and it is not answered', async (t) => {
    const controller = new AbortController();
    const call = client.callTool({ name: 'kit.wait' }, { signal: controller.signal });
    // Cancelled once the plugin has the call: a cancel that overtakes its call is the host's alone to drop.
    await eventually(
      'the plugin to have the call',
      async () => firstText(await client.callTool({ name: 'kit.waiting' })) === '1',
    );
    controller.abort('changed my mind');
    await t.rejects(call);
    // The cancellation reaches the plugin after the client's rejection: waited for (EVENT_MS), not for 50 tries.
    let count = '';
    await eventually('the plugin to see the cancellation', async () => {
      count = firstText(await client.callTool({ name: 'kit.aborted' }));
      return count === '1';
    }).catch(() => {});
    t.equal(count, '1', 'the plugin saw the cancellation');
    // A cancellation naming no call in flight (or none at all) changes nothing.
    await host.transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'nobody' } });
    await host.transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: {} });
    t.equal(firstText(await client.callTool({ name: 'kit.aborted' })), '1');
  });
});

t.test(
  'a prompt no plugin provides is refused as unknown, prompts being offered before any plugin has one',
  async (t) => {
    const ws = makeWorkspace(t);
    ws.writePackage(
      'node_modules/raw',
      { name: 'raw', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': {} },
      {
        'index.js': RAW,
      },
    );
    const host = await startStdioHost(t, ws.writeConfig({ plugins: [{ package: 'raw', prefix: 'raw' }] }));
    // Era fidelity: tools, prompts and resources are always offered (a reload may add the first), so the
    // request is served and refused as the front server refuses an unknown prompt, not "Method not found".
    t.same(host.client.getServerCapabilities()?.prompts, { listChanged: true });
    const error = await host.client.getPrompt({ name: 'raw.none' }).catch((thrown: unknown) => thrown);
    t.equal((error as ProtocolError).code, -32602, String(error));
    t.match((error as ProtocolError).message, /Unknown prompt "raw\.none": no mounted plugin serves it/);
    t.same(await host.client.callTool({ name: 'raw.structured' }), { structuredContent: { n: 1 }, content: [] });
  },
);

t.test("malformed params are the SDK front server's to refuse, naming the field", async (t) => {
  const host = await startStdioHost(t, workspace(t));
  const answers = new Map<string, { error?: { code: number; message: string } }>();
  const clientSide = host.transport.onmessage;
  host.transport.onmessage = (message: JSONRPCMessage) => {
    if ('id' in message && typeof message.id === 'string' && message.id.startsWith('raw-')) {
      answers.set(message.id, message as never);
    } else clientSide?.(message);
  };
  const malformed = {
    'raw-arguments': { method: 'tools/call', params: { name: 'kit.aborted', arguments: 5 } },
    'raw-prompt': { method: 'prompts/get', params: { name: 'kit.greet', arguments: { n: 1 } } },
    'raw-uri': { method: 'resources/read', params: {} },
    // Not malformed, but a task's to run: the SDK's (the host runs no tasks).
    'raw-task': { method: 'tools/call', params: { name: 'kit.aborted', task: { ttl: 1000 } } },
  };
  for (const [id, request] of Object.entries(malformed)) {
    await host.transport.send({ jsonrpc: '2.0', id, ...request } as JSONRPCMessage);
  }
  await host.until('every malformed request answered', () => answers.size === Object.keys(malformed).length);
  t.match(answers.get('raw-task'), { jsonrpc: '2.0', id: 'raw-task' }, 'a task-augmented call is answered');
  for (const [id, field] of [
    ['raw-arguments', 'arguments'],
    ['raw-prompt', 'arguments'],
    ['raw-uri', 'uri'],
  ] as const) {
    const { error } = answers.get(id)!;
    // The SDK's own refusal: the schema's issues, with the path of the field.
    t.match(error?.message, new RegExp(`"path": \\[\\s*"params",\\s*"${field}"`), `${id} names ${field}`);
  }
});
