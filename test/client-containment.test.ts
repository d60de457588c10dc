// Containment, client side (DESIGN.md, "Containment"): one client's data
// and load never reach another. Over HTTP on 127.0.0.1 with real SDK clients
// and raw fetch sessions, the host a child process: a log line reaches only
// the session whose call it is about, and none when its upstream cannot say
// (a stdio child; a remote's on its session stream); quiet sessions cost a
// plugin's chatter nothing; sessions are capped in total and per token and
// belong to the token that opened them; weak auth refuses to start; batches
// are refused where the revision has none. (A stdio client that stops
// reading: stdio-backpressure.test.ts.)
import { spawn } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import t, { type Test } from 'tap';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { assertLogged, eventually, runCli, startHttpHost, until, watchingNotificationStream } from './helpers/host.js';
import { makeWorkspace, type Workspace } from './helpers/packages.js';
import { EVENT_MS } from './helpers/timing.js';

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const TOKEN_A = 'token-a-0123456789abcdef';
const TOKEN_B = 'token-b-0123456789abcdef';

/**
 * A stdio MCP server written with the SDK v1, as most are: its log lines
 * (`server.sendLoggingMessage`) carry no link to the call they are about.
 * `together` waits until `of` calls of it are in flight, then each logs the
 * note it was given; `chatty` answers, then logs `lines` lines after its
 * call is over; `later` answers, then logs `finished <note>` `ms` later;
 * `meanwhile` answers once that line is written.
 */
const CHILD_SERVER = `
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'chatty-child', version: '1.0.0' }, { capabilities: { logging: {} } });
let waiting = [];
server.registerTool('together', { inputSchema: { note: z.string(), of: z.number() } }, async ({ note, of }) => {
  await new Promise((resolve) => {
    waiting.push(resolve);
    if (waiting.length >= of) waiting.splice(0).forEach((go) => go());
  });
  await server.sendLoggingMessage({ level: 'info', data: 'working on ' + JSON.stringify({ note }) });
  return { content: [{ type: 'text', text: 'done ' + note }] };
});
let lineWritten = Promise.resolve();
server.registerTool('later', { inputSchema: { note: z.string(), ms: z.number() } }, async ({ note, ms }) => {
  lineWritten = new Promise((resolve) =>
    setTimeout(() => void server.sendLoggingMessage({ level: 'info', data: 'finished ' + note }).then(resolve), ms),
  );
  return { content: [{ type: 'text', text: 'answered ' + note }] };
});
server.registerTool('meanwhile', { inputSchema: {} }, async () => {
  await lineWritten;
  return { content: [{ type: 'text', text: 'after the line' }] };
});
server.registerTool('chatty', { inputSchema: { lines: z.number() } }, async ({ lines }) => {
  setTimeout(() => {
    for (let i = 0; i < lines; i++) void server.sendLoggingMessage({ level: 'info', data: 'chatter line ' + i });
  }, 0);
  return { content: [{ type: 'text', text: 'chatting' }] };
});
await server.connect(new StdioServerTransport());
`;

function writeChildConfig(ws: Workspace, http: Record<string, unknown> = {}): string {
  const script = ws.writeFile('child/server.js', CHILD_SERVER);
  return ws.writeConfig({
    reload: { watch: false },
    http: { port: 0, ...http },
    plugins: [{ command: process.execPath, args: [script], prefix: 'child' }],
  });
}

interface Observed {
  client: Client;
  logs: string[];
}

async function sdkSession(t: Test, url: string, token?: string): Promise<Observed> {
  const stream = watchingNotificationStream();
  const client = new Client({ name: 'containment', version: '1.0.0' });
  const logs: string[] = [];
  client.setNotificationHandler('notifications/message', (n) => void logs.push(JSON.stringify(n.params.data)));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      fetch: stream.fetch,
      ...(token && { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    }),
  );
  t.teardown(() => client.close());
  await stream.opened;
  await client.setLoggingLevel('debug');
  return { client, logs };
}

/** A raw 2025-era initialize; the response and its session id. */
async function initialize(url: string, headers: Record<string, string> = {}, protocolVersion = '2025-11-25') {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...MCP_HEADERS, ...headers },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
    }),
  });
  const text = await response.text();
  const session = response.headers.get('mcp-session-id') ?? undefined;
  if (session) {
    await fetch(url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, ...headers, 'mcp-session-id': session, 'mcp-protocol-version': protocolVersion },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
  }
  return { status: response.status, text, session };
}

t.test("a stdio child's log line reaches no client: its pipe cannot say whose it is", async (t) => {
  const ws = makeWorkspace(t);
  const host = await startHttpHost(t, writeChildConfig(ws));
  const a = await sdkSession(t, host.url);
  const b = await sdkSession(t, host.url);

  // Both calls in flight at once: the child's lines could be either's.
  const [doneA, doneB] = await Promise.all([
    a.client.callTool({ name: 'child.together', arguments: { note: 'A-private-data-41', of: 2 } }),
    b.client.callTool({ name: 'child.together', arguments: { note: 'B-private-data-42', of: 2 } }),
  ]);
  t.same(
    [doneA.content, doneB.content],
    [[{ type: 'text', text: 'done A-private-data-41' }], [{ type: 'text', text: 'done B-private-data-42' }]],
  );
  await until(
    'both lines in the host log',
    () => /B-private-data-42/.test(host.log()) && /A-private-data-41/.test(host.log()),
  );
  await assertLogged(t, host.log, /log message from the plugin, tied to no single client session/);

  // B's call alone in flight: the pipe still does not say the line is about it, so no client gets it.
  await b.client.callTool({ name: 'child.together', arguments: { note: 'B-alone-43', of: 1 } });
  await until('B-alone-43 in the host log', () => host.log().includes('B-alone-43'));

  // A line about B's call, written 300 ms after B was answered, while A alone has a call in flight.
  t.same((await b.client.callTool({ name: 'child.later', arguments: { note: 'B-PRIVATE-3', ms: 300 } })).content, [
    { type: 'text', text: 'answered B-PRIVATE-3' },
  ]);
  // A's call is answered after the line is written, on the same pipe: a line sent to A would have come first.
  await a.client.callTool({ name: 'child.meanwhile', arguments: {} });
  await assertLogged(
    t,
    host.log,
    /"data":"finished B-PRIVATE-3","msg":"log message from the plugin, tied to no single client session"/,
  );
  t.same(a.logs, [], 'A never sees a line of a child that cannot say whose it is');
  t.same(b.logs, [], 'nor does B');
});

/**
 * A Streamable HTTP server (SDK v1, sessions): `work` logs `working on
 * <note>` about its call (on the call's own stream), answers, and 300 ms
 * later logs `finished <note>` about nothing (on the session's stream);
 * with `wait`, it answers only once the last such line is written.
 */
const REMOTE_SERVER = `
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const sessions = new Map();
let lineWritten = Promise.resolve();
function open() {
  const server = new McpServer({ name: 'remote', version: '1.0.0' }, { capabilities: { logging: {} } });
  server.registerTool('work', { inputSchema: { note: z.string(), wait: z.boolean().optional() } }, async ({ note, wait }, extra) => {
    await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: 'working on ' + note } });
    if (wait) await lineWritten;
    lineWritten = new Promise((resolve) =>
      setTimeout(() => server.server.sendLoggingMessage({ level: 'info', data: 'finished ' + note }).then(resolve, resolve), 300),
    );
    return { content: [{ type: 'text', text: 'done ' + note }] };
  });
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    onsessioninitialized: (id) => sessions.set(id, transport),
  });
  return server.connect(transport).then(() => transport);
}
const http = createServer(async (req, res) => {
  const transport = sessions.get(req.headers['mcp-session-id']) ?? (await open());
  await transport.handleRequest(req, res);
});
http.listen(0, '127.0.0.1', () => console.log('http://127.0.0.1:' + http.address().port + '/mcp'));
`;

t.test(
  "a remote's log line reaches the caller on its call's stream; one on the session's stream, no client",
  async (t) => {
    const ws = makeWorkspace(t);
    const remote = spawn(process.execPath, [ws.writeFile('remote/server.js', REMOTE_SERVER)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    t.teardown(() => remote.kill());
    const url = await new Promise<string>((resolve) =>
      createInterface({ input: remote.stdout }).once('line', (line) => resolve(line.trim())),
    );
    const config = ws.writeConfig({
      reload: { watch: false },
      http: { port: 0 },
      plugins: [{ url, prefix: 'remote' }],
    });
    const host = await startHttpHost(t, config);
    const a = await sdkSession(t, host.url);
    const b = await sdkSession(t, host.url);
    await b.client.callTool({ name: 'remote.work', arguments: { note: 'B-PRIVATE-7' } });
    t.same(b.logs, [JSON.stringify('working on B-PRIVATE-7')], "B gets the line its call's stream carried");
    // A's call is in flight until B's late line is written: still, that line is about no call, and A does not get it.
    await a.client.callTool({ name: 'remote.work', arguments: { note: 'A-8', wait: true } });
    await assertLogged(
      t,
      host.log,
      /"data":"finished B-PRIVATE-7","msg":"log message from the plugin, tied to no single client session"/,
    );
    t.same(a.logs, [JSON.stringify('working on A-8')], "A gets only its own call's line");
    t.same(b.logs, [JSON.stringify('working on B-PRIVATE-7')], 'and B nothing more');
  },
);

t.test('1,000 quiet sessions and a plugin logging 300 lines: /healthz stays as quick as on an idle host', async (t) => {
  const ws = makeWorkspace(t);
  const host = await startHttpHost(t, writeChildConfig(ws, { maxSessions: 1100 }));
  const health = host.url.replace(/\/mcp$/, '/healthz');
  const probe = async () => {
    const started = performance.now();
    t.equal((await fetch(health, { signal: AbortSignal.timeout(EVENT_MS) })).status, 200);
    return performance.now() - started;
  };
  // What "quick" is on this machine, now: the same host's /healthz before any session or chatter. A host
  // that walked the 1,000 sessions for each line (or blocked on a log write) stalls it by far more than 10
  // times that; a machine 10 times slower is slower in the baseline too. (100 ms at least: a quiet
  // machine's baseline of a few ms would otherwise make a scheduler hiccup a failure.)
  await probe(); // the connection opened, not counted
  let baseline = 0;
  for (let i = 0; i < 20; i++) baseline = Math.max(baseline, await probe());
  const bound = Math.max(100, 10 * baseline);
  const sessions = 1000;
  for (let opened = 0; opened < sessions; opened += 25) {
    const batch = await Promise.all(Array.from({ length: 25 }, () => initialize(host.url)));
    t.ok(
      batch.every(({ status }) => status === 200),
      `sessions ${opened}..${opened + 24} opened`,
    );
  }
  const client = await sdkSession(t, host.url);
  // Up to three rounds of chatter: a host that the sessions slow stalls in every round, while a machine's
  // one-off pause (of the host or of this process) lands in one round; the first round within the bound
  // ends it.
  const rounds: string[] = [];
  let best = Infinity;
  for (let round = 1; round <= 3 && best >= bound; round++) {
    const chatting = client.client.callTool({ name: 'child.chatty', arguments: { lines: 300 } });
    let worst = 0;
    let probes = 0;
    while (host.log().split('chatter line 299').length <= round || probes < 5) {
      worst = Math.max(worst, await probe());
      probes += 1;
    }
    await chatting;
    best = Math.min(best, worst);
    rounds.push(`${worst.toFixed(1)} ms over ${probes} probes`);
  }
  t.ok(
    best < bound,
    `/healthz answered within ${best.toFixed(1)} ms at worst in the best round (${rounds.join('; ')}), under ${bound.toFixed(0)} ms (10 times ${baseline.toFixed(1)} ms idle)`,
  );
  t.same(client.logs, [], 'the chatter, tied to no call, reached no session');
});

t.test('sessions: capped in total and per token, each bound to the token that opened it', async (t) => {
  const ws = makeWorkspace(t);
  const config = writeChildConfig(ws, { maxSessions: 3, maxSessionsPerToken: 2 });
  const host = await startHttpHost(t, config, { env: { MCP_HOST_HTTP_TOKENS: `${TOKEN_A},${TOKEN_B}` } });
  const as = (token: string) => ({ authorization: `Bearer ${token}` });

  const a1 = await sdkSession(t, host.url, TOKEN_A);
  const a2 = await initialize(host.url, as(TOKEN_A));
  t.equal(a2.status, 200);
  const a3 = await initialize(host.url, as(TOKEN_A));
  t.equal(a3.status, 429);
  t.match(JSON.parse(a3.text), {
    error: {
      message:
        'Too Many Requests: this bearer token holds 2 sessions open, its limit (http.maxSessionsPerToken); end sessions no longer used (DELETE with their Mcp-Session-Id), or raise http.maxSessionsPerToken in the host config',
    },
  });
  const b1 = await sdkSession(t, host.url, TOKEN_B);
  const b2 = await initialize(host.url, as(TOKEN_B));
  t.equal(b2.status, 503);
  t.match(JSON.parse(b2.text), {
    error: {
      message:
        'Service Unavailable: mcp-host has 3 sessions open, its limit (http.maxSessions); end sessions no longer used (DELETE with their Mcp-Session-Id), retry later, or raise http.maxSessions in the host config',
    },
  });
  t.ok((await a1.client.listTools()).tools.length > 0, 'open sessions keep working at the cap');
  t.ok((await b1.client.listTools()).tools.length > 0);

  // A's session, named with B's token: as if it did not exist, whatever B asks.
  const foreign = (method: string, body?: object) =>
    fetch(host.url, {
      method,
      headers: { ...MCP_HEADERS, ...as(TOKEN_B), 'mcp-session-id': a2.session!, 'mcp-protocol-version': '2025-11-25' },
      ...(body && { body: JSON.stringify(body) }),
    });
  const call = {
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'child.chatty', arguments: { lines: 0 } },
  };
  for (const [method, body] of [
    ['POST', call],
    ['POST', { jsonrpc: '2.0', id: 3, method: 'logging/setLevel', params: { level: 'debug' } }],
    ['GET', undefined],
    ['DELETE', undefined],
  ] as const) {
    const response = await foreign(method, body);
    t.equal(response.status, 404, `${method} ${body?.method ?? ''} with a foreign token`);
    t.match(await response.text(), /Session not found/);
  }
  const own = await fetch(host.url, {
    method: 'POST',
    headers: { ...MCP_HEADERS, ...as(TOKEN_A), 'mcp-session-id': a2.session!, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify(call),
  });
  t.equal(own.status, 200, 'the session still serves the token that opened it');
  t.match(await own.text(), /chatting/);
});

t.test('weak or missing auth refuses to start, naming the fix', async (t) => {
  const ws = makeWorkspace(t);
  const config = writeChildConfig(ws);
  const start = (env: NodeJS.ProcessEnv, http = '127.0.0.1:0') =>
    runCli(['start', '--config', config, '--http', http], {
      env: { ...process.env, MCP_HOST_HTTP_TOKENS: undefined, ...env },
    });

  const empty = await start({ MCP_HOST_HTTP_TOKENS: ' , ' });
  t.equal(empty.code, 1);
  t.match(
    empty.stderr,
    'mcp-host.config.js: http.auth: MCP_HOST_HTTP_TOKENS is set but holds no token (it is empty or only commas and spaces), so the endpoint would be served open. Fix: put one or more comma-separated tokens in MCP_HOST_HTTP_TOKENS (make one with `openssl rand -hex 32`), or unset it.',
  );
  const short = await start({ MCP_HOST_HTTP_TOKENS: `${TOKEN_A},short` });
  t.equal(short.code, 1);
  t.match(
    short.stderr,
    'mcp-host.config.js: http.auth: a token in MCP_HOST_HTTP_TOKENS is shorter than 16 characters, short enough to guess. Fix: use tokens of at least 16 characters (make one with `openssl rand -hex 32`).',
  );
  t.notMatch(short.stderr, 'short,', 'the tokens are not shown');
  const open = await start({}, '0.0.0.0:0');
  t.equal(open.code, 1);
  t.match(
    open.stderr,
    "mcp-host.config.js: http.auth: the endpoint would be bound to 0.0.0.0, reachable beyond this machine, with no auth. Fix: set MCP_HOST_HTTP_TOKENS to a token (make one with `openssl rand -hex 32`), or set http.auth: 'none' in the config if an authenticating proxy guards it, or bind 127.0.0.1.",
  );

  const optedOut = ws.writeConfig(
    readFileSync(config, 'utf8').replace('"port": 0', '"port": 0, "auth": "none"'),
    'opted-out.config.js',
  );
  const contradicted = await runCli(['start', '--config', optedOut, '--http', '127.0.0.1:0'], {
    env: { ...process.env, MCP_HOST_HTTP_TOKENS: TOKEN_A },
  });
  t.equal(contradicted.code, 1);
  t.match(
    contradicted.stderr,
    "opted-out.config.js: http.auth: is 'none' (no auth), but MCP_HOST_HTTP_TOKENS is set in the environment. Fix: remove http.auth: 'none' to require those tokens, or unset MCP_HOST_HTTP_TOKENS.",
  );
  const host = await startHttpHost(t, optedOut, {
    args: ['--http', '0.0.0.0:0'],
    env: { MCP_HOST_HTTP_TOKENS: undefined },
  });
  await assertLogged(t, host.log, /reachable beyond this machine with no auth of its own \(http.auth: 'none'\)/);
});

t.test('HTTP batches: refused where the revision has none, as over stdio', async (t) => {
  const ws = makeWorkspace(t);
  const host = await startHttpHost(t, writeChildConfig(ws));
  const batch = JSON.stringify([{ jsonrpc: '2.0', id: 7, method: 'ping' }]);
  const post = (session: string, protocolVersion: string) =>
    fetch(host.url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': protocolVersion },
      body: batch,
    });
  const modern = await initialize(host.url);
  const refused = await post(modern.session!, '2025-11-25');
  t.equal(refused.status, 400);
  t.same(await refused.json(), {
    jsonrpc: '2.0',
    error: {
      code: -32600,
      message:
        'Invalid Request: this session speaks MCP 2025-11-25, which has no JSON-RPC batches; send one message per request',
    },
    id: null,
  });
  const old = await initialize(host.url, {}, '2025-03-26');
  const served = await post(old.session!, '2025-03-26');
  t.equal(served.status, 200, 'a 2025-03-26 session may still batch');
  t.match(await served.text(), /"id":7/);
});

t.test('connections, body deadline: each refusal names its key', async (t) => {
  const ws = makeWorkspace(t);
  const host = await startHttpHost(t, writeChildConfig(ws, { maxConnections: 2, bodyTimeoutMs: 300 }));
  const { hostname, port } = new URL(host.url);
  const rawExchange = (request: string) =>
    new Promise<{ text: string; socket: ReturnType<typeof connect> }>((resolve) => {
      const socket = connect(Number(port), hostname, () => socket.write(request));
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('close', () => resolve({ text, socket }));
    });

  // A body that does not arrive in time: 408, naming http.bodyTimeoutMs.
  const slow = await rawExchange(
    `POST /mcp HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: 100\r\n\r\n{"jsonrpc"`,
  );
  t.match(slow.text, /^HTTP\/1.1 408/);
  t.match(slow.text, /the request body did not arrive within 300 ms \(http.bodyTimeoutMs\)/);

  // Two connections held open; the third is told which limit it hit.
  const held = [connect(Number(port), hostname), connect(Number(port), hostname)];
  t.teardown(() => held.forEach((socket) => socket.destroy()));
  await Promise.all(held.map((socket) => new Promise((resolve) => socket.once('connect', resolve))));
  const third = await rawExchange(`GET /healthz HTTP/1.1\r\nhost: ${hostname}\r\n\r\n`);
  t.match(third.text, /^HTTP\/1.1 503/);
  t.match(third.text, /mcp-host has 2 connections open, its limit \(http.maxConnections\)/);
});

/** An in-process plugin whose `flood` tool sends `count` updates of a long resource URI, for a subscribed reader. */
const FLOOD_URI = `feed://${'x'.repeat(4000)}`;
const FLOODING_PLUGIN = `import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
export default {
  create() {
    const server = new McpServer({ name: 'feed', version: '1.0.0' }, { capabilities: { resources: { subscribe: true } } });
    server.registerResource('feed', ${JSON.stringify(FLOOD_URI)}, {}, async (uri) => ({ contents: [{ uri: uri.href, text: 'feed' }] }));
    server.server.setRequestHandler('resources/subscribe', async () => ({}));
    server.server.setRequestHandler('resources/unsubscribe', async () => ({}));
    server.registerTool('flood', { inputSchema: z.object({ count: z.number() }) }, async ({ count }) => {
      for (let i = 0; i < count; i++) await server.server.sendResourceUpdated({ uri: ${JSON.stringify(FLOOD_URI)} });
      return { content: [{ type: 'text', text: 'flooded' }] };
    });
    return server;
  },
};
`;

t.test(
  'a GET stream its client stops reading is closed over http.maxStreamQueueBytes; the session goes on',
  async (t) => {
    const ws = makeWorkspace(t);
    ws.writePackage(
      'node_modules/@t/feed',
      { name: '@t/feed', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': { prefix: 'feed' } },
      { 'index.js': FLOODING_PLUGIN },
    );
    const config = ws.writeConfig({
      reload: { watch: false },
      http: { port: 0, maxStreamQueueBytes: 256 * 1024 },
      plugins: [{ package: '@t/feed' }],
    });
    const host = await startHttpHost(t, config);
    const { session } = await initialize(host.url);
    const headers = { ...MCP_HEADERS, 'mcp-session-id': session!, 'mcp-protocol-version': '2025-11-25' };
    const post = (body: object) =>
      fetch(host.url, { method: 'POST', headers, body: JSON.stringify(body) }).then((response) => response.text());
    await post({ jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: FLOOD_URI } });
    // The GET stream, opened and then never read.
    const unread = await new Promise<IncomingMessage>((resolve, reject) =>
      httpRequest(host.url, { headers: { ...headers, accept: 'text/event-stream' } })
        .on('response', resolve)
        .on('error', reject)
        .end(),
    );
    unread.pause();
    t.teardown(() => unread.destroy());
    // 20,000 updates of 4 KB: far more than the socket's buffers and the bound hold.
    t.match(
      await post({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'feed.flood', arguments: { count: 20_000 } },
      }),
      /flooded/,
    );
    await until('the host closing the unread stream', () =>
      /closed an HTTP stream whose client left more than 262144 bytes unread \(http.maxStreamQueueBytes\)/.test(
        host.log(),
      ),
    );
    t.match(await post({ jsonrpc: '2.0', id: 4, method: 'tools/list' }), /feed.flood/, 'the session still answers');
    const again = await fetch(host.url, { headers: { ...headers, accept: 'text/event-stream' } });
    t.equal(again.status, 200, 'and its client can open its GET stream again');
    await again.body?.cancel();
  },
);

t.test(
  'the control channel: a connection that sends nothing is closed; the socket goes when the host does',
  async (t) => {
    const ws = makeWorkspace(t);
    const runtimeDir = ws.writeFile('run/.keep', '').replace(/\/\.keep$/, '');
    chmodSync(runtimeDir, 0o700);
    const host = await startHttpHost(t, writeChildConfig(ws), { env: { XDG_RUNTIME_DIR: runtimeDir } });
    const sockets = () => readdirSync(join(runtimeDir, 'mcp-host')).filter((name) => name.endsWith('.sock'));
    t.equal(sockets().length, 1, 'the host listens on its control socket');
    const idle = connect(join(runtimeDir, 'mcp-host', sockets()[0]!));
    const opened = Date.now();
    await new Promise((resolve) => idle.once('close', resolve));
    const held = Date.now() - opened;
    // The host closes it at its 5 s command timeout (host/reload/control-channel.ts): not before (a timer never
    // fires early; 4 s allows for the clocks), and the close is an event, bounded by EVENT_MS after it.
    t.ok(held >= 4_000 && held < 5_000 + EVENT_MS, `the idle connection was closed after ${held} ms`);
    host.child.kill('SIGTERM');
    t.equal(await host.exited, 0);
    t.same(sockets(), [], 'the socket was removed at exit');
  },
);

t.test('2026-07-28 listen streams are capped by http.maxListenStreams', async (t) => {
  const ws = makeWorkspace(t);
  const host = await startHttpHost(t, writeChildConfig(ws, { maxListenStreams: 1 }));
  const modernClient = async () => {
    const client = new Client(
      { name: 'modern', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(host.url)));
    t.teardown(() => client.close());
    return client;
  };
  const first = await modernClient();
  const open = await first.listen({ toolsListChanged: true });
  t.teardown(() => open.close());
  const second = await modernClient();
  await t.rejects(
    second.listen({ toolsListChanged: true }),
    /mcp-host has 1 subscriptions\/listen streams open, its limit \(http.maxListenStreams\)/,
  );
  t.ok((await second.listTools()).tools.length > 0, 'the refused client is served otherwise');
  await open.close();
  // The host learns the stream ended when its connection closes: until then the place is still taken.
  // Asked again until the suite's bound for an event, not for 100 tries (5 s and more of round trips).
  let again: Awaited<ReturnType<Client['listen']>> | undefined;
  await eventually('the ended stream to free its place', async () => {
    again = await second.listen({ toolsListChanged: true }).catch(() => undefined);
    return again !== undefined;
  }).catch(() => {});
  t.ok(again, 'a stream ended frees its place');
  await again?.close();
});
