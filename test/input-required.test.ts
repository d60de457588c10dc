// A plugin that asks its client something mid-call (elicitation, sampling),
// reached by a 2026-07-28 client through `mcp-host start`: that revision has
// no server-to-client requests, so the host answers with an input-required
// result carrying the plugin's question, keeps the plugin's call running, and
// hands the answers of the client's retry to the plugin. Real parts: the host
// as a child process (stdio and HTTP), the SDK's own Client (its
// auto-fulfilment, and its manual mode for the wire shapes and error paths),
// v2 and v1 plugins on disk. Also: a tool whose output schema has a non-object
// root shows it unwrapped to a 2026-07-28 client, wrapped to a 2025-era one.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { Client, StreamableHTTPClientTransport, type ClientOptions } from '@modelcontextprotocol/client';
import { startHttpHost, startStdioHost, until } from './helpers/host.js';
import { makeWorkspace, type Workspace } from './helpers/packages.js';
import { firstText } from './helpers/results.js';

type Result = Record<string, unknown>;

const MODERN = '2026-07-28';

/** SDK v2: asks with the push-style helpers, and with an `inputRequired` return. */
const ASKER_V2 = `
import { appendFileSync } from 'node:fs';
import { McpServer, acceptedContent, inputRequired } from '@modelcontextprotocol/server';
import { z } from 'zod';

const NAME = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
const said = (answer) => answer.action + ':' + (answer.content?.name ?? '-');
const text = (value) => ({ content: [{ type: 'text', text: value }] });

export default {
  create({ options }) {
    const server = new McpServer({ name: 'asker', version: '1.0.0' });
    const ask = (ctx, message) => ctx.mcpReq.elicitInput({ message, requestedSchema: NAME });
    const progress = (ctx, value) =>
      ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: ctx.mcpReq._meta?.progressToken, progress: value } });

    server.registerTool('ask', { inputSchema: z.object({ who: z.string() }) }, async ({ who }, ctx) =>
      text('v2 ' + said(await ask(ctx, 'name for ' + who + '?'))),
    );
    server.registerTool('ask_twice', { inputSchema: z.object({}) }, async (_args, ctx) => {
      const first = await ask(ctx, 'first?');
      const second = await ask(ctx, 'second?');
      return text(said(first) + ' then ' + said(second));
    });
    server.registerTool('ask_together', { inputSchema: z.object({}) }, async (_args, ctx) => {
      const [a, b] = await Promise.all([ask(ctx, 'a?'), ask(ctx, 'b?')]);
      return text(said(a) + ' and ' + said(b));
    });
    server.registerTool('ask_returning', { inputSchema: z.object({}) }, async (_args, ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'who');
      if (!answer) {
        return inputRequired({ inputRequests: { who: inputRequired.elicit({ message: 'who (returned)?', requestedSchema: NAME }) } });
      }
      return text('returned ' + answer.name);
    });
    server.registerTool('ask_with_progress', { inputSchema: z.object({}) }, async (_args, ctx) => {
      await progress(ctx, 1);
      const answer = await ask(ctx, 'progress?');
      await progress(ctx, 2);
      return text(said(answer));
    });
    server.registerTool('ask_and_wait', { inputSchema: z.object({}) }, async (_args, ctx) => {
      ctx.mcpReq.signal.addEventListener('abort', () => appendFileSync(options.log, 'cancelled\\n'));
      return text(said(await ask(ctx, 'are you there?')));
    });
    server.registerTool('sample', { inputSchema: z.object({}) }, async (_args, ctx) => {
      try {
        const reply = await ctx.mcpReq.requestSampling({
          messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
          maxTokens: 5,
        });
        return text('sampled ' + reply.content.text);
      } catch (error) {
        return text('refused: ' + error.message);
      }
    });
    server.registerTool('ask_custom', { inputSchema: z.object({}) }, async (_args, ctx) => {
      try {
        await ctx.mcpReq.send({ method: 'acme/ask', params: {} }, z.object({}));
        return text('answered');
      } catch (error) {
        return text('refused: ' + error.message);
      }
    });
    server.registerTool('numbers', { inputSchema: z.object({}), outputSchema: z.array(z.number()) }, async () => ({
      content: [],
      structuredContent: [1, 2, 3],
    }));
    server.registerTool(
      'holder',
      { inputSchema: z.object({}), outputSchema: z.object({ result: z.array(z.number()) }) },
      async () => ({ content: [], structuredContent: { result: [4, 5] } }),
    );
    server.registerPrompt('greeting', { description: 'Asks whom to greet' }, async (ctx) => {
      const answer = await ask(ctx, 'greet whom?');
      return { messages: [{ role: 'user', content: { type: 'text', text: 'Hello, ' + answer.content.name } }] };
    });
    server.registerResource('profile', 'asker://profile', {}, async (uri, ctx) => {
      const answer = await ask(ctx, 'whose profile?');
      return { contents: [{ uri: uri.href, text: 'profile of ' + answer.content.name }] };
    });
    return server;
  },
};
`;

/** SDK v1: asks with the low-level server's helpers. */
const ASKER_V1 = `
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

export default {
  create() {
    const server = new McpServer({ name: 'asker-v1', version: '1.0.0' });
    server.registerTool('ask', { inputSchema: { who: z.string() } }, async ({ who }) => {
      const answer = await server.server.elicitInput({
        message: 'v1 name for ' + who + '?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      });
      return { content: [{ type: 'text', text: 'v1 ' + answer.action + ':' + answer.content?.name }] };
    });
    server.registerTool('sample', {}, async () => {
      const reply = await server.server.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
        maxTokens: 5,
      });
      return { content: [{ type: 'text', text: 'v1 sampled ' + reply.content.text }] };
    });
    return server;
  },
};
`;

function writeAskers(
  ws: Workspace,
  v2Entry: Record<string, unknown> = {},
  settings: Record<string, unknown> = {},
): { config: string; log: string } {
  const log = join(ws.dir, 'asker.log');
  ws.writePackage(
    'node_modules/@test/mcp-asker',
    { name: '@test/mcp-asker', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': { prefix: 'v2' } },
    { 'index.js': ASKER_V2 },
  );
  ws.writePackage(
    'node_modules/@test/mcp-asker-v1',
    {
      name: '@test/mcp-asker-v1',
      version: '1.0.0',
      type: 'module',
      exports: './index.js',
      'mcp-host': { prefix: 'v1' },
    },
    { 'index.js': ASKER_V1 },
  );
  const config = ws.writeConfig({
    plugins: [{ package: '@test/mcp-asker', options: { log }, ...v2Entry }, { package: '@test/mcp-asker-v1' }],
    reload: { watch: false },
    ...settings,
  });
  return { config, log };
}

/** A client's answers: elicitations answered with `name`, sampling with a fixed text; what was asked is kept. */
function answering(client: Client, name: string): { asked: string[] } {
  const asked: string[] = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(String(request.params.message));
    return { action: 'accept', content: { name } };
  });
  client.setRequestHandler('sampling/createMessage', async () => {
    asked.push('sampling');
    return { role: 'assistant', content: { type: 'text', text: 'a sample' }, model: 'test-model' };
  });
  return { asked };
}

function modernOptions(extra: ClientOptions = {}): ClientOptions {
  return {
    versionNegotiation: { mode: { pin: MODERN } },
    capabilities: { elicitation: { form: {} }, sampling: {} },
    ...extra,
  };
}

const call = (name: string, args: Result = {}) => ({ name, arguments: args });

t.test('a 2026-07-28 client over stdio answers the plugins’ questions through input-required results', async (t) => {
  const ws = makeWorkspace(t);
  const { config } = writeAskers(ws);
  const host = await startStdioHost(t, config, { clientOptions: modernOptions() });
  const { client } = host;
  t.equal(client.getNegotiatedProtocolVersion(), MODERN);
  const { asked } = answering(client, 'zed');

  t.test('a v2 plugin asking with ctx.mcpReq.elicitInput', async (t) => {
    t.equal(firstText(await client.callTool(call('v2.ask', { who: 'alice' }))), 'v2 accept:zed');
    t.same(asked.splice(0), ['name for alice?']);
  });

  t.test('a v1 plugin asking with server.server.elicitInput', async (t) => {
    t.equal(firstText(await client.callTool(call('v1.ask', { who: 'bob' }))), 'v1 accept:zed');
    t.same(asked.splice(0), ['v1 name for bob?']);
  });

  t.test('a v2 plugin returning inputRequired(...), as it would to the client directly', async (t) => {
    t.equal(firstText(await client.callTool(call('v2.ask_returning'))), 'returned zed');
    t.same(asked.splice(0), ['who (returned)?']);
  });

  t.test('one call, two questions in turn: two rounds', async (t) => {
    t.equal(firstText(await client.callTool(call('v2.ask_twice'))), 'accept:zed then accept:zed');
    t.same(asked.splice(0), ['first?', 'second?']);
  });

  t.test('questions asked together are answered together', async (t) => {
    t.equal(firstText(await client.callTool(call('v2.ask_together'))), 'accept:zed and accept:zed');
    t.same(asked.splice(0).sort(), ['a?', 'b?']);
  });

  t.test('sampling, from either SDK line', async (t) => {
    t.equal(firstText(await client.callTool(call('v2.sample'))), 'sampled a sample');
    t.equal(firstText(await client.callTool(call('v1.sample'))), 'v1 sampled a sample');
    t.same(asked.splice(0), ['sampling', 'sampling']);
  });

  t.test('prompts/get and resources/read continue the same way', async (t) => {
    const prompt = await client.getPrompt({ name: 'v2.greeting' });
    t.same(prompt.messages, [{ role: 'user', content: { type: 'text', text: 'Hello, zed' } }]);
    const resource = await client.readResource({ uri: 'asker://profile' });
    t.match(resource.contents, [{ uri: 'asker://profile', text: 'profile of zed' }]);
    t.same(asked.splice(0), ['greet whom?', 'whose profile?']);
  });

  t.test('progress before the question reaches the call; the call still completes', async (t) => {
    const progress: number[] = [];
    const result = await client.callTool(call('v2.ask_with_progress'), {
      onprogress: (update) => progress.push(update.progress),
    });
    t.equal(firstText(result), 'accept:zed');
    t.same(progress.slice(0, 1), [1], 'the first round carried the plugin’s progress');
    t.same(asked.splice(0), ['progress?']);
  });

  t.test('a non-object output schema shows unwrapped, as the plugin shows it to a 2026-07-28 client', async (t) => {
    const { tools } = await client.listTools();
    const schemaOf = (name: string) => tools.find((tool) => tool.name === name)?.outputSchema;
    t.match(schemaOf('v2.numbers'), { type: 'array', items: { type: 'number' } });
    t.notOk((schemaOf('v2.numbers') as Result).properties, 'no {result} wrapper');
    t.match(await client.callTool(call('v2.numbers')), { structuredContent: [1, 2, 3] });
    t.match(
      schemaOf('v2.holder'),
      { type: 'object', properties: { result: { type: 'array' } }, additionalProperties: false },
      'an object schema the author wrote with a "result" member is left alone',
    );
    t.match(await client.callTool(call('v2.holder')), { structuredContent: { result: [4, 5] } });
  });
});

t.test('the wire shapes, and each way a retry is refused (manual mode)', async (t) => {
  const ws = makeWorkspace(t);
  const { config } = writeAskers(ws);
  const { client } = await startStdioHost(t, config, {
    clientOptions: modernOptions({
      capabilities: { elicitation: { form: {} } },
      inputRequired: { autoFulfill: false },
    }),
  });
  const manual = { allowInputRequired: true };
  const retry = (name: string, requestState: unknown, inputResponses: Result, args: Result = {}) =>
    client.callTool({ ...call(name, args), requestState, inputResponses } as never, manual) as Promise<Result>;
  const accept = (name: string) => ({ action: 'accept', content: { name } });

  t.test('questions asked together come in one input-required result, without the link’s progress token', async (t) => {
    const first = (await client.callTool(call('v2.ask_together'), manual)) as Result;
    t.equal(first.resultType, 'input_required');
    t.type(first.requestState, 'string');
    const requests = first.inputRequests as Record<string, { method: string; params: Result }>;
    t.same(Object.keys(requests).length, 2);
    for (const request of Object.values(requests)) {
      t.equal(request.method, 'elicitation/create');
      t.notOk(request.params._meta, 'no _meta carried over from the host’s link');
    }
    const answers = Object.fromEntries(Object.keys(requests).map((key) => [key, accept(key)]));
    const done = await retry('v2.ask_together', first.requestState, answers);
    const keys = Object.keys(requests);
    t.equal(firstText(done), `accept:${keys[0]} and accept:${keys[1]}`);
  });

  t.test('a requestState this host did not issue', async (t) => {
    const forged = {
      'a well-formed token with a MAC it did not make': ['v1.e30.bm90LWEtbWFj', 'mac'],
      'the same, under a prefix naming a replica': ['mcph.some-replica.v1.e30.bm90LWEtbWFj', 'mac'],
      'no token at all': ['not-a-request-state', 'malformed'],
    };
    for (const [what, [state, why]] of Object.entries(forged)) {
      await t.rejects(
        retry('v2.ask', state, {}, { who: 'x' }),
        {
          code: -32602,
          message: `Invalid or expired requestState (${why}): this mcp-host process did not issue it to this client for a tools/call, or it is older than 600 s. Fix: send the tools/call again without requestState and inputResponses.`,
        },
        `${what}: refused, saying why`,
      );
    }
  });

  t.test('a retry that leaves a question unanswered, then answers it', async (t) => {
    const first = (await client.callTool(call('v1.ask', { who: 'carol' }), manual)) as Result;
    const [key] = Object.keys(first.inputRequests as Result);
    await t.rejects(retry('v1.ask', first.requestState, {}, { who: 'carol' }), {
      code: -32602,
      message: `The retried tools/call does not answer input request "${key}" (elicitation/create): inputResponses needs a result object for every key of inputRequests. Fix: retry with an answer for each.`,
    });
    t.equal(
      firstText(await retry('v1.ask', first.requestState, { [key!]: accept('carol') }, { who: 'carol' })),
      'v1 accept:carol',
    );
  });

  t.test('a requestState retried with another tool', async (t) => {
    const first = (await client.callTool(call('v2.ask', { who: 'dan' }), manual)) as Result;
    const [key] = Object.keys(first.inputRequests as Result);
    await t.rejects(retry('v1.ask', first.requestState, { [key!]: accept('dan') }, { who: 'dan' }), {
      code: -32602,
      message:
        'This requestState continues the tools/call of "v2.ask", not of "v1.ask". Fix: retry the same tools/call it was issued for.',
    });
    t.equal(
      firstText(await retry('v2.ask', first.requestState, { [key!]: accept('dan') }, { who: 'dan' })),
      'v2 accept:dan',
    );
  });

  t.test('a requestState used twice, or from an earlier round', async (t) => {
    const first = (await client.callTool(call('v2.ask_twice'), manual)) as Result;
    const [key1] = Object.keys(first.inputRequests as Result);
    const second = await retry('v2.ask_twice', first.requestState, { [key1!]: accept('one') });
    t.equal(second.resultType, 'input_required', 'the second question is a second round');
    const [key2] = Object.keys(second.inputRequests as Result);
    t.not(key2, key1);
    const stale =
      /^Invalid or expired requestState: no tools\/call is waiting for it\. The call it continues was already continued with it, was cancelled, or waited more than 600 s for this retry\./;
    await t.rejects(retry('v2.ask_twice', first.requestState, { [key1!]: accept('one') }), {
      code: -32602,
      message: stale,
    });
    t.equal(
      firstText(await retry('v2.ask_twice', second.requestState, { [key2!]: accept('two') })),
      'accept:one then accept:two',
    );
    await t.rejects(retry('v2.ask_twice', second.requestState, { [key2!]: accept('two') }), {
      code: -32602,
      message: stale,
    });
  });

  t.test('a question the client did not declare it can answer goes back to the plugin as refused', async (t) => {
    const result = (await client.callTool(call('v2.sample'), manual)) as Result;
    t.equal(
      firstText(result),
      'refused: mcp-host cannot ask the client: the client did not declare the sampling capability on its 2026-07-28 request',
    );
  });

  t.test('a request no 2026-07-28 client can be asked goes back to the plugin as refused', async (t) => {
    const result = (await client.callTool(call('v2.ask_custom'), manual)) as Result;
    t.match(
      firstText(result),
      /^refused: .*mcp-host cannot ask the client: a 2026-07-28 client can only be asked elicitation\/create, sampling\/createMessage or roots\/list, not acme\/ask$/,
    );
  });
});

t.test('a call whose client never retries is cancelled upstream when it times out', async (t) => {
  const ws = makeWorkspace(t);
  const { config, log } = writeAskers(ws, { timeoutMs: 1500 });
  const { client } = await startStdioHost(t, config, {
    clientOptions: modernOptions({ inputRequired: { autoFulfill: false } }),
  });
  const first = (await client.callTool(call('v2.ask_and_wait'), { allowInputRequired: true })) as Result;
  t.equal(first.resultType, 'input_required');
  await until(
    'the plugin to see its call cancelled',
    () => existsSync(log) && readFileSync(log, 'utf8').includes('cancelled'),
  );
  const [key] = Object.keys(first.inputRequests as Result);
  await t.rejects(
    client.callTool(
      {
        ...call('v2.ask_and_wait'),
        requestState: first.requestState,
        inputResponses: { [key!]: { action: 'cancel' } },
      } as never,
      { allowInputRequired: true },
    ),
    {
      code: -32001,
      message: /mount "v2" did not answer tools\/call within 1500 ms/,
    },
    'the late retry is told what became of the call',
  );
});

t.test('a 2025-era client is still asked with requests, and sees the wrapped schema', async (t) => {
  const ws = makeWorkspace(t);
  const { config } = writeAskers(ws);
  const { client } = await startStdioHost(t, config, {
    clientOptions: { capabilities: { elicitation: { form: {} }, sampling: {} } },
  });
  t.not(client.getNegotiatedProtocolVersion(), MODERN);
  const { asked } = answering(client, 'old');
  t.equal(firstText(await client.callTool(call('v2.ask', { who: 'e' }))), 'v2 accept:old');
  t.equal(firstText(await client.callTool(call('v1.ask', { who: 'f' }))), 'v1 accept:old');
  t.equal(firstText(await client.callTool(call('v2.ask_returning'))), 'returned old');
  t.same(asked, ['name for e?', 'v1 name for f?', 'who (returned)?']);
  const { tools } = await client.listTools();
  t.match(tools.find((tool) => tool.name === 'v2.numbers')?.outputSchema, {
    type: 'object',
    properties: { result: { type: 'array' } },
    required: ['result'],
  });
  t.match(await client.callTool(call('v2.numbers')), { structuredContent: { result: [1, 2, 3] } });
});

t.test('over HTTP, concurrent 2026-07-28 clients each answer their own call’s questions', async (t) => {
  const ws = makeWorkspace(t);
  const { config } = writeAskers(ws);
  const { url } = await startHttpHost(t, config);
  const connect = async (name: string) => {
    const client = new Client({ name, version: '1.0.0' }, modernOptions());
    const { asked } = answering(client, name);
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    t.teardown(() => client.close());
    return { client, asked };
  };
  const alice = await connect('alice');
  const bob = await connect('bob');
  t.equal(alice.client.getNegotiatedProtocolVersion(), MODERN);
  const [a2, b2, a1, b1] = await Promise.all([
    alice.client.callTool(call('v2.ask', { who: 'alice' })),
    bob.client.callTool(call('v2.ask', { who: 'bob' })),
    alice.client.callTool(call('v1.ask', { who: 'alice' })),
    bob.client.callTool(call('v1.ask', { who: 'bob' })),
  ]);
  t.same([a2, b2, a1, b1].map(firstText), ['v2 accept:alice', 'v2 accept:bob', 'v1 accept:alice', 'v1 accept:bob']);
  t.same(alice.asked.sort(), ['name for alice?', 'v1 name for alice?']);
  t.same(bob.asked.sort(), ['name for bob?', 'v1 name for bob?']);
  t.equal(firstText(await alice.client.callTool(call('v2.ask_twice'))), 'accept:alice then accept:alice');
});

t.test(
  'over HTTP, a requestState is bound to the bearer token it was issued to: another token’s retry is refused',
  async (t) => {
    const ws = makeWorkspace(t);
    const tokens = { alice: 'alice-token-0123456789', bob: 'bob-token-0123456789ab' };
    const { config } = writeAskers(ws, {}, { http: { port: 0, auth: { tokens: Object.values(tokens) } } });
    const { url } = await startHttpHost(t, config, { args: [], env: { MCP_HOST_HTTP_TOKENS: undefined } });
    const connect = async (token: string) => {
      const client = new Client(
        { name: 'manual', version: '1.0.0' },
        modernOptions({ capabilities: { elicitation: { form: {} } }, inputRequired: { autoFulfill: false } }),
      );
      const requestInit = { headers: { authorization: `Bearer ${token}` } };
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit }));
      t.teardown(() => client.close());
      return client;
    };
    const alice = await connect(tokens.alice);
    const bob = await connect(tokens.bob);
    const manual = { allowInputRequired: true };
    const first = (await alice.callTool(call('v2.ask', { who: 'alice' }), manual)) as Result;
    t.equal(first.resultType, 'input_required');
    const [key] = Object.keys(first.inputRequests as Result);
    const retry = (client: Client) =>
      client.callTool(
        {
          ...call('v2.ask', { who: 'alice' }),
          requestState: first.requestState,
          inputResponses: { [key!]: { action: 'accept', content: { name: 'mallory' } } },
        } as never,
        manual,
      );
    await t.rejects(retry(bob), {
      code: -32602,
      message:
        'Invalid or expired requestState (bind): this mcp-host process did not issue it to this client for a tools/call, or it is older than 600 s. Fix: send the tools/call again without requestState and inputResponses.',
    });
    // Refused without touching the call: its own client still continues it.
    t.equal(firstText(await retry(alice)), 'v2 accept:mallory');
  },
);
