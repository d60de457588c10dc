// The conformance plugin (plugins/conformance) mounted flat behind
// `mcp-host start` over stdio, with the config `npm run conformance` uses:
// the names the official suite looks for, and the behaviours it checks that
// cross the host (sampling and elicitation asked of the calling client,
// progress, log messages at the level the client set, completion,
// subscriptions). The suite itself (which needs Node 22) runs with
// `npm run conformance`; this keeps the plugin honest in `npm test`.
import { join } from 'node:path';
import t from 'tap';
import conformancePlugin from '@mcp-host/conformance';
import { StreamableHTTPClientTransport, type Client } from '@modelcontextprotocol/client';
import { modernClient } from './helpers/cluster.js';
import { startHttpHost, startStdioHost, until, type Teardown } from './helpers/host.js';
import { REPO_ROOT } from './helpers/packages.js';

const CONFIG = join(REPO_ROOT, 'test/conformance/mcp-host.config.js');

interface Session {
  client: Client;
  asked: { method: string; params: Record<string, unknown> }[];
  logs: { level: string; data: unknown }[];
}

/**
 * A client (2025-era, or pinned to `revision`) on the host, launched as an MCP
 * client launches a server: it answers sampling and elicitation, and keeps the log messages.
 */
async function connect(t: Teardown, revision?: string): Promise<Session> {
  const { client } = await startStdioHost(t, CONFIG, {
    args: ['--stdio'],
    env: { MCP_HOST_LOG_LEVEL: 'info' },
    inheritEnv: false,
    clientOptions: {
      capabilities: { sampling: {}, elicitation: {} },
      ...(revision ? { versionNegotiation: { mode: { pin: revision } } } : {}),
    },
  });
  const session: Session = { client, asked: [], logs: [] };
  client.setRequestHandler('sampling/createMessage', async (request) => {
    session.asked.push({ method: 'sampling/createMessage', params: request.params });
    return { role: 'assistant', content: { type: 'text', text: 'a sampled answer' }, model: 'test-model' };
  });
  client.setRequestHandler('elicitation/create', async (request) => {
    session.asked.push({ method: 'elicitation/create', params: request.params });
    return { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };
  });
  client.setNotificationHandler('notifications/message', (notification) => {
    session.logs.push(notification.params);
  });
  return session;
}

const textOf = (result: { content?: unknown[] }) =>
  (result.content ?? []).map((block) => (block as { text?: string }).text ?? `[${(block as { type: string }).type}]`);

t.test('create() refuses options, naming the fix', async (t) => {
  t.throws(() => conformancePlugin.create({ options: { verbose: true } as never }), {
    message:
      '@mcp-host/conformance: takes no options, got {"verbose":true}. Fix: remove "options" from its entry in the mcp-host config.',
  });
});

// One host and one 2025-era session serve the subtests below, in order: each
// host takes seconds to start on a slow machine.
const session = await connect(t);
const { client } = session;

t.test('mounted flat, the catalogue has every name the suite asks for', async (t) => {
  const tools = (await client.listTools()).tools;
  t.same(tools.map((tool) => tool.name).sort(), [
    'confirm_delete',
    'failing_job',
    'greet',
    'json_schema_2020_12_tool',
    'multi_input',
    'protocol_error_job',
    'slow_compute',
    'test_audio_content',
    'test_custom_header',
    'test_elicitation',
    'test_elicitation_sep1034_defaults',
    'test_elicitation_sep1330_enums',
    'test_embedded_resource',
    'test_error_handling',
    'test_image_content',
    'test_input_required_result_capabilities',
    'test_input_required_result_elicitation',
    'test_input_required_result_list_roots',
    'test_input_required_result_multi_round',
    'test_input_required_result_multiple_inputs',
    'test_input_required_result_request_state',
    'test_input_required_result_sampling',
    'test_input_required_result_tampered_state',
    'test_logging_tool',
    'test_missing_capability',
    'test_multiple_content_types',
    'test_reconnection',
    'test_sampling',
    'test_simple_text',
    'test_streaming_elicitation',
    'test_tool_with_logging',
    'test_tool_with_progress',
    'test_tool_with_task',
    'test_trigger_prompt_change',
    'test_trigger_tool_change',
  ]);
  t.ok(
    tools.every((tool) => tool.description),
    'every tool has a description',
  );
  const schema = tools.find((tool) => tool.name === 'json_schema_2020_12_tool')!.inputSchema;
  t.match(schema, {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $defs: { address: { type: 'object' } },
    additionalProperties: false,
  });
  t.same((await client.listPrompts()).prompts.map((prompt) => prompt.name).sort(), [
    'test_input_required_result_prompt',
    'test_prompt_with_arguments',
    'test_prompt_with_embedded_resource',
    'test_prompt_with_image',
    'test_simple_prompt',
  ]);
  t.same((await client.listResources()).resources.map((resource) => resource.uri).sort(), [
    'skill://conformance-checks/SKILL.md',
    'test://static-binary',
    'test://static-text',
    'test://watched-resource',
  ]);
  t.same(
    (await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate),
    ['test://template/{id}/data', 'skill://{+path}'],
  );
  t.match(client.getServerCapabilities(), {
    logging: {},
    completions: {},
    resources: { subscribe: true },
    extensions: { 'io.modelcontextprotocol/skills': { directoryRead: true } },
  });
});

t.test('content, errors, prompts and resources pass through whole', async (t) => {
  t.same(textOf(await client.callTool({ name: 'test_simple_text' })), ['This is a simple text response for testing.']);
  t.match(await client.callTool({ name: 'test_image_content' }), {
    content: [{ type: 'image', mimeType: 'image/png', data: /^iVBOR/ }],
  });
  t.match(await client.callTool({ name: 'test_audio_content' }), {
    content: [{ type: 'audio', mimeType: 'audio/wav', data: /^UklGR/ }],
  });
  t.same(
    (await client.callTool({ name: 'test_multiple_content_types' })).content?.map((block) => block.type),
    ['text', 'image', 'resource'],
  );
  t.match(await client.callTool({ name: 'test_error_handling' }), {
    isError: true,
    content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
  });
  t.match(await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'hello', arg2: 'world' } }), {
    messages: [{ role: 'user', content: { text: "Prompt with arguments: arg1='hello', arg2='world'" } }],
  });
  t.match(
    await client.getPrompt({
      name: 'test_prompt_with_embedded_resource',
      arguments: { resourceUri: 'test://given' },
    }),
    { messages: [{ content: { type: 'resource', resource: { uri: 'test://given' } } }, { content: { type: 'text' } }] },
  );
  t.match(await client.readResource({ uri: 'test://template/123/data' }), {
    contents: [
      {
        uri: 'test://template/123/data',
        mimeType: 'application/json',
        text: '{"id":"123","templateTest":true,"data":"Data for ID: 123"}',
      },
    ],
  });
  t.match(await client.readResource({ uri: 'test://static-binary' }), {
    contents: [{ mimeType: 'image/png', blob: /^iVBOR/ }],
  });
});

t.test('sampling and elicitation are asked of the calling client and answered', async (t) => {
  const sampled = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Say hi' } });
  t.same(textOf(sampled), ['LLM response: a sampled answer']);
  const elicited = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
  t.same(textOf(elicited), ['User response: action=accept, content={"username":"ada","email":"ada@example.com"}']);
  t.match(session.asked, [
    {
      method: 'sampling/createMessage',
      params: { messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 100 },
    },
    {
      method: 'elicitation/create',
      params: { message: 'Who are you?', requestedSchema: { required: ['username', 'email'] } },
    },
  ]);
  await client.callTool({ name: 'test_elicitation_sep1330_enums' });
  t.match(session.asked[2]!.params, {
    requestedSchema: {
      properties: {
        titledSingle: { oneOf: [{ const: 'value1', title: 'First Option' }] },
        legacyEnum: { enumNames: ['Option One', 'Option Two', 'Option Three'] },
        titledMulti: { type: 'array', items: { anyOf: [{ const: 'value1' }] } },
      },
    },
  });
});

t.test('progress reaches the caller; log messages follow the level it set', async (t) => {
  const progress: number[] = [];
  await client.callTool(
    { name: 'test_tool_with_progress' },
    { onprogress: (update) => void progress.push(update.progress) },
  );
  // The plugin sends 0, 50 and 100 before its result, in that order on the
  // wire. Over stdio the last one often shares a read with the result, and
  // the SDK clients (v1 and v2 alike, with or without the host) run
  // notification handlers a microtask after responses, so it can arrive after
  // the call has ended and be dropped.
  t.match(progress.join(','), /^0,50(,100)?$/, 'progress reaches the caller, in order');

  // The same goes for the last log message: a ping round trip after each
  // call lets the handlers of what arrived with its answer run first.
  await client.setLoggingLevel('warning');
  await client.callTool({ name: 'test_tool_with_logging' });
  await client.ping();
  t.same(session.logs, [], 'info messages are below the level the client set');
  await client.setLoggingLevel('info');
  await client.callTool({ name: 'test_tool_with_logging' });
  await client.ping();
  t.same(
    session.logs.map((log) => log.data),
    ['Tool execution started', 'Tool processing data', 'Tool execution completed'],
  );
});

t.test('completion and resource subscriptions are forwarded', async (t) => {
  const completion = await client.complete({
    ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
    argument: { name: 'arg1', value: 'te' },
  });
  t.same(completion.completion.values, ['test', 'testing', 'testValue1']);
  t.same(await client.subscribeResource({ uri: 'test://watched-resource' }), {});
  t.same(await client.unsubscribeResource({ uri: 'test://watched-resource' }), {});
});

t.test(
  'a 2026-07-28 client is asked the plugin’s sampling and elicitation through input-required results',
  async (t) => {
    // The plugin's manifest names 2026-07-28, so the host links it in that
    // revision: its input-required results reach a 2026-07-28 client as they
    // came (their keys, its signed requestState), and the client's SDK
    // answers them and retries.
    const modern = await connect(t, '2026-07-28');
    const sampled = await modern.client.callTool({ name: 'test_sampling', arguments: { prompt: 'Say hi' } });
    t.same(textOf(sampled), ['LLM response: a sampled answer']);
    const elicited = await modern.client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
    t.same(textOf(elicited), ['User response: action=accept, content={"username":"ada","email":"ada@example.com"}']);
    t.same(
      modern.asked.map((asked) => asked.method),
      ['sampling/createMessage', 'elicitation/create'],
    );
    const manual = { allowInputRequired: true };
    const first = (await modern.client.callTool(
      { name: 'test_input_required_result_multi_round', arguments: {} },
      manual,
    )) as Record<string, unknown>;
    t.match(first, { resultType: 'input_required', inputRequests: { step1: { method: 'elicitation/create' } } });
    t.match(first.requestState, /^v1\./, "the plugin's own signed requestState, as it came");
    const tampered = modern.client.callTool(
      {
        name: 'test_input_required_result_multi_round',
        arguments: {},
        requestState: `${String(first.requestState)}-TAMPERED`,
        inputResponses: { step1: { action: 'accept', content: { name: 'Eve' } } },
      } as never,
      manual,
    );
    await t.rejects(tampered, { code: -32602, message: /Invalid or expired requestState/ });
  },
);

t.test('a 2025-era client is asked, mid-call, what a 2026-07-28 plugin asks over several rounds', async (t) => {
  const asked: unknown[] = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params.message);
    return { action: 'accept', content: { name: 'ada', color: 'green' } };
  });
  const done = await client.callTool({ name: 'test_input_required_result_multi_round', arguments: {} });
  t.same(textOf(done), ['ada likes green']);
  t.same(asked, ['Step 1: What is your name?', 'Step 2: What is your favorite color?']);
});

t.test(
  "the suite's list-change hooks change the lists, and an open listen stream hears each, tagged with its subscription",
  async (t) => {
    // As server-stateless checks it: a stream opened on one connection, the list changed from another.
    const host = await startHttpHost(t, CONFIG);
    const connectModern = async () => {
      const client = modernClient();
      await client.connect(new StreamableHTTPClientTransport(new URL(host.url)));
      t.teardown(() => client.close());
      return client;
    };
    const listener = await connectModern();
    const heard: { method: string; tag: unknown }[] = [];
    for (const method of ['notifications/tools/list_changed', 'notifications/prompts/list_changed'] as const) {
      listener.setNotificationHandler(method, (n) => {
        heard.push({
          method,
          tag: (n.params?._meta as Record<string, unknown>)?.['io.modelcontextprotocol/subscriptionId'],
        });
      });
    }
    const subscription = await listener.listen({ toolsListChanged: true, promptsListChanged: true });
    t.teardown(() => subscription.close());
    const trigger = await connectModern();

    t.same(textOf(await trigger.callTool({ name: 'test_trigger_tool_change', arguments: {} })), [
      'added test_triggered_tool',
    ]);
    await until('tools/list_changed on the stream', () => heard.length === 1);
    t.ok(
      (await trigger.listTools()).tools.some((tool) => tool.name === 'test_triggered_tool'),
      'the tool is listed',
    );
    t.same(textOf(await trigger.callTool({ name: 'test_trigger_prompt_change', arguments: {} })), [
      'added test_triggered_prompt',
    ]);
    await until('prompts/list_changed on the stream', () => heard.length === 2);
    t.same(
      heard.map(({ method }) => method),
      ['notifications/tools/list_changed', 'notifications/prompts/list_changed'],
    );
    t.ok(heard[0]!.tag !== undefined && heard.every(({ tag }) => tag === heard[0]!.tag), 'each tagged with the stream');
    t.same(textOf(await trigger.callTool({ name: 'test_trigger_tool_change', arguments: {} })), [
      'removed test_triggered_tool',
    ]);
    await until('the removal heard', () => heard.length === 3);
  },
);
