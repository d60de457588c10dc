// Era fidelity: a server that shows each era its own face on one URL or pipe
// (test/fixtures/dual-era-server: legacy clients get an SDK v1 server with
// sessions, logging, completions, subscriptions, elicitation and sampling;
// 2026-07-28 clients an SDK v2 server with other tools and input_required)
// is mounted by URL and as a stdio child, and each client gets through the
// host what the same client gets from the server directly, in the same test:
// a legacy client (SDK v1, over stdio and HTTP) and a 2026-07-28 client
// (SDK v2, over HTTP). Real parts: the server runs in its own processes, the
// host as a child process, the clients are the SDKs' own.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import t, { type Test } from 'tap';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { CLI, assertLogged, runCli, startHttpHost, until, watchingNotificationStream } from './helpers/host.js';
import { startListening } from './helpers/listening-server.js';
import { REPO_ROOT, makeWorkspace } from './helpers/packages.js';
import { firstText } from './helpers/results.js';

const SERVER = join(REPO_ROOT, 'test/fixtures/dual-era-server/server.js');
const WATCHED = 'dual://legacy/watched';
const MODERN = '2026-07-28';
/** The legacy face's tools, sorted: its own, and those the conformance suite's 2025-era scenarios call. */
const LEGACY_TOOLS = [
  'legacy_ask',
  'legacy_echo',
  'legacy_grow',
  'legacy_log',
  'legacy_sample',
  'legacy_touch',
  'test_elicitation',
  'test_elicitation_sep1034_defaults',
  'test_elicitation_sep1330_enums',
  'test_sampling',
  'test_tool_with_logging',
];

/** The modern face's tools, sorted: its own, and the diagnostics the suite's 2026-07-28 `server-stateless` calls. */
const MODERN_TOOLS = [
  'modern_ask',
  'modern_echo',
  'modern_grow',
  'test_logging_tool',
  'test_missing_capability',
  'test_streaming_elicitation',
];

/** The fixture over HTTP, on a port of its own (`options`: its flags); stopped when the test ends. */
async function startServer(t: Test, ...options: string[]): Promise<string> {
  const { url, child } = await startListening(t, [SERVER, '--http', '0', ...options]);
  child.stderr.pipe(process.stderr);
  return url;
}

/**
 * Configs mounting the fixture flat (so its names are unchanged): by URL, as a stdio child shared by every client,
 * and as a stdio child per client session.
 */
function mounts(t: Test, url: string): { web: string; pipe: string; ownPipe: string } {
  const ws = makeWorkspace(t);
  const child = { command: process.execPath, args: [SERVER, '--stdio'], flat: true };
  return {
    web: ws.writeConfig({ reload: { watch: false }, plugins: [{ url, flat: true }] }, 'web.config.js'),
    pipe: ws.writeConfig({ reload: { watch: false }, plugins: [child] }, 'pipe.config.js'),
    ownPipe: ws.writeConfig(
      { reload: { watch: false }, plugins: [{ ...child, sessions: 'per-client' }] },
      'own-pipe.config.js',
    ),
  };
}

/** What one client saw of one face: the names it was served (without the mount's prefix) and what each call did. */
interface Seen {
  tools: string[];
  capabilities: Record<string, unknown>;
  calls: Record<string, unknown>;
}

const ANSWERED_NAME = 'Ada';

/** Everything a legacy client can do with the legacy face, . */
async function legacyWalk(client: LegacyClient): Promise<Seen> {
  const asked: string[] = [];
  const logged: string[] = [];
  const updated: string[] = [];
  const {
    ElicitRequestSchema,
    CreateMessageRequestSchema,
    LoggingMessageNotificationSchema,
    ResourceUpdatedNotificationSchema,
  } = await import('@modelcontextprotocol/sdk/types.js');
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    return { action: 'accept', content: { name: ANSWERED_NAME } };
  });
  client.setRequestHandler(CreateMessageRequestSchema, async () => {
    asked.push('sampling');
    return { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'test-model' };
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logged.push(String(n.params.data)));
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
  const tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    firstText((await client.callTool({ name: name, arguments: args })) as never);
  await client.setLoggingLevel('info');
  const calls: Record<string, unknown> = {
    echo: await call('legacy_echo', { text: 'x' }),
    ask: await call('legacy_ask'),
    sample: await call('legacy_sample'),
    log: await call('legacy_log'),
  };
  await client.subscribeResource({ uri: WATCHED });
  calls.touch = await call('legacy_touch');
  await until('the resource update', () => updated.length > 0);
  await client.unsubscribeResource({ uri: WATCHED });
  calls.completion = (
    await client.complete({
      ref: { type: 'ref/prompt', name: 'legacy_colour' },
      argument: { name: 'colour', value: 'r' },
    })
  ).completion.values;
  calls.asked = asked;
  calls.logged = logged;
  calls.updated = updated;
  const { logging, completions, resources } = client.getServerCapabilities() ?? {};
  return { tools, capabilities: { logging, completions, subscribe: resources?.subscribe }, calls };
}

/** Everything a 2026-07-28 client can do with the modern face. */
async function modernWalk(client: Client): Promise<Seen> {
  const asked: string[] = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(String(request.params.message));
    return { action: 'accept', content: { name: ANSWERED_NAME, value: 'v' } };
  });
  const tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    firstText(await client.callTool({ name: name, arguments: args }));
  const calls: Record<string, unknown> = {
    echo: await call('modern_echo', { text: 'x' }),
    ask: await call('modern_ask'),
    completion: (
      await client.complete({
        ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
        argument: { name: 'arg1', value: 'test' },
      })
    ).completion.values,
    // What the suite's server-stateless calls: an input_required on the call's own stream, and a
    // refusal (-32021, sent with HTTP 400) of a call needing sampling, which this client did not declare.
    streaming: await call('test_streaming_elicitation'),
    missingCapability: await call('test_missing_capability').catch((error: { code?: unknown; message?: unknown }) => ({
      code: error.code,
      message: error.message,
    })),
    asked,
  };
  const { logging, completions, resources } = client.getServerCapabilities() ?? {};
  return { tools, capabilities: { logging, completions, subscribe: resources?.subscribe }, calls };
}

const legacyClient = () =>
  new LegacyClient({ name: 'legacy-client', version: '1.0.0' }, { capabilities: { elicitation: {}, sampling: {} } });
const modernClient = () =>
  new Client(
    { name: 'modern-client', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: MODERN } } },
  );

t.test('a legacy client sees the legacy face through the host, as it does directly (HTTP and stdio)', async (t) => {
  const url = await startServer(t);
  const configs = mounts(t, url);

  const direct = legacyClient();
  await direct.connect(new LegacyHttp(new URL(url)));
  t.teardown(() => direct.close());
  const expected = await legacyWalk(direct);
  t.same(expected.tools, LEGACY_TOOLS);
  t.same(expected.capabilities, { logging: {}, completions: {}, subscribe: true });
  t.same(expected.calls.logged, ['info line', 'warning line'], 'directly, log lines arrive at the level set');

  const directStdio = legacyClient();
  await directStdio.connect(new LegacyStdio({ command: process.execPath, args: [SERVER, '--stdio'] }));
  t.teardown(() => directStdio.close());
  t.same(await legacyWalk(directStdio), expected, 'the fixture shows the same legacy face on its pipe');

  for (const [kind, config] of Object.entries(configs)) {
    const host = await startHttpHost(t, config);
    const overHttp = legacyClient();
    await overHttp.connect(new LegacyHttp(new URL(host.url)));
    t.teardown(() => overHttp.close());
    const seen = await legacyWalk(overHttp);
    if (kind !== 'pipe') {
      // A child of its own (sessions: 'per-client') is this client's alone: its log lines are this client's too.
      t.same(seen, expected, `mounted by ${kind}, a legacy HTTP client gets the legacy face`);
      continue;
    }
    // A stdio child's log line names no call, so containment sends it to the host's log and to no client,
    // even one alone with calls in flight (client-containment.test.ts); the rest of the face is as direct.
    t.same(
      seen,
      { ...expected, calls: { ...expected.calls, logged: [] } },
      "mounted by pipe, a legacy HTTP client gets the legacy face; the child's log lines go to the host's log",
    );
    await assertLogged(
      t,
      host.log,
      /"data":"warning line","msg":"log message from the plugin, tied to no single client session"/,
    );
  }

  const overStdio = legacyClient();
  await overStdio.connect(
    new LegacyStdio({ command: process.execPath, args: [CLI, 'start', '--config', configs.web], stderr: 'ignore' }),
  );
  t.teardown(() => overStdio.close());
  t.same(await legacyWalk(overStdio), expected, 'a legacy stdio client gets the legacy face');

  const overStdioOwnPipe = legacyClient();
  await overStdioOwnPipe.connect(
    new LegacyStdio({ command: process.execPath, args: [CLI, 'start', '--config', configs.ownPipe], stderr: 'ignore' }),
  );
  t.teardown(() => overStdioOwnPipe.close());
  t.same(
    await legacyWalk(overStdioOwnPipe),
    expected,
    'a legacy stdio client gets the legacy face of a child of its own, log lines and all',
  );
});

t.test('a 2026-07-28 client sees the modern face through the host, as it does directly', async (t) => {
  const url = await startServer(t);
  const direct = modernClient();
  await direct.connect(new StreamableHTTPClientTransport(new URL(url)));
  t.teardown(() => direct.close());
  const expected = await modernWalk(direct);
  t.same(expected.tools, MODERN_TOOLS);
  t.same(expected.calls.asked, ['What is your name?', 'Which value?'], 'directly, input_required asked the client');
  t.equal(expected.calls.streaming, 'value: v');
  t.match(expected.calls.missingCapability, { code: -32021 }, 'directly, refused for want of sampling');

  for (const [kind, config] of Object.entries(mounts(t, url))) {
    const host = await startHttpHost(t, config);
    const client = modernClient();
    await client.connect(new StreamableHTTPClientTransport(new URL(host.url)));
    t.teardown(() => client.close());
    t.equal(client.getNegotiatedProtocolVersion(), MODERN);
    t.same(await modernWalk(client), expected, `mounted by ${kind}, a 2026-07-28 client gets the modern face`);
  }
});

t.test(
  "a 2026-07-28 upstream's error that comes with an HTTP 4xx status reaches the client as it said it, and its mount stays up",
  async (t) => {
    // That revision answers a method a server lacks (here completion/complete, which the host offers a
    // 2026-07-28 client for any such mount serving prompts) with -32601 and HTTP 404: an answer, not a
    // server gone. Taken for an outage, one client's request dropped the mount for every client.
    const url = await startServer(t, '--modern-without-completions');
    // The JSON-RPC error the client was answered: the SDK's client reads one sent with a 404 only as an
    // HTTP error whose body carries it; through the host it is an ordinary error answer.
    const complete = (client: Client) =>
      client
        .complete({ ref: { type: 'ref/prompt', name: 'modern_shape' }, argument: { name: 'shape', value: 'c' } })
        .then(
          () => 'completed',
          (error: { code?: unknown; message?: unknown; data?: { text?: string } }) =>
            error.data?.text === undefined
              ? { code: error.code, message: error.message }
              : (JSON.parse(error.data.text) as { error: unknown }).error,
        );
    const direct = modernClient();
    await direct.connect(new StreamableHTTPClientTransport(new URL(url)));
    t.teardown(() => direct.close());
    const expected = await complete(direct);
    t.same(expected, { code: -32601, message: 'Method not found' }, 'directly, the face has no completions');

    const host = await startHttpHost(t, mounts(t, url).web);
    const client = modernClient();
    await client.connect(new StreamableHTTPClientTransport(new URL(host.url)));
    t.teardown(() => client.close());
    t.same(await complete(client), expected, "through the host, the upstream's own error");
    t.same((await client.listTools()).tools.map((tool) => tool.name).sort(), MODERN_TOOLS, 'the mount is still served');
    t.notMatch(host.log(), /went down/, 'the mount was never taken for down');
  },
);

t.test(
  'a hand-written 2026-07-28 server that refuses with 404 what it lacks (a listen stream, a cancellation) stays mounted; a bare 404 is an outage',
  async (t) => {
    const ws = makeWorkspace(t);
    // As the conformance suite's hand-written servers do: every method it lacks, notifications too, is
    // answered -32601 with HTTP 404; initialize is refused, so it has no legacy face.
    const strict = ws.writeFile(
      'strict.mjs',
      `import { createServer } from 'node:http';
const results = {
  'server/discover': { supportedVersions: ['2026-07-28'], capabilities: { tools: { listChanged: true } } },
  'tools/list': { tools: [{ name: 'slow', inputSchema: { type: 'object' } }, { name: 'retire', inputSchema: { type: 'object' } }] },
};
let retired = false;
const http = createServer(async (req, res) => {
  let body = '';
  for await (const chunk of req) body += chunk;
  if (retired) return res.writeHead(404).end('no MCP here any more');
  const m = JSON.parse(body);
  const answer = (status, payload) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: m.id ?? null, ...payload }));
  if (m.method === 'tools/call' && m.params.name === 'retire') retired = true;
  if (m.method === 'tools/call') return void process.stderr.write('holding tools/call\\n'); // the client cancels it
  if (m.method === 'initialize') return answer(400, { error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'] } } });
  if (results[m.method]) return answer(200, { result: { resultType: 'complete', ...results[m.method] } });
  process.stderr.write('refused ' + m.method + '\\n');
  answer(404, { error: { code: -32601, message: 'Method not found' } });
});
http.listen(0, '127.0.0.1', () => process.stdout.write('listening on http://127.0.0.1:' + http.address().port + '/mcp\\n'));
`,
    );
    const { url, child } = await startListening(t, [strict]);
    let refused = ''; // what it said of each request it did not answer
    child.stderr.on('data', (chunk: Buffer) => (refused += chunk.toString()));
    const host = await startHttpHost(t, ws.writeConfig({ reload: { watch: false }, plugins: [{ url, flat: true }] }));
    await assertLogged(t, host.log, /ended its subscriptions\/listen stream \(Method not found\)/);

    const client = modernClient();
    await client.connect(new StreamableHTTPClientTransport(new URL(host.url)));
    t.teardown(() => client.close());
    const abort = new AbortController();
    const call = client.callTool({ name: 'slow', arguments: {} }, { signal: abort.signal });
    call.catch(() => {});
    await until('the call to reach the server', () => refused.includes('holding tools/call'));
    abort.abort();
    await until('the cancellation to be refused', () => refused.includes('refused notifications/cancelled'));
    t.same(
      (await client.listTools()).tools.map((tool) => tool.name),
      ['slow', 'retire'],
      'the mount is still served',
    );
    t.notMatch(host.log(), /went down/, 'neither refusal was taken for the server gone');

    // A bare 404, not a JSON-RPC refusal, says the endpoint itself is gone: that is an outage.
    void client.callTool({ name: 'retire', arguments: {} }).catch(() => {});
    await until('the server to retire its endpoint', () => refused.split('holding tools/call').length === 3);
    await client.callTool({ name: 'slow', arguments: {} }).catch(() => {});
    await assertLogged(t, host.log, /went down: \S+ answered HTTP 404/);
  },
);

t.test(
  'a change in one face (its own list_changed, a reload) is announced to that era alone; each face is pinned on its own',
  async (t) => {
    const url = await startServer(t);
    const { pipe } = mounts(t, url);
    // A control channel of its own, for `mcp-host reload`.
    const runtimeDir = join(dirname(pipe), 'run');
    mkdirSync(runtimeDir, { mode: 0o700 });
    const env = { ...process.env, XDG_RUNTIME_DIR: runtimeDir };
    const host = await startHttpHost(t, pipe, { env });
    const { ToolListChangedNotificationSchema, ResourceUpdatedNotificationSchema } =
      await import('@modelcontextprotocol/sdk/types.js');
    const legacy = legacyClient();
    let legacyTold = 0;
    legacy.setNotificationHandler(ToolListChangedNotificationSchema, () => void legacyTold++);
    const opened = watchingNotificationStream();
    await legacy.connect(new LegacyHttp(new URL(host.url), { fetch: opened.fetch }));
    t.teardown(() => legacy.close());
    await opened.opened;
    const modern = modernClient();
    let modernTold = 0;
    modern.setNotificationHandler('notifications/tools/list_changed', () => void modernTold++);
    await modern.connect(new StreamableHTTPClientTransport(new URL(host.url)));
    t.teardown(() => modern.close());
    const stream = await modern.listen({ toolsListChanged: true });
    t.teardown(() => stream.close());

    t.equal(firstText((await legacy.callTool({ name: 'legacy_grow', arguments: {} })) as never), 'grew');
    await until('tools/list_changed to the legacy client', () => legacyTold > 0);
    t.ok(
      (await legacy.listTools()).tools.some((tool) => tool.name === 'legacy_grown'),
      'the legacy face grew',
    );
    // The modern face changes next: its announcement comes after any the legacy change had wrongly caused.
    t.equal(firstText(await modern.callTool({ name: 'modern_grow', arguments: {} })), 'grew');
    await until('tools/list_changed to the 2026-07-28 client', () => modernTold > 0);
    t.equal(modernTold, 1, 'the 2026-07-28 client heard of its own face only');
    t.same((await modern.listTools()).tools.map((tool) => tool.name).sort(), [...MODERN_TOOLS, 'modern_grown'].sort());
    t.equal(legacyTold, 1, 'the legacy client heard of its own face only');

    const pinned = await runCli(['pin', '--config', pipe]);
    t.equal(pinned.code, 0, pinned.stderr);
    const lock = JSON.parse(readFileSync(join(dirname(pipe), 'mcp-host.lock.json'), 'utf8')) as {
      mounts: Record<string, { tools?: Record<string, unknown> }>;
    };
    const faces = Object.fromEntries(
      Object.entries(lock.mounts).map(([key, lists]) => [
        key.endsWith(' (legacy)') ? 'legacy' : 'modern',
        Object.keys(lists.tools ?? {}).sort(),
      ]),
    );
    t.same(
      faces,
      {
        modern: MODERN_TOOLS,
        legacy: LEGACY_TOOLS,
      },
      'each face pinned under its own key',
    );

    const listed = await runCli(['list', '--config', pipe]);
    t.match(
      listed.stdout,
      /\n {2}tools \(2026-07-28\): modern_echo, modern_ask, modern_grow, test_streaming_elicitation, /,
      'list: each face under its era',
    );
    t.match(listed.stdout, /\n {2}tools \(2025-era\): legacy_echo, legacy_ask, /);

    // Curation is judged per view: excluding a tool of one face changes that era's catalogue alone.
    const curated = (exclude: string[]) =>
      writeFileSync(
        pipe,
        `export default ${JSON.stringify({
          reload: { watch: false },
          plugins: [{ command: process.execPath, args: [SERVER, '--stdio'], flat: true, tools: { exclude } }],
        })};`,
      );
    curated(['legacy_echo']);
    t.equal((await runCli(['reload', '--config', pipe], { env })).code, 0);
    await until('the legacy client told of its curated face', () => legacyTold === 2);
    t.notOk(
      (await legacy.listTools()).tools.some((tool) => tool.name === 'legacy_echo'),
      'curated out',
    );
    curated(['legacy_echo', 'modern_echo']);
    t.equal((await runCli(['reload', '--config', pipe], { env })).code, 0);
    // Each stream delivers in order: a notification the first reload leaked would have come before this one.
    await until('the 2026-07-28 client told of its curated face', () => modernTold >= 2);
    t.equal(modernTold, 2, 'the 2026-07-28 client heard of the reload that changed its face only');
    // And a resource update, after any notification the second reload leaked, on the legacy session's stream.
    let updated = 0;
    legacy.setNotificationHandler(ResourceUpdatedNotificationSchema, () => void updated++);
    await legacy.subscribeResource({ uri: WATCHED });
    await legacy.callTool({ name: 'legacy_touch', arguments: {} });
    await until('the resource update', () => updated > 0);
    t.equal(legacyTold, 2, 'the legacy client heard of the reload that changed its face only');
  },
);

t.test(
  'a 2026-07-28 pipe that never answers initialize is bridged once the wait for its legacy face ends',
  async (t) => {
    const ws = makeWorkspace(t);
    // Speaks 2026-07-28 by hand and ignores what it does not know, as a hand-written server may; it
    // answers completion/complete without declaring completions.
    const silent = ws.writeFile(
      'silent.mjs',
      `import { createInterface } from 'node:readline';
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
const results = {
  'server/discover': { supportedVersions: ['2026-07-28'], capabilities: { tools: {}, prompts: {} } },
  'tools/list': { tools: [{ name: 'quiet', inputSchema: { type: 'object' } }] },
  'tools/call': { content: [{ type: 'text', text: 'shh' }] },
  'prompts/list': { prompts: [{ name: 'quiet_prompt', arguments: [{ name: 'volume' }] }] },
  'completion/complete': { completion: { values: ['loud'] } },
};
createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  if (results[m.method]) send({ id: m.id, result: { resultType: 'complete', ...results[m.method] } });
});
`,
    );
    const config = ws.writeConfig({
      reload: { watch: false },
      upstreams: { startTimeoutMs: 5000 },
      plugins: [{ command: process.execPath, args: [silent], flat: true }],
    });
    const host = await startHttpHost(t, config, { env: { MCP_HOST_LOG_LEVEL: 'debug' } });
    t.match(
      host.log(),
      /speaks 2026-07-28 only \(no answer to initialize within 5000 ms\): legacy clients are bridged/,
    );
    const legacy = legacyClient();
    await legacy.connect(new LegacyHttp(new URL(host.url)));
    t.teardown(() => legacy.close());
    t.equal(firstText((await legacy.callTool({ name: 'quiet', arguments: {} })) as never), 'shh', 'served, bridged');
    t.equal(legacy.getServerCapabilities()?.completions, undefined, 'no completions offered that nobody declared');

    const modern = modernClient();
    await modern.connect(new StreamableHTTPClientTransport(new URL(host.url)));
    t.teardown(() => modern.close());
    const ref = { type: 'ref/prompt' as const, name: 'quiet_prompt' };
    t.same(
      (await modern.complete({ ref, argument: { name: 'volume', value: 'l' } })).completion.values,
      ['loud'],
      'a 2026-07-28 client completes as it would directly: the mount answers',
    );
  },
);

t.test(
  "a legacy client with default settings hears the log lines of its own call through a shared HTTP mount, and no one else's",
  async (t) => {
    const url = await startServer(t);
    const host = await startHttpHost(t, mounts(t, url).web);
    const connect = async () => {
      const client = legacyClient();
      const logged: unknown[] = [];
      const { LoggingMessageNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logged.push(n.params.data));
      await client.connect(new LegacyHttp(new URL(host.url)));
      t.teardown(() => client.close());
      return { client, logged };
    };
    const caller = await connect();
    const bystander = await connect();
    // No logging/setLevel: every line of the call is the caller's, as it is directly.
    t.equal(
      firstText((await caller.client.callTool({ name: 'test_tool_with_logging', arguments: {} })) as never),
      'Tool with logging executed successfully',
    );
    t.same(caller.logged, ['Tool started', 'Tool processing', 'Tool completed'], "the call's log lines, in order");
    await bystander.client.callTool({ name: 'legacy_echo', arguments: { text: 'x' } });
    t.same(bystander.logged, [], 'another client hears none of them');
  },
);
