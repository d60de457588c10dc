// Upstreams spoken to in the newest revision both sides speak: a server that
// speaks only 2026-07-28 (SDK v2, `legacy: 'reject'`) is mounted by URL and
// as a stdio child, found with `server/discover`; a 2025-era child is still
// reached with `initialize`. A legacy stdio client and a 2026-07-28 HTTP
// client list and call it, and answer its `input_required` questions
// (elicitation, sampling, roots, several rounds with the server's own
// `requestState`). A server that answers but speaks no revision in the host's
// range is refused once, with what it answered. Real parts: the upstreams
// are SDK servers in their own processes on 127.0.0.1 and over pipes; the
// host runs as a child process; the clients are the SDK's own.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { Client, StreamableHTTPClientTransport, type ClientOptions } from '@modelcontextprotocol/client';
import { assertLogged, runCli, startHttpHost, startStdioHost, until } from './helpers/host.js';
import { startListening } from './helpers/listening-server.js';
import { modernClient } from './helpers/cluster.js';
import { REPO_ROOT, makeWorkspace, type Workspace } from './helpers/packages.js';
import { firstText } from './helpers/results.js';

const MODERN = '2026-07-28';

/**
 * A server that speaks only 2026-07-28, the shape stateless deployments
 * take: over HTTP (`node modern.mjs http`, printing its URL) or over stdio
 * (`node modern.mjs`). `survey` asks over two rounds and keeps its place
 * in `requestState`; `sample` and `roots` ask the other two kinds.
 */
const MODERN_SERVER = `
import { createServer } from 'node:http';
import { McpServer, ProtocolError, acceptedContent, inputRequired, inputResponse } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { z } from 'zod';

const text = (value) => ({ content: [{ type: 'text', text: value }] });
const NAME = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

// Over HTTP its lists may be cached by anyone for 30 s; over stdio, privately for 5 s; run with "lasting", by anyone for an hour.
const HINTS = { http: { ttlMs: 30000, cacheScope: 'public' }, lasting: { ttlMs: 3600000, cacheScope: 'public' } };
const HINT = HINTS[process.argv[2]] ?? { ttlMs: 5000, cacheScope: 'private' };

function factory() {
  const server = new McpServer({ name: 'modern-only', version: '2.0.0' }, { cacheHints: { 'tools/list': HINT } });
  server.registerTool(
    'add',
    { inputSchema: z.object({ a: z.number(), b: z.number() }), outputSchema: z.object({ sum: z.number() }) },
    ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
  );
  server.registerTool('survey', { inputSchema: z.object({}) }, async (_args, ctx) => {
    const state = ctx.mcpReq.requestState();
    const responses = ctx.mcpReq.inputResponses;
    if (state === undefined) {
      return inputRequired({ inputRequests: { first: inputRequired.elicit({ message: 'first name?', requestedSchema: NAME }) }, requestState: 'round-1' });
    }
    if (state === 'round-1') {
      const first = acceptedContent(responses, 'first')?.name;
      return inputRequired({ inputRequests: { last: inputRequired.elicit({ message: 'last name?', requestedSchema: NAME }) }, requestState: 'round-2:' + first });
    }
    if (!String(state).startsWith('round-2:')) throw new ProtocolError(-32602, 'survey: requestState ' + JSON.stringify(state) + ' is not one this server issued');
    return text('survey ' + String(state).slice('round-2:'.length) + ' ' + acceptedContent(responses, 'last')?.name);
  });
  server.registerTool('sample', { inputSchema: z.object({}) }, async (_args, ctx) => {
    const view = inputResponse(ctx.mcpReq.inputResponses, 'sample');
    if (view.kind !== 'sampling') {
      return inputRequired({ inputRequests: { sample: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 }) } });
    }
    return text('sampled ' + view.result.content.text);
  });
  // A server on a pipe keeps its instance: a tool it adds is announced on the host's subscriptions/listen stream.
  server.registerTool('grow', { inputSchema: z.object({}) }, async () => {
    server.registerTool('grown', { inputSchema: z.object({}) }, async () => text('grown'));
    return text('grew');
  });
  server.registerTool('nag', { inputSchema: z.object({}) }, async () =>
    inputRequired({ inputRequests: { again: inputRequired.elicit({ message: 'again?', requestedSchema: NAME }) } }),
  );
  server.registerTool('roots', { inputSchema: z.object({}) }, async (_args, ctx) => {
    const view = inputResponse(ctx.mcpReq.inputResponses, 'roots');
    if (view.kind !== 'roots') return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
    return text('roots ' + view.roots.map((root) => root.uri).join(','));
  });
  return server;
}

if (process.argv[2] === 'http') {
  const handler = toNodeHandler(createMcpHandler(factory, { legacy: 'reject' }));
  const http = createServer((req, res) => void handler(req, res));
  http.listen(0, '127.0.0.1', () => console.log('http://127.0.0.1:' + http.address().port + '/mcp'));
} else {
  serveStdio(factory, { legacy: 'reject' });
}
`;

/** A 2025-era server: SDK v1 over stdio, which knows nothing of server/discover. */
const LEGACY_SERVER = `
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
const server = new McpServer({ name: 'legacy-only', version: '1.0.0' });
server.registerTool('shout', { inputSchema: { text: z.string() } }, async ({ text }) => ({
  content: [{ type: 'text', text: text.toUpperCase() }],
}));
await server.connect(new StdioServerTransport());
`;

interface Upstreams {
  ws: Workspace;
  url: string;
  modernScript: string;
  legacyScript: string;
}

/** The workspace with both servers written out, and the HTTP one started on 127.0.0.1. */
async function startUpstreams(t: Test): Promise<Upstreams> {
  const ws = makeWorkspace(t);
  const modernScript = ws.writeFile('modern.mjs', MODERN_SERVER);
  const legacyScript = ws.writeFile('legacy.mjs', LEGACY_SERVER);
  const server = spawn(process.execPath, [modernScript, 'http'], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => server.kill());
  let out = '';
  server.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await until('the 2026-only server to listen', () => out.includes('/mcp'));
  return { ws, url: out.trim(), modernScript, legacyScript };
}

function mountAll(upstreams: Upstreams, extra: Record<string, unknown> = {}): string {
  return upstreams.ws.writeConfig({
    reload: { watch: false },
    plugins: [
      { url: upstreams.url, prefix: 'web' },
      { command: process.execPath, args: [upstreams.modernScript], prefix: 'pipe' },
      { command: process.execPath, args: [upstreams.legacyScript], prefix: 'old' },
    ],
    ...extra,
  });
}

/** What a client answers when asked: an elicitation by its message, sampling and roots fixed. */
const ANSWERS: ClientOptions = { capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} } };

function answer(client: Client): string[] {
  const asked: string[] = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    const message = String(request.params.message);
    asked.push(message);
    return { action: 'accept', content: { name: message.startsWith('first') ? 'Ada' : 'Lovelace' } };
  });
  client.setRequestHandler('sampling/createMessage', async () => {
    asked.push('sampling');
    return { role: 'assistant', content: { type: 'text', text: 'a sample' }, model: 'test-model' };
  });
  client.setRequestHandler('roots/list', async () => {
    asked.push('roots');
    return { roots: [{ uri: 'file:///work', name: 'work' }] };
  });
  return asked;
}

/** The same calls, whichever client makes them: each 2026-only mount, and the legacy one. */
async function exercise(t: Test, client: Client): Promise<void> {
  const asked = answer(client);
  const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
  t.same(names, [
    'old.shout',
    'pipe.add',
    'pipe.grow',
    'pipe.nag',
    'pipe.roots',
    'pipe.sample',
    'pipe.survey',
    'web.add',
    'web.grow',
    'web.nag',
    'web.roots',
    'web.sample',
    'web.survey',
  ]);
  for (const mount of ['web', 'pipe']) {
    const added = await client.callTool({ name: `${mount}.add`, arguments: { a: 2, b: 3 } });
    t.same(added.structuredContent, { sum: 5 }, `${mount}: a plain call passes through`);
    t.equal(firstText(await client.callTool({ name: `${mount}.survey`, arguments: {} })), 'survey Ada Lovelace');
    t.equal(firstText(await client.callTool({ name: `${mount}.sample`, arguments: {} })), 'sampled a sample');
    t.equal(firstText(await client.callTool({ name: `${mount}.roots`, arguments: {} })), 'roots file:///work');
  }
  t.same(asked, ['first name?', 'last name?', 'sampling', 'roots', 'first name?', 'last name?', 'sampling', 'roots']);
  t.equal(firstText(await client.callTool({ name: 'old.shout', arguments: { text: 'hi' } })), 'HI');
}

t.test('a 2026-only upstream, by URL and as a child, serves a legacy stdio client', async (t) => {
  const upstreams = await startUpstreams(t);
  const host = await startStdioHost(t, mountAll(upstreams), { clientOptions: ANSWERS });
  t.not(host.client.getNegotiatedProtocolVersion(), MODERN, 'the client speaks a 2025-era revision');
  await exercise(t, host.client);
  await assertLogged(t, host.log, /connected: modern-only 2\.0\.0 speaking MCP 2026-07-28/);
  await assertLogged(t, host.log, /connected: legacy-only 1\.0\.0 speaking MCP 2025-11-25/);
});

t.test('a 2026-only upstream, by URL and as a child, serves a 2026-07-28 HTTP client', async (t) => {
  const upstreams = await startUpstreams(t);
  const host = await startHttpHost(t, mountAll(upstreams));
  const client = new Client(
    { name: 'modern-client', version: '1.0.0' },
    { ...ANSWERS, versionNegotiation: { mode: { pin: MODERN } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(host.url)));
  t.teardown(() => client.close());
  t.equal(client.getNegotiatedProtocolVersion(), MODERN);
  await exercise(t, client);
});

t.test(
  'a 2026-07-28 client gets the upstream’s input_required as it came, and its verdict on a tampered requestState',
  async (t) => {
    const upstreams = await startUpstreams(t);
    const host = await startHttpHost(t, mountAll(upstreams));
    const client = new Client(
      { name: 'manual-client', version: '1.0.0' },
      { ...ANSWERS, versionNegotiation: { mode: { pin: MODERN } }, inputRequired: { autoFulfill: false } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(host.url)));
    t.teardown(() => client.close());
    const manual = { allowInputRequired: true };
    const survey = (extra: Record<string, unknown> = {}) =>
      client.callTool({ name: 'web.survey', arguments: {}, ...extra } as never, manual) as Promise<
        Record<string, unknown>
      >;
    const first = await survey();
    t.match(first, {
      resultType: 'input_required',
      requestState: 'round-1',
      inputRequests: { first: { method: 'elicitation/create', params: { message: 'first name?' } } },
    });
    const accept = (name: string) => ({ action: 'accept', content: { name } });
    const second = await survey({ requestState: 'round-1', inputResponses: { first: accept('Grace') } });
    t.match(second, { resultType: 'input_required', requestState: 'round-2:Grace', inputRequests: { last: {} } });
    const done = await survey({ requestState: 'round-2:Grace', inputResponses: { last: accept('Hopper') } });
    t.equal(firstText(done as { content?: unknown }), 'survey Grace Hopper');
    // The upstream checks its own state; its verdict (here a tool error, as McpServer reports a handler's throw) passes through.
    const tampered = await survey({ requestState: 'round-1-TAMPERED', inputResponses: { first: accept('Eve') } });
    t.equal(tampered.isError, true);
    t.match(
      firstText(tampered as { content?: unknown }),
      /requestState "round-1-TAMPERED" is not one this server issued/,
    );
  },
);

t.test('composed lists carry the smallest ttlMs and the most private cacheScope of their parts', async (t) => {
  const upstreams = await startUpstreams(t);
  const listHint = async (plugins: Record<string, unknown>[]) => {
    const host = await startHttpHost(t, upstreams.ws.writeConfig({ reload: { watch: false }, plugins }));
    const client = new Client({ name: 'hints', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(host.url)));
    t.teardown(() => client.close());
    const { ttlMs, cacheScope } = (await client.listTools()) as { ttlMs?: number; cacheScope?: string };
    return { ttlMs, cacheScope };
  };
  const web = { url: upstreams.url, prefix: 'web' };
  const pipe = { command: process.execPath, args: [upstreams.modernScript], prefix: 'pipe' };
  const old = { command: process.execPath, args: [upstreams.legacyScript], prefix: 'old' };
  t.same(await listHint([web]), { ttlMs: 30000, cacheScope: 'public' }, 'one part: its own hint');
  t.same(await listHint([web, pipe]), { ttlMs: 5000, cacheScope: 'private' }, 'the shorter and the more private');
  t.same(await listHint([web, old]), { ttlMs: 0, cacheScope: 'private' }, 'a 2025-era part promises nothing');
  const lasting = { command: process.execPath, args: [upstreams.modernScript, 'lasting'], prefix: 'lasting' };
  t.same(
    await listHint([lasting]),
    { ttlMs: 60000, cacheScope: 'public' },
    'a part promising an hour: capped at 60 s, as a reload can change the list at any time',
  );
});

t.test(
  'an upstream that answers but speaks no revision in the host range is refused once, saying what it answered',
  async (t) => {
    const upstreams = await startUpstreams(t);
    const configFile = upstreams.ws.writeConfig({
      protocolVersions: ['2025-06-18', '2025-11-25'],
      reload: { watch: false },
      plugins: [{ url: upstreams.url, prefix: 'web' }],
    });
    const checked = await runCli(['check', '--config', configFile]);
    t.equal(checked.code, 1);
    t.match(checked.stdout, `plugin "${upstreams.url}" (plugins[0]): it answered the handshake with error -32022 (`);
    t.match(
      checked.stdout,
      /it speaks only "2026-07-28", and the host's protocolVersions are "2025-06-18" and "2025-11-25"\. Fix: add "2026-07-28" to the host's protocolVersions, or mount a version of the server that speaks one of the host's revisions\./,
    );
    t.notMatch(checked.stdout, /could not be reached/);
    const started = await runCli(['start', '--config', configFile]);
    t.equal(started.code, 1, 'start refuses it rather than retrying it');
    t.match(started.stderr, /answered the handshake with error -32022/);
  },
);

t.test('a child that exits on server/discover is started again and spoken to with initialize', async (t) => {
  const ws = makeWorkspace(t);
  const script = ws.writeFile(
    'strict.mjs',
    // A 2025-era server of the kind that ends its process on any request before initialize.
    `import { createInterface } from 'node:readline';
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === 'server/discover') process.exit(1);
  if (m.method === 'initialize') send({ id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'strict', version: '1.0.0' } } });
  if (m.method === 'tools/list') send({ id: m.id, result: { tools: [{ name: 'hello', inputSchema: { type: 'object' } }] } });
});
`,
  );
  const configFile = ws.writeConfig({
    reload: { watch: false },
    plugins: [{ command: process.execPath, args: [script], prefix: 'strict' }],
  });
  const host = await startStdioHost(t, configFile);
  t.same(
    (await host.client.listTools()).tools.map((tool) => tool.name),
    ['strict.hello'],
  );
  await assertLogged(t, host.log, /falling back to initialize: it closed the connection on server\/discover/);
  t.notMatch(host.log(), /went down/, 'the exit on the probe is not an outage');
});

t.test(
  'a 2026-07-28 upstream that keeps asking, or answers input_required malformed, fails the call saying so',
  async (t) => {
    const upstreams = await startUpstreams(t);
    // Speaks 2026-07-28 by hand, to answer what no SDK server would: input_required with nothing to ask.
    const blank = upstreams.ws.writeFile(
      'blank.mjs',
      `import { createInterface } from 'node:readline';
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === 'initialize') send({ id: m.id, error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'] } } });
  if (m.method === 'server/discover') send({ id: m.id, result: { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {} } } });
  if (m.method === 'tools/list') send({ id: m.id, result: { resultType: 'complete', tools: [{ name: 'blank', inputSchema: { type: 'object' } }] } });
  if (m.method === 'tools/call') send({ id: m.id, result: { resultType: 'input_required' } });
});
`,
    );
    const configFile = upstreams.ws.writeConfig({
      reload: { watch: false },
      plugins: [
        { url: upstreams.url, prefix: 'web' },
        { command: process.execPath, args: [blank], prefix: 'blank' },
      ],
    });
    const host = await startStdioHost(t, configFile, { clientOptions: ANSWERS });
    let asked = 0;
    host.client.setRequestHandler('elicitation/create', async () => {
      asked++;
      return { action: 'accept', content: { name: 'again' } };
    });
    await t.rejects(host.client.callTool({ name: 'web.nag', arguments: {} }), {
      message: /mount "web" still asked for input after 32 rounds of tools\/call: mcp-host gave up on the call\./,
    });
    t.equal(asked, 32, 'each round was asked of the client');
    await t.rejects(host.client.callTool({ name: 'blank.blank', arguments: {} }), {
      message:
        /mount "blank": answered tools\/call with input_required carrying neither inputRequests nor requestState\. Fix: fix the plugin: its results must follow the MCP schema\./,
    });
  },
);

t.test(
  'a 2026-07-28 child announces a list change on its subscriptions/listen stream; clients hear of it',
  async (t) => {
    const upstreams = await startUpstreams(t);
    const configFile = upstreams.ws.writeConfig({
      reload: { watch: false },
      plugins: [{ command: process.execPath, args: [upstreams.modernScript], prefix: 'pipe' }],
    });
    const host = await startStdioHost(t, configFile);
    t.equal(firstText(await host.client.callTool({ name: 'pipe.grow', arguments: {} })), 'grew');
    await host.until('tools/list_changed from the host', () => host.notified.tools > 0);
    const names = (await host.client.listTools()).tools.map((tool) => tool.name);
    t.ok(names.includes('pipe.grown'), 'the new tool is listed');
    t.equal(firstText(await host.client.callTool({ name: 'pipe.grown', arguments: {} })), 'grown');
  },
);

t.test(
  "a remote upstream's own tools/list_changed, and a reload, reach each listen stream that asked, tagged with its subscriptionId",
  async (t) => {
    const { url } = await startListening(t, [join(REPO_ROOT, 'test/fixtures/growing-server/server.js')]);
    const ws = makeWorkspace(t);
    const config = (plugins: object[]) =>
      ws.writeConfig({ reload: { watch: true, debounceMs: 50 }, plugins: [{ url, prefix: 'g' }, ...plugins] });
    const host = await startHttpHost(t, config([]));
    const client = new Client(
      { name: 'modern-client', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: MODERN } } },
    );
    // Each tools/list_changed with the subscription it came on; prompts/list_changed counted apart.
    const heard: unknown[] = [];
    let promptsHeard = 0;
    client.setNotificationHandler('notifications/tools/list_changed', (n) => void heard.push(n.params?._meta));
    client.setNotificationHandler('notifications/prompts/list_changed', () => void promptsHeard++);
    await client.connect(new StreamableHTTPClientTransport(new URL(host.url)));
    t.teardown(() => client.close());
    const tools = await client.listen({ toolsListChanged: true });
    const prompts = await client.listen({ promptsListChanged: true });
    t.teardown(() => Promise.all([tools.close(), prompts.close()]));

    t.equal(firstText(await client.callTool({ name: 'g.grow', arguments: {} })), 'grew');
    await until('the upstream change heard', () => heard.length === 1);
    const tag = (heard[0] as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/subscriptionId'];
    t.ok(tag !== undefined, `tagged with the subscription of the stream that asked (${String(tag)})`);
    t.ok(
      (await client.listTools()).tools.some((tool) => tool.name === 'g.grown_1'),
      'and the new tool is listed',
    );

    config([{ url, prefix: 'h' }]);
    await until('the reload heard', () => heard.length === 2);
    t.same(heard[1], heard[0], 'on the same stream, with the same tag');
    // A reload adds a mount with a prompt: the prompts stream hears that, and never heard of tools.
    await until('the prompts stream told of the reload', () => promptsHeard === 1);
  },
);

// SEP-2243: a 2026-07-28 server refuses a call without the `Mcp-Param-*` headers its tool declares (-32020). The
// host calls a remote upstream through the bare transport, so it mirrors them itself, from the upstream's own list,
// whoever its client: a legacy client sends no such headers, a 2026-07-28 client sends the host its own.
t.test('a call to a remote 2026-07-28 tool with x-mcp-header arguments carries its Mcp-Param headers', async (t) => {
  const { url } = await startListening(t, [
    join(REPO_ROOT, 'dist/bench/serve-direct-http.js'),
    join(REPO_ROOT, 'plugins/conformance/index.js'),
    '127.0.0.1:0',
  ]);
  const config = makeWorkspace(t).writeConfig({ reload: { watch: false }, plugins: [{ url, prefix: 'conf' }] });
  const host = await startHttpHost(t, config);
  const modern = modernClient();
  await modern.connect(new StreamableHTTPClientTransport(new URL(host.url)));
  t.teardown(() => modern.close());
  const stdio = await startStdioHost(t, config);
  // Plain text, text that needs Base64 (not ASCII; whitespace at an end), and text that already looks wrapped.
  for (const region of ['us-west-2', 'Zürich', ' spaced ', '=?base64?eA==?=']) {
    for (const [who, client] of [
      ['a 2026-07-28 client', modern],
      ['a legacy stdio client', stdio.client],
    ] as const) {
      const result = await client.callTool({ name: 'conf.test_custom_header', arguments: { region } });
      t.equal(firstText(result), `Region: ${region}`, `${who}, region ${JSON.stringify(region)}`);
    }
  }
});
