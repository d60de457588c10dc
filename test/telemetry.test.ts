// Telemetry end to end: the host as a child process exporting to a local
// OTLP/HTTP receiver (JSON protocol) through the standard OTEL_* environment;
// clients that put a traceparent in _meta (or in W3C headers over HTTP); a
// real plugin package in process and a real stdio child that each answer
// with the _meta their request carried.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { CLI, jsonRpcLine, rawInitializeLine, runCli, startHttpHost, startStdioHost } from './helpers/host.js';
import { REPO_ROOT, makeWorkspace, type Workspace } from './helpers/packages.js';
import { firstText } from './helpers/results.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './helpers/otlp-receiver.js';
import { MODERN_REVISION } from '../host/protocol-versions.js';
import { telemetrySettings } from '../host/config/telemetry-settings.js';
import { formatProblem, type HostError } from '../host/errors.js';

const SERVER_KIND = 2;
const CLIENT_KIND = 3;
const STATUS_ERROR = 2;

/** A server whose `meta` tool answers with the `_meta` of its request, and whose `fail` tool fails. */
const META_SERVER = `import { McpServer } from '@modelcontextprotocol/server';
export function metaServer() {
  const server = new McpServer({ name: 'meta', version: '1.0.0' }, { capabilities: { logging: {} } });
  server.registerTool('meta', { description: 'Answer with the request _meta' }, (ctx) => ({
    content: [{ type: 'text', text: JSON.stringify(ctx.mcpReq._meta ?? {}) }],
  }));
  server.registerTool('fail', { description: 'Fail' }, () => {
    throw new Error('the fail tool failed');
  });
  server.registerTool('flood', { description: 'Send 1500 progress notifications at once' }, async (ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    for (let i = 1; i <= 1500; i++) void ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress: i } });
    return { content: [{ type: 'text', text: 'flooded' }] };
  });
  // Only ever called on the child mount: it takes the process down, as a crashing server would.
  server.registerTool('exit', { description: 'Exit the process' }, () => {
    setTimeout(() => process.exit(1), 10);
    return { content: [{ type: 'text', text: 'exiting' }] };
  });
  server.registerTool('ask', { description: 'Report progress, then ask the client a question' }, async (ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress: 1, total: 2 } });
    const answer = await ctx.mcpReq.elicitInput({ message: 'name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return { content: [{ type: 'text', text: answer.action }] };
  });
  return server;
}
`;

function writeMetaPlugins(ws: Workspace, extra: Record<string, unknown>[] = []): string {
  ws.writePackage(
    'node_modules/@test/meta',
    { name: '@test/meta', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': {} },
    {
      'server.js': META_SERVER,
      'index.js': `import { metaServer } from './server.js';\nexport default { create: () => metaServer() };\n`,
      'child.js': `import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { metaServer } from './server.js';
await metaServer().connect(new StdioServerTransport());
`,
    },
  );
  return ws.writeConfig({
    plugins: [
      { package: '@test/meta', prefix: 'inproc' },
      { command: process.execPath, args: [`${ws.dir}/node_modules/@test/meta/child.js`], prefix: 'child' },
      ...extra,
    ],
    reload: { watch: false },
  });
}

/** A config with only the in-process meta plugin, and `sections` beside it. */
function writeInprocConfig(ws: Workspace, sections: Record<string, unknown>): string {
  writeMetaPlugins(ws);
  return ws.writeConfig({
    plugins: [{ package: '@test/meta', prefix: 'inproc' }],
    reload: { watch: false },
    ...sections,
  });
}

/** The meta plugin served over Streamable HTTP by its own process (the bench's direct server), to mount by URL. */
async function startRemoteMeta(t: Test, ws: Workspace): Promise<string> {
  const entry = join(ws.dir, 'node_modules/@test/meta/index.js');
  const child = spawn(process.execPath, [join(REPO_ROOT, 'dist/bench/serve-direct-http.js'), entry, '127.0.0.1:0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.teardown(() => void child.kill());
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening on (\S+)/.exec(seen);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the remote server exited (${code}) before listening`)));
  });
}

/** A fresh W3C trace context, as a client's tracing would send it. */
function clientContext() {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/**
 * Call `prefix.meta` with a traceparent in _meta, then check the chain:
 * client context → host server span → host client span → the plugin's _meta.
 */
async function checkTracedCall(
  t: Test,
  otlp: OtlpReceiver,
  client: Client,
  prefix: string,
  mountKind: string,
  transport: 'pipe' | 'tcp',
): Promise<ReceivedSpan> {
  const caller = clientContext();
  const result = await client.callTool({
    name: `${prefix}.meta`,
    arguments: {},
    _meta: { traceparent: caller.traceparent },
  });
  const pluginMeta = JSON.parse(firstText(result)) as { traceparent?: string };

  const server = await otlp.span(
    `the server span of ${prefix}.meta`,
    (s) => s.traceId === caller.traceId && s.kind === SERVER_KIND,
  );
  t.equal(server.parentSpanId, caller.spanId, 'the server span is the child of the client’s span');
  t.equal(server.name, `tools/call ${prefix}.meta`);
  t.match(server.attributes, {
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': `${prefix}.meta`,
    'gen_ai.operation.name': 'execute_tool',
    'jsonrpc.request.id': String,
    'mcp.protocol.version': String,
    'network.transport': transport,
  });
  t.notOk('error.type' in server.attributes, 'a call that succeeded carries no error.type');

  const upstream = await otlp.span(
    `the client span to ${prefix}`,
    (s) => s.traceId === caller.traceId && s.kind === CLIENT_KIND,
  );
  t.equal(upstream.parentSpanId, server.spanId, 'the host’s client span is the child of its server span');
  t.equal(upstream.name, 'tools/call meta', 'named for the mount’s own tool');
  t.match(upstream.attributes, {
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': 'meta',
    'mcp-host.mount': prefix,
    'mcp-host.mount.kind': mountKind,
    'mcp-host.initiator': 'client',
  });
  t.equal(
    pluginMeta.traceparent,
    `00-${caller.traceId}-${upstream.spanId}-01`,
    'the plugin received the host’s client span as its parent, in the same trace',
  );

  await otlp.point('mcp.server.operation.duration', { 'gen_ai.tool.name': `${prefix}.meta` });
  await otlp.point('mcp.client.operation.duration', { 'mcp-host.mount': prefix, 'gen_ai.tool.name': 'meta' });
  return server;
}

/** A failing tool and a refused request: their server spans carry the error per the conventions. */
async function checkErrors(t: Test, otlp: OtlpReceiver, client: Client, prefix: string): Promise<void> {
  const failing = clientContext();
  const result = await client.callTool({
    name: `${prefix}.fail`,
    arguments: {},
    _meta: { traceparent: failing.traceparent },
  });
  t.equal(result.isError, true);
  const toolError = await otlp.span(
    `the server span of ${prefix}.fail`,
    (s) => s.traceId === failing.traceId && s.kind === SERVER_KIND,
  );
  t.equal(toolError.attributes['error.type'], 'tool_error', 'a tool’s own error is error.type tool_error');
  t.equal(toolError.status.code, STATUS_ERROR);

  const refused = clientContext();
  const error = await client
    .callTool({ name: `${prefix}.missing`, arguments: {}, _meta: { traceparent: refused.traceparent } })
    .then(
      () => undefined,
      (e: unknown) => e as { code: number },
    );
  t.type(error?.code, 'number', 'calling a tool nobody serves is a JSON-RPC error');
  const span = await otlp.span(
    `the server span of ${prefix}.missing`,
    (s) => s.traceId === refused.traceId && s.kind === SERVER_KIND,
  );
  t.equal(span.attributes['error.type'], String(error!.code), 'error.type is the JSON-RPC code');
  t.equal(span.attributes['rpc.jsonrpc.error_code'], error!.code);
  t.equal(span.status.code, STATUS_ERROR);
  t.match(span.status.message, /missing/, 'the status says what went wrong');
}

t.test('over stdio: spans, context through in-process, child and remote mounts, metrics, errors', async (t) => {
  const otlp = await startOtlpReceiver(t);
  const ws = makeWorkspace(t);
  writeMetaPlugins(ws);
  const remote = await startRemoteMeta(t, ws);
  const host = await startStdioHost(t, writeMetaPlugins(ws, [{ url: remote, prefix: 'remote' }]), { env: otlp.env });
  // Telemetry is on before the first generation starts its mounts: their handshakes and drains are traced.
  for (const [mount, handshake] of [
    ['child', /^(initialize|server\/discover)$/],
    ['remote', /^(initialize|server\/discover)$/],
    ['inproc', /^tools\/list$/],
  ] as const) {
    const opening = await otlp.span(
      `the start-up ${handshake.source} of ${mount}`,
      (s) => handshake.test(s.name) && s.kind === CLIENT_KIND && s.attributes['mcp-host.mount'] === mount,
    );
    t.match(opening.attributes, { 'mcp-host.initiator': 'host' }, `${mount}'s ${opening.name} is the host's own`);
  }
  await checkTracedCall(t, otlp, host.client, 'inproc', 'in-process', 'pipe');
  await checkTracedCall(t, otlp, host.client, 'child', 'stdio', 'pipe');
  await checkTracedCall(t, otlp, host.client, 'remote', 'remote', 'pipe');
  await checkErrors(t, otlp, host.client, 'inproc');
  await host.client.listTools();
  const list = await otlp.span('a tools/list server span', (s) => s.name === 'tools/list' && s.kind === SERVER_KIND);
  t.equal(list.attributes['mcp.method.name'], 'tools/list');
});

t.test('a 2026-07-28 client’s input-required rounds stay in its trace', async (t) => {
  const otlp = await startOtlpReceiver(t);
  const ws = makeWorkspace(t);
  const host = await startStdioHost(t, writeMetaPlugins(ws), {
    env: otlp.env,
    clientOptions: {
      versionNegotiation: { mode: { pin: MODERN_REVISION } },
      capabilities: { elicitation: { form: {} } },
    },
  });
  host.client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'zed' } }));
  const caller = clientContext();
  const result = await host.client.callTool({
    name: 'inproc.ask',
    arguments: {},
    _meta: { traceparent: caller.traceparent },
  });
  t.equal(firstText(result), 'accept');
  const upstream = await otlp.span(
    'the client span of ask',
    (s) => s.traceId === caller.traceId && s.name === 'tools/call ask',
  );
  const elicitation = await otlp.span(
    'the elicitation span',
    (s) => s.traceId === caller.traceId && s.name === 'elicitation/create',
  );
  t.equal(elicitation.parentSpanId, upstream.spanId, 'the plugin’s question is a child of the call it was made for');
  // The call, answered with input_required, and the client's retry with the answer: two server spans, one trace.
  const rounds = () => otlp.spans.filter((s) => s.traceId === caller.traceId && s.name === 'tools/call inproc.ask');
  await host.until('both rounds’ server spans', () => rounds().length === 2);
  t.same(
    rounds().map((s) => s.parentSpanId),
    [caller.spanId, caller.spanId],
    'each round is a child of the client’s span',
  );

  // The host's log line about the round names the trace and the span it was written in (its pipe may lag the spans).
  await host
    .until('the log line about the round', () => host.log().includes('asks its 2026-07-28 client for input'))
    .catch(() => {});
  const lines = host
    .log()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg: string; trace_id?: string; span_id?: string; trace_flags?: string });
  const asking = lines.find((line) => line.msg.includes('asks its 2026-07-28 client for input'));
  t.match(asking, { trace_id: caller.traceId, span_id: rounds()[0]!.spanId, trace_flags: '01' });
  const serving = lines.find((line) => line.msg.startsWith('serving '));
  t.ok(serving, 'the host logged that it is serving');
  t.notOk('trace_id' in serving!, 'a line written outside any request names no trace');
});

t.test('a plugin’s progress and its mid-call request stay in the client’s trace', async (t) => {
  const otlp = await startOtlpReceiver(t);
  const ws = makeWorkspace(t);
  const host = await startStdioHost(t, writeMetaPlugins(ws), {
    env: otlp.env,
    clientOptions: { capabilities: { elicitation: { form: {} } } },
  });
  const asked: { traceparent?: string }[] = [];
  host.client.setRequestHandler('elicitation/create', async (request) => {
    asked.push((request.params._meta ?? {}) as { traceparent?: string });
    return { action: 'accept', content: { name: 'zed' } };
  });
  const caller = clientContext();
  let progressed = 0;
  const result = await host.client.callTool(
    { name: 'inproc.ask', arguments: {}, _meta: { traceparent: caller.traceparent } },
    { onprogress: () => progressed++ },
  );
  t.equal(firstText(result), 'accept');
  t.equal(progressed, 1, 'the progress reached the client');

  const upstream = await otlp.span(
    'the client span of ask',
    (s) => s.traceId === caller.traceId && s.name === 'tools/call ask',
  );
  t.match(
    upstream.events,
    [{ name: 'mcp.progress', attributes: { progress: 1, total: 2 } }],
    'progress is an event on it',
  );
  const elicitation = await otlp.span(
    'the elicitation span',
    (s) => s.traceId === caller.traceId && s.name === 'elicitation/create',
  );
  t.equal(elicitation.parentSpanId, upstream.spanId, 'the mount’s request is a child of the call it was made for');
  t.equal(elicitation.kind, CLIENT_KIND);
  t.equal(
    asked[0]?.traceparent,
    `00-${caller.traceId}-${elicitation.spanId}-01`,
    'the client receives its context in _meta',
  );
});

t.test('over Streamable HTTP, both eras; W3C headers parent the span when _meta has none', async (t) => {
  const otlp = await startOtlpReceiver(t);
  const ws = makeWorkspace(t);
  const host = await startHttpHost(t, writeMetaPlugins(ws), { env: otlp.env });

  const legacy = new Client({ name: 'legacy-client', version: '1.0.0' });
  await legacy.connect(new StreamableHTTPClientTransport(new URL(host.url)));
  t.teardown(() => legacy.close());
  const served = await checkTracedCall(t, otlp, legacy, 'inproc', 'in-process', 'tcp');
  t.type(served.attributes['mcp.session.id'], 'string', 'a 2025-era session’s id is on its spans');
  await checkTracedCall(t, otlp, legacy, 'child', 'stdio', 'tcp');

  const modern = new Client(
    { name: 'modern-client', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN_REVISION } } },
  );
  await modern.connect(new StreamableHTTPClientTransport(new URL(host.url)));
  t.teardown(() => modern.close());
  const stateless = await checkTracedCall(t, otlp, modern, 'inproc', 'in-process', 'tcp');
  t.equal(stateless.attributes['mcp.protocol.version'], MODERN_REVISION);
  await checkErrors(t, otlp, modern, 'inproc');

  const byHeader = clientContext();
  const headed = new Client({ name: 'header-client', version: '1.0.0' });
  await headed.connect(
    new StreamableHTTPClientTransport(new URL(host.url), {
      requestInit: { headers: { traceparent: byHeader.traceparent } },
    }),
  );
  t.teardown(() => headed.close());
  await headed.callTool({ name: 'inproc.meta', arguments: {} });
  const span = await otlp.span(
    'the server span parented by the traceparent header',
    (s) => s.traceId === byHeader.traceId && s.name === 'tools/call inproc.meta',
  );
  t.equal(span.parentSpanId, byHeader.spanId);
});

t.test(
  'the requests the SDK answers itself are traced: initialize, ping, logging/setLevel, server/discover, subscriptions/listen',
  async (t) => {
    const otlp = await startOtlpReceiver(t);
    const ws = makeWorkspace(t);
    const config = writeMetaPlugins(ws);
    const served = (method: string, transport: 'pipe' | 'tcp') =>
      otlp.span(
        `a ${method} server span over ${transport}`,
        (s) => s.name === method && s.kind === SERVER_KIND && s.attributes['network.transport'] === transport,
      );

    const legacy = await startStdioHost(t, config, { env: otlp.env });
    await legacy.client.ping();
    await legacy.client.setLoggingLevel('warning');
    t.match((await served('initialize', 'pipe')).attributes, {
      'mcp.method.name': 'initialize',
      'jsonrpc.request.id': String,
    });
    t.match((await served('ping', 'pipe')).attributes, { 'mcp.method.name': 'ping', 'mcp.protocol.version': String });
    t.match((await served('logging/setLevel', 'pipe')).attributes, { 'mcp.method.name': 'logging/setLevel' });

    const modern = await startStdioHost(t, config, {
      env: otlp.env,
      clientOptions: { versionNegotiation: { mode: { pin: MODERN_REVISION } } },
    });
    // Over stdio the SDK's client sends its connect-time server/discover to a disposable second host process it
    // reaps at once, whose span may never be exported: the discover that must be traced is one the host serving
    // this client answers.
    await modern.client.discover();
    await (await modern.client.listen({ toolsListChanged: true })).close();
    t.match((await served('server/discover', 'pipe')).attributes, { 'mcp.method.name': 'server/discover' });
    const listened = await served('subscriptions/listen', 'pipe');
    t.match(listened.attributes, { 'mcp.protocol.version': MODERN_REVISION, 'jsonrpc.request.id': String });
    t.notOk('error.type' in listened.attributes, 'an acknowledged listen carries no error');
    await otlp.point('mcp.server.operation.duration', { 'mcp.method.name': 'subscriptions/listen' });

    // Over HTTP the listen stream is opened by the endpoint; W3C headers parent its span.
    const http = await startHttpHost(t, config, { env: otlp.env });
    const caller = clientContext();
    const client = new Client(
      { name: 'listener', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: MODERN_REVISION } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(http.url), {
        requestInit: { headers: { traceparent: caller.traceparent } },
      }),
    );
    t.teardown(() => client.close());
    await (await client.listen({ toolsListChanged: true })).close();
    const overHttp = await otlp.span(
      'the subscriptions/listen span over HTTP',
      (s) => s.name === 'subscriptions/listen' && s.traceId === caller.traceId,
    );
    t.equal(overHttp.parentSpanId, caller.spanId, 'the traceparent header parents it');
    t.equal(overHttp.attributes['network.transport'], 'tcp');
    t.equal(overHttp.kind, SERVER_KIND);
    await otlp.span(
      'the server/discover span over HTTP',
      (s) => s.name === 'server/discover' && s.traceId === caller.traceId,
    );
  },
);

t.test('each containment limit hit is counted, by its config key', async (t) => {
  const otlp = await startOtlpReceiver(t);
  const ws = makeWorkspace(t);
  const config = writeInprocConfig(ws, {
    http: { port: 0, maxSessions: 1, maxListenStreams: 1, maxConnections: 12, maxBodyBytes: 1000, bodyTimeoutMs: 300 },
  });
  const host = await startHttpHost(t, config, { env: otlp.env });
  const hit = (limit: string) => otlp.point('mcp-host.limits.hit', { 'mcp-host.limit': limit });
  const { hostname, port } = new URL(host.url);
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(host.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body,
    });

  const legacy = new Client({ name: 'first-session', version: '1.0.0' });
  await legacy.connect(new StreamableHTTPClientTransport(new URL(host.url)));
  t.teardown(() => legacy.close());
  const second = new Client({ name: 'second-session', version: '1.0.0' });
  await t.rejects(second.connect(new StreamableHTTPClientTransport(new URL(host.url))), /http.maxSessions/);
  await hit('http.maxSessions');

  const modern = new Client(
    { name: 'listener', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN_REVISION } } },
  );
  await modern.connect(new StreamableHTTPClientTransport(new URL(host.url)));
  t.teardown(() => modern.close());
  const listening = await modern.listen({ toolsListChanged: true });
  t.teardown(() => listening.close());
  await t.rejects(modern.listen({ toolsListChanged: true }), /http.maxListenStreams/);
  await hit('http.maxListenStreams');

  t.equal((await post('x'.repeat(2000))).status, 413);
  await hit('http.maxBodyBytes');

  // A body that never arrives whole, then more connections held open than the host takes.
  const socket = () => {
    const opened = connect(Number(port), hostname);
    t.teardown(() => opened.destroy());
    return opened;
  };
  socket().write(
    `POST /mcp HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{`,
  );
  await hit('http.bodyTimeoutMs');
  for (let i = 0; i < 13; i++) socket();
  await hit('http.maxConnections');
});

t.test('a stdio client that stops reading its answers is counted as stdio.backpressure', async (t) => {
  const otlp = await startOtlpReceiver(t);
  const ws = makeWorkspace(t);
  const child = spawn(process.execPath, [CLI, 'start', '--config', writeInprocConfig(ws, {})], {
    env: { ...process.env, ...otlp.env, MCP_HOST_LOG_LEVEL: 'warn' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  t.teardown(() => child.kill('SIGKILL'));
  // Killed at teardown with pings still queued for it: the pipe's EPIPE then is the kill's, not a failure.
  child.stdin.on('error', () => {});
  child.stdin.write(rawInitializeLine('stops-reading'));
  child.stdin.write(jsonRpcLine({ method: 'notifications/initialized' }));
  // Never read: 10,000 answers of about 40 bytes are far more than the pipe holds.
  child.stdout.pause();
  child.stdin.write(Array.from({ length: 10_000 }, (_, i) => jsonRpcLine({ id: i + 1, method: 'ping' })).join(''));
  await otlp.point('mcp-host.limits.hit', { 'mcp-host.limit': 'stdio.backpressure' });
});

t.test('turned on by the config alone, recording arguments and results when it opts in', async (t) => {
  const otlp = await startOtlpReceiver(t);
  const ws = makeWorkspace(t);
  const config = writeInprocConfig(ws, {
    telemetry: { enabled: true, endpoint: otlp.env.OTEL_EXPORTER_OTLP_ENDPOINT, recordArguments: true },
  });
  const host = await startStdioHost(t, config, { env: { ...otlp.env, OTEL_EXPORTER_OTLP_ENDPOINT: '' } });
  const caller = clientContext();
  await host.client.callTool({
    name: 'inproc.meta',
    arguments: { secret: 'opted in' },
    _meta: { traceparent: caller.traceparent },
  });
  const span = await otlp.span('the server span', (s) => s.traceId === caller.traceId && s.kind === SERVER_KIND);
  t.equal(span.attributes['gen_ai.tool.call.arguments'], '{"secret":"opted in"}');
  t.match(span.attributes['gen_ai.tool.call.result'], /"content":\[/);

  // The session's duration is recorded when it ends; the host exports it as it stops.
  await host.client.close();
  await otlp.point('mcp.server.session.duration');
});

t.test('arguments and results are not recorded by default', async (t) => {
  const otlp = await startOtlpReceiver(t);
  const ws = makeWorkspace(t);
  const host = await startStdioHost(t, writeMetaPlugins(ws), { env: otlp.env });
  const caller = clientContext();
  await host.client.callTool({
    name: 'inproc.meta',
    arguments: { secret: 'private' },
    _meta: { traceparent: caller.traceparent },
  });
  await otlp.span('the server span', (s) => s.traceId === caller.traceId && s.kind === SERVER_KIND);
  await otlp.span('the client span', (s) => s.traceId === caller.traceId && s.kind === CLIENT_KIND);
  t.notMatch(JSON.stringify(otlp.spans), 'private', 'no span carries the arguments');
});

t.test(
  'a reload is a span with its outcome, the mounts it starts are asked under spans marked as the host’s own; dropped notifications, a fault and its restart are recorded',
  async (t) => {
    const otlp = await startOtlpReceiver(t);
    const ws = makeWorkspace(t);
    const config = writeMetaPlugins(ws);
    const host = await startStdioHost(t, config, { env: otlp.env });
    writeMetaPlugins(ws, [{ package: '@test/meta', prefix: 'again' }]);
    const reload = await runCli(['reload', '--config', config]);
    t.equal(reload.code, 0, reload.stderr);
    const span = await otlp.span('the reload span', (s) => s.name === 'mcp-host reload');
    t.equal(span.attributes['mcp-host.reload.outcome'], 'ok');
    const drain = await otlp.span(
      'the new mount’s tools/list',
      (s) => s.name === 'tools/list' && s.attributes['mcp-host.mount'] === 'again',
    );
    t.equal(drain.kind, CLIENT_KIND);
    t.equal(drain.attributes['mcp-host.initiator'], 'host', 'a drain no client asked for is the host’s own');
    t.equal(drain.parentSpanId, undefined, 'and starts its own trace');
    await otlp.point('mcp-host.reloads', { 'mcp-host.reload.outcome': 'ok' });
    await otlp.point('mcp-host.mounts', { 'mcp-host.mount.state': 'up' });
    await host.client.callTool({ name: 'again.meta', arguments: {} });

    // Notifications over the chatter limit are counted, by mount.
    await host.client.callTool({ name: 'inproc.flood', arguments: {} }, { onprogress: () => {} });
    await otlp.point('mcp-host.notifications.dropped', { 'mcp-host.mount': 'inproc' });

    // A fault and the restart that follows are the host's events too.
    await host.client.callTool({ name: 'child.exit', arguments: {} });
    const down = await otlp.span('the child going down', (s) => s.name === 'mcp-host mount down');
    t.match(down.attributes, {
      'mcp-host.mount': 'child',
      'mcp-host.mount.kind': 'stdio',
      'mcp-host.mount.outage': String,
    });
    await otlp.span(
      'the child coming back',
      (s) => s.name === 'mcp-host mount up' && s.attributes['mcp-host.mount'] === 'child',
    );
    await otlp.point('mcp-host.mount.transitions', { 'mcp-host.mount.state': 'down' });
  },
);

t.test('a reload that changes the telemetry section is served, and says the change waits for a restart', async (t) => {
  const otlp = await startOtlpReceiver(t);
  const ws = makeWorkspace(t);
  const config = writeInprocConfig(ws, { telemetry: { serviceName: 'before' } });
  const host = await startStdioHost(t, config, { env: otlp.env });

  const unchanged = await runCli(['reload', '--config', config]);
  t.equal(unchanged.code, 0, unchanged.stderr);
  t.notMatch(unchanged.stdout, 'warning:', 'a reload that leaves the section alone says nothing of it');

  writeInprocConfig(ws, { telemetry: { serviceName: 'after', recordArguments: true } });
  const reload = await runCli(['reload', '--config', config]);
  t.equal(reload.code, 0, reload.stderr);
  const warning =
    'mcp-host.config.js: telemetry: changed, but telemetry is set up once, when the host starts: this reload left it as it was. Fix: restart the host for the new telemetry section to take effect.';
  t.match(reload.stdout, `warning: ${warning}`);
  await host.until('the host to log the warning', () => host.log().includes(warning));
  await host.client.callTool({ name: 'inproc.meta', arguments: { secret: 'still private' } });
  await otlp.span('the call after the reload', (s) => s.name === 'tools/call inproc.meta');
  t.notMatch(JSON.stringify(otlp.spans), 'still private', 'the old section still applies: no arguments recorded');
});

/**
 * Preloaded into the host: every module under @opentelemetry it resolves is
 * written to stderr, whether imported (Node's module hooks) or required
 * (`require`, `createRequire`: CommonJS resolves apart from those hooks).
 */
const OPENTELEMETRY_PROBE = `import Module, { register } from 'node:module';
const hooks = \`export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.includes('/@opentelemetry/')) process._rawDebug('probe: loaded ' + resolved.url);
  return resolved;
}\`;
register('data:text/javascript,' + encodeURIComponent(hooks));
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const file = resolveFilename.call(this, request, ...rest);
  if (file.includes('/@opentelemetry/')) process._rawDebug('probe: required ' + file);
  return file;
};
`;

t.test('with no telemetry configured, no OpenTelemetry module is loaded', async (t) => {
  const otlp = await startOtlpReceiver(t);
  const ws = makeWorkspace(t);
  const config = writeMetaPlugins(ws);
  const probe = ws.writeFile('probe.mjs', OPENTELEMETRY_PROBE);
  const NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --import=${pathToFileURL(probe).href}`;
  const unset = Object.fromEntries(Object.keys(otlp.env).map((name) => [name, '']));

  const off = await startStdioHost(t, config, { env: { ...unset, NODE_OPTIONS } });
  await off.client.callTool({ name: 'inproc.meta', arguments: {} });
  await off.client.callTool({ name: 'child.meta', arguments: {} });
  t.notMatch(off.log(), /probe: (loaded|required)/, 'no @opentelemetry module was imported or required');

  // The witness that the probe sees a require: a process that requires the API through createRequire.
  const { stderr } = await promisify(execFile)(
    process.execPath,
    ['-e', "require('node:module').createRequire(process.cwd() + '/')('@opentelemetry/api')"],
    { cwd: REPO_ROOT, env: { ...process.env, NODE_OPTIONS } },
  );
  t.match(stderr, /probe: required .*@opentelemetry\/api/, 'the probe sees createRequire');
  // The witness that the probe sees them: the same host with telemetry on (in OTLP's default protocol, protobuf).
  const on = await startStdioHost(t, config, { env: { ...otlp.env, OTEL_EXPORTER_OTLP_PROTOCOL: '', NODE_OPTIONS } });
  await on.until('the probe to see @opentelemetry', () => /probe: loaded .*@opentelemetry\/sdk-trace/.test(on.log()));
  await on.client.callTool({ name: 'inproc.meta', arguments: {} });
  await on.until('spans exported in protobuf', () => otlp.protobufPosts.includes('/v1/traces'));
});

t.test('what turns telemetry on, and what is refused', async (t) => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
  t.equal(telemetrySettings(undefined, {}), undefined, 'off with neither the environment nor the config');
  t.equal(telemetrySettings({ enabled: false }, endpoint), undefined, 'telemetry.enabled: false wins over OTEL_*');
  t.equal(telemetrySettings(undefined, { ...endpoint, OTEL_SDK_DISABLED: 'true' }), undefined);
  t.equal(telemetrySettings(undefined, { OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none' }), undefined);
  t.match(
    telemetrySettings({ enabled: false }, endpoint, true),
    { traces: 'none', metrics: 'none', scraped: true },
    '/metrics (http.metrics) records metrics with OTLP export off',
  );
  t.match(telemetrySettings(undefined, endpoint), {
    serviceName: 'mcp-host',
    traces: 'otlp-protobuf',
    metrics: 'otlp-protobuf',
    spanExportDelayMs: 5000,
    metricExportIntervalMs: 60_000,
    recordArguments: false,
  });
  t.match(
    telemetrySettings(
      { enabled: true, endpoint: 'http://localhost:4318', serviceName: 'team-tools', recordArguments: true },
      { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json', OTEL_METRICS_EXPORTER: 'none' },
    ),
    {
      serviceName: 'team-tools',
      endpoint: 'http://localhost:4318',
      traces: 'otlp-json',
      metrics: 'none',
      recordArguments: true,
    },
  );
  t.match(
    telemetrySettings(
      { endpoint: 'http://from-config:4318', serviceName: 'from-config' },
      { ...endpoint, OTEL_SERVICE_NAME: 'from-env' },
    ),
    { serviceName: 'from-env', endpoint: undefined },
    'the environment wins over the config',
  );

  const refusal = (env: NodeJS.ProcessEnv) => {
    try {
      telemetrySettings(undefined, { ...endpoint, ...env });
    } catch (error) {
      return formatProblem(error as HostError);
    }
    return 'accepted';
  };
  t.equal(
    refusal({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
    'the environment: OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" is not a protocol mcp-host exports with. Fix: use "http/protobuf" or "http/json" (an OpenTelemetry Collector takes both, on port 4318).',
  );
  t.equal(
    refusal({ OTEL_TRACES_EXPORTER: 'console' }),
    'the environment: OTEL_TRACES_EXPORTER: "console" is not an exporter mcp-host has. Fix: set it to "otlp" or "none" ("console" would write to stdout, which carries JSON-RPC over stdio).',
  );
});

t.test('a host told to export with a protocol it lacks refuses to start, saying why', async (t) => {
  const ws = makeWorkspace(t);
  const config = writeMetaPlugins(ws);
  const run = await runCli(['start', '--config', config], {
    env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
  });
  t.equal(run.code, 1);
  t.match(run.stderr, 'OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" is not a protocol mcp-host exports with');
});
