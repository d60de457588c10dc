// One upstream per client session (`sessions: 'per-client'`, docs/isolation.md): each 2025-era client
// session gets a child process (or an upstream HTTP session) of its own for its requests, so what that
// upstream says about no request reaches that session alone, and its state is that session's. The host
// runs as a child process, driven by the SDK's own clients over HTTP on 127.0.0.1 and over stdio; the
// upstreams are real MCP servers written with the SDK v1, as most are.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import t, { type Test } from 'tap';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { configProblems } from './helpers/config-problems.js';
import {
  assertLogged,
  eventually,
  startHttpHost,
  startStdioHost,
  until,
  watchingNotificationStream,
} from './helpers/host.js';
import { REPO_ROOT, makeWorkspace, type Workspace } from './helpers/packages.js';
import { assertExited, assertNoneLeft, isAlive, processesIn } from './helpers/processes.js';
import { requireEngine } from './helpers/engines.js';

/**
 * A stdio server: `count` counts its own calls and says its pid; `later`
 * answers, then logs `finished <note>` `ms` later, about no request (the
 * pipe cannot say whose it is); `touch` tells its subscribers that
 * `note://x` changed, and says how many URIs are subscribed in this
 * process; `wait` answers after `ms`.
 */
const COUNTER_SERVER = `
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const server = new McpServer(
  { name: 'counter', version: '1.0.0' },
  { capabilities: { logging: {}, resources: { subscribe: true } } },
);
const subscribed = new Set();
server.registerResource('note', 'note://x', {}, async () => ({ contents: [{ uri: 'note://x', text: 'x' }] }));
server.server.setRequestHandler(SubscribeRequestSchema, async ({ params }) => (subscribed.add(params.uri), {}));
server.server.setRequestHandler(UnsubscribeRequestSchema, async ({ params }) => (subscribed.delete(params.uri), {}));
server.registerTool('touch', { inputSchema: {} }, async () => {
  for (const uri of subscribed) await server.server.sendResourceUpdated({ uri });
  return { content: [{ type: 'text', text: String(subscribed.size) }] };
});
server.registerTool('wait', { inputSchema: { ms: z.number() } }, async ({ ms }) => {
  console.error('waiting ' + ms + ' ms');
  await new Promise((resolve) => setTimeout(resolve, ms));
  return { content: [{ type: 'text', text: 'waited' }] };
});
server.registerTool('ask', { inputSchema: {} }, async () => {
  const schema = { type: 'object', properties: { name: { type: 'string' } } };
  const answer = await server.server.elicitInput({ message: 'Your name?', requestedSchema: schema });
  return { content: [{ type: 'text', text: 'hello ' + answer.content.name }] };
});
let calls = 0;
server.registerTool('count', { inputSchema: {} }, async () => {
  calls += 1;
  return { content: [{ type: 'text', text: JSON.stringify({ calls, pid: process.pid }) }] };
});
server.registerTool('later', { inputSchema: { note: z.string(), ms: z.number() } }, async ({ note, ms }) => {
  setTimeout(() => void server.sendLoggingMessage({ level: 'info', data: 'finished ' + note }), ms);
  return { content: [{ type: 'text', text: 'answered ' + note }] };
});
await server.connect(new StdioServerTransport());
`;

interface Observed {
  client: Client;
  transport: StreamableHTTPClientTransport;
  logs: string[];
}

async function httpSession(t: Test, url: string): Promise<Observed> {
  const stream = watchingNotificationStream();
  const client = new Client({ name: 'per-client', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  const logs: string[] = [];
  client.setNotificationHandler('notifications/message', (n) => void logs.push(String(n.params.data)));
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: stream.fetch });
  await client.connect(transport);
  t.teardown(() => client.close());
  await stream.opened;
  await client.setLoggingLevel('debug');
  return { client, transport, logs };
}

function textOf(result: unknown): string {
  return ((result as { content: { text: string }[] }).content[0] ?? { text: '' }).text;
}

async function count(session: { client: Client }, name = 'child.count'): Promise<{ calls: number; pid: number }> {
  return JSON.parse(textOf(await session.client.callTool({ name, arguments: {} }))) as { calls: number; pid: number };
}

function writeCounterConfig(ws: Workspace, extra: Record<string, unknown> = {}, entry: Record<string, unknown> = {}) {
  const script = ws.writeFile('child/server.js', COUNTER_SERVER);
  return ws.writeConfig({
    reload: { watch: false },
    http: { port: 0 },
    plugins: [{ command: process.execPath, args: [script], prefix: 'child', sessions: 'per-client', ...entry }],
    ...extra,
  });
}

t.test('two HTTP sessions each get a child of their own: its state, and its log lines, theirs alone', async (t) => {
  const ws = makeWorkspace(t);
  const host = await startHttpHost(t, writeCounterConfig(ws, { upstreams: { maxPerClientSessions: 2 } }));
  const a = await httpSession(t, host.url);
  const b = await httpSession(t, host.url);

  const a1 = await count(a);
  const a2 = await count(a);
  const b1 = await count(b);
  t.same(
    [a1.calls, a2.calls, b1.calls],
    [1, 2, 1],
    "each session counts on its own child: B's first call is its first",
  );
  t.equal(a1.pid, a2.pid, "A's calls go to one child");
  t.not(a1.pid, b1.pid, "B's go to another");

  // Lines about no request, written after each call was answered: each reaches the session whose child wrote it.
  await a.client.callTool({ name: 'child.later', arguments: { note: 'A-PRIVATE-1', ms: 50 } });
  await b.client.callTool({ name: 'child.later', arguments: { note: 'B-PRIVATE-2', ms: 50 } });
  await until('each session got its own line', () => a.logs.length > 0 && b.logs.length > 0);
  t.same(a.logs, ['finished A-PRIVATE-1'], 'A gets the line its own child wrote, and nothing of B');
  t.same(b.logs, ['finished B-PRIVATE-2'], 'B gets its own, and nothing of A');

  // Both are asked mid-call at once: each child has one call in flight, so its request has one client to go to.
  let asked = 0;
  let bothAsked!: () => void;
  const both = new Promise<void>((resolve) => (bothAsked = resolve));
  for (const [session, name] of [
    [a, 'A'],
    [b, 'B'],
  ] as const) {
    session.client.setRequestHandler('elicitation/create', async () => {
      if (++asked === 2) bothAsked();
      await both;
      return { action: 'accept', content: { name } };
    });
  }
  const answers = await Promise.all([a, b].map((s) => s.client.callTool({ name: 'child.ask', arguments: {} })));
  t.same(
    answers.map(textOf),
    ['hello A', 'hello B'],
    "each child's question reaches its own session, with both in flight",
  );

  // A subscribes on its own child: that child's update reaches A; B's child has no subscription to tell of.
  const updated: string[] = [];
  a.client.setNotificationHandler('notifications/resources/updated', (n) => void updated.push(n.params.uri));
  b.client.setNotificationHandler('notifications/resources/updated', () => void updated.push('to B'));
  await a.client.subscribeResource({ uri: 'note://x' });
  t.equal(
    textOf(await a.client.callTool({ name: 'child.touch', arguments: {} })),
    '1',
    "A's child holds A's subscription",
  );
  t.equal(textOf(await b.client.callTool({ name: 'child.touch', arguments: {} })), '0', "B's holds none");
  await until("A's update", () => updated.length > 0);
  t.same(updated, ['note://x'], 'the update reaches A alone');
  await a.client.unsubscribeResource({ uri: 'note://x' });
  t.equal(textOf(await a.client.callTool({ name: 'child.touch', arguments: {} })), '0', 'unsubscribed on its child');
  t.same(await a.client.unsubscribeResource({ uri: 'note://x' }), {}, 'leaving what it no longer follows asks nobody');

  // A third session is one more child than upstreams.maxPerClientSessions allows: refused, naming the key.
  const c = await httpSession(t, host.url);
  await t.rejects(
    c.client.callTool({ name: 'child.count', arguments: {} }),
    /plugin "child" \(.*\): has 2 upstreams open, one per client session, its limit \(upstreams\.maxPerClientSessions, with sessions: 'per-client'\), so HTTP session [0-9a-f-]+ gets none\. Fix: end client sessions no longer used \(DELETE with their Mcp-Session-Id\), retry later, or raise upstreams\.maxPerClientSessions in the host config\./,
  );
  await assertLogged(
    t,
    host.log,
    /refused an upstream for HTTP session .*: 2 client sessions hold one \(upstreams\.maxPerClientSessions\)/,
  );

  // A ends its session (DELETE): its child exits, and its place is free for C.
  await a.transport.terminateSession();
  await assertExited(t, [a1.pid], "A's child exits with A's session");
  t.equal((await count(c)).calls, 1, 'C gets a child of its own once A has gone');

  // B's child dies mid-call: that call fails saying why, B's next call opens a fresh child, and C never notices.
  const c2 = await count(c);
  const waiting = b.client.callTool({ name: 'child.wait', arguments: { ms: 60_000 } });
  await until("the call to reach B's child", () => host.log().includes('waiting 60000 ms'));
  process.kill(b1.pid, 'SIGKILL');
  await t.rejects(
    waiting,
    /mount "child" closed the connection before answering tools\/call: its process \(pid \d+\) was killed by signal SIGKILL/,
    "B's call in flight fails naming the mount and why",
  );
  await assertLogged(
    t,
    host.log,
    /the upstream of HTTP session [0-9a-f-]+ ended: its process \(pid \d+\) was killed by signal SIGKILL.*The session's next request opens a fresh one; other sessions are not affected\./,
  );
  const b2 = await count(b);
  t.equal(b2.calls, 1, "B's next call is served by a fresh child");
  t.not(b2.pid, b1.pid, 'in a process of its own');
  t.equal((await count(c)).calls, c2.calls + 1, "C's child goes on counting");

  const everyone = processesIn(ws.dir);
  t.ok(everyone.length >= 3, 'the shared child and B and C children run');
  host.child.kill('SIGTERM');
  await host.exited;
  await assertNoneLeft(t, () => everyone.filter(isAlive), 'no child outlives the host');
});

t.test("the stdio client gets its child's log lines, a sandboxed one's too", async (t) => {
  requireEngine('bwrap', 'bubblewrap');
  const ws = makeWorkspace(t);
  const script = ws.writeFile('child/server.js', COUNTER_SERVER);
  const entry = { command: process.execPath, args: [script], cwd: './child', sessions: 'per-client' };
  const config = ws.writeConfig({
    reload: { watch: false },
    plugins: [
      { ...entry, prefix: 'child' },
      {
        ...entry,
        prefix: 'boxed',
        sandbox: true,
        allow: { read: [join(REPO_ROOT, 'node_modules')] },
        // One mount may serve a URI.
        resources: { exclude: ['note://*'] },
      },
    ],
  });
  const host = await startStdioHost(t, config);
  const logs: string[] = [];
  host.client.setNotificationHandler('notifications/message', (n) => void logs.push(String(n.params.data)));
  await host.client.setLoggingLevel('debug');
  t.same([(await count(host)).calls, (await count(host)).calls], [1, 2], "the client's own child counts its calls");
  t.same([(await count(host, 'boxed.count')).calls], [1], 'and so does its sandboxed one');
  await host.client.callTool({ name: 'child.later', arguments: { note: 'stdio-3', ms: 50 } });
  await host.client.callTool({ name: 'boxed.later', arguments: { note: 'boxed-4', ms: 50 } });
  await host.until('both lines', () => logs.length === 2);
  t.same(logs.sort(), ['finished boxed-4', 'finished stdio-3']);
  t.notMatch(host.log(), /tied to no single client session/, 'none of them went to the host log instead');

  const everyone = processesIn(ws.dir);
  t.ok(everyone.length >= 4, 'two shared children and two of the client');
  await host.client.close();
  await assertNoneLeft(t, () => everyone.filter(isAlive), 'no child outlives the stdio host');
});

/**
 * A Streamable HTTP server (SDK v1, sessions): `count` counts the calls of
 * its session; `later` answers, then logs `finished <note>` on the
 * session's own stream, about no request.
 */
const REMOTE_SERVER = `
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const sessions = new Map();
function open() {
  const server = new McpServer({ name: 'remote', version: '1.0.0' }, { capabilities: { logging: {} } });
  let calls = 0;
  server.registerTool('count', { inputSchema: {} }, async () => {
    calls += 1;
    return { content: [{ type: 'text', text: JSON.stringify({ calls, pid: 0 }) }] };
  });
  server.registerTool('later', { inputSchema: { note: z.string() } }, async ({ note }) => {
    setTimeout(() => void server.server.sendLoggingMessage({ level: 'info', data: 'finished ' + note }).catch(() => {}), 50);
    return { content: [{ type: 'text', text: 'answered ' + note }] };
  });
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    onsessioninitialized: (id) => sessions.set(id, transport),
  });
  transport.onclose = () => sessions.delete(transport.sessionId);
  return server.connect(transport).then(() => transport);
}
const http = createServer(async (req, res) => {
  if (req.url === '/sessions') return res.end(String(sessions.size));
  const transport = sessions.get(req.headers['mcp-session-id']) ?? (await open());
  await transport.handleRequest(req, res);
});
http.listen(0, '127.0.0.1', () => console.log('http://127.0.0.1:' + http.address().port));
`;

t.test('a url entry: each HTTP session gets an upstream session of its own, closed with it', async (t) => {
  const ws = makeWorkspace(t);
  const remote = spawn(process.execPath, [ws.writeFile('remote/server.js', REMOTE_SERVER)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.teardown(() => remote.kill());
  const base = await new Promise<string>((resolve) =>
    createInterface({ input: remote.stdout }).once('line', (line) => resolve(line.trim())),
  );
  const upstreamSessions = async () => Number(await (await fetch(`${base}/sessions`)).text());
  const config = ws.writeConfig({
    reload: { watch: false },
    http: { port: 0 },
    plugins: [{ url: `${base}/mcp`, prefix: 'remote', sessions: 'per-client' }],
  });
  const host = await startHttpHost(t, config);
  const a = await httpSession(t, host.url);
  const b = await httpSession(t, host.url);
  t.same(
    [
      (await count(a, 'remote.count')).calls,
      (await count(a, 'remote.count')).calls,
      (await count(b, 'remote.count')).calls,
    ],
    [1, 2, 1],
    'each client session counts on an upstream session of its own',
  );
  t.equal(await upstreamSessions(), 3, "the shared upstream session (the catalogue's) and A's and B's");
  await a.client.callTool({ name: 'remote.later', arguments: { note: 'A-5' } });
  await b.client.callTool({ name: 'remote.later', arguments: { note: 'B-6' } });
  await until('each line', () => a.logs.length > 0 && b.logs.length > 0);
  t.same(
    [a.logs, b.logs],
    [['finished A-5'], ['finished B-6']],
    "a line on an upstream session's own stream reaches its client alone",
  );
  await a.transport.terminateSession();
  await eventually("A's upstream session to be deleted with A's", async () => (await upstreamSessions()) === 2);
  t.pass("A's upstream session is deleted with A's");
});

t.test('sessions and upstreams.maxPerClientSessions are checked, naming where and the fix', async (t) => {
  const problems = configProblems;
  t.same(
    problems({
      upstreams: { maxPerClientSessions: 4 },
      plugins: [
        { command: 'x', prefix: 'x', sessions: 'per-client' },
        { url: 'http://127.0.0.1:1/mcp', prefix: 'y', sessions: 'shared' },
      ],
    }),
    [],
  );
  t.same(
    problems({
      upstreams: { maxPerClientSessions: 0 },
      plugins: [
        { command: 'x', prefix: 'x', sessions: 'per-session' },
        { package: 'p', prefix: 'p', sessions: 'per-client' },
      ],
    }),
    [
      'mcp-host.config.js: upstreams.maxPerClientSessions: expected a positive integer, got 0. Fix: e.g. maxPerClientSessions: 16.',
      'mcp-host.config.js: plugins[0].sessions: expected "shared" or "per-client", got "per-session". Fix: e.g. sessions: "per-client" (an upstream of its own for each client session) or "shared" (the default); see docs/isolation.md.',
      'mcp-host.config.js: plugins[1].sessions: "sessions" applies to command and url entries only, and this is a package entry. Fix: remove "sessions".',
    ],
  );
});

t.test("a session's child that cannot start fails that session's request saying why; the mount stays", async (t) => {
  const ws = makeWorkspace(t);
  // The first process (the shared one, which lists the catalogue) starts; every later one refuses.
  const marker = join(ws.dir, 'started');
  const script = ws.writeFile(
    'child/once.js',
    `import { existsSync, writeFileSync } from 'node:fs';
if (existsSync(${JSON.stringify(marker)})) {
  console.error('error: only one of me may run');
  process.exit(3);
}
writeFileSync(${JSON.stringify(marker)}, '');
await import('./server.js');
`,
  );
  ws.writeFile('child/server.js', COUNTER_SERVER);
  const config = ws.writeConfig({
    reload: { watch: false },
    plugins: [{ command: process.execPath, args: [script], prefix: 'once', sessions: 'per-client' }],
  });
  const host = await startStdioHost(t, config);
  await t.rejects(
    host.client.callTool({ name: 'once.count', arguments: {} }),
    /plugin "once" \(.*\): could not open the upstream of the stdio client \(sessions: 'per-client'\): its process \(pid \d+\) exited with code 3; its stderr said: "error: only one of me may run"\. Fix: its stderr is in the host log under plugin "once"; to reproduce, run .* The session's next request tries again\./,
  );
  t.same(
    (await host.client.listTools()).tools.map((tool) => tool.name).sort(),
    ['once.ask', 'once.count', 'once.later', 'once.touch', 'once.wait'],
    "the catalogue, the shared upstream's, is still served",
  );
});

t.test(
  "a reload that replaces the entry ends each session's child, cancelling its call at the drain timeout",
  async (t) => {
    const ws = makeWorkspace(t);
    const config = writeCounterConfig(ws, { reload: { watch: false, drainTimeoutMs: 200 }, http: undefined });
    const host = await startStdioHost(t, config);
    const { pid } = await count(host);
    const waiting = host.client.callTool({ name: 'child.wait', arguments: { ms: 60_000 } });
    // Until the call reached the child: then the reload finds it running.
    // Once the call has reached the child, the reload finds it running.
    await host.until('the call to reach the child', () => host.log().includes('waiting 60000 ms'));
    writeCounterConfig(ws, { reload: { watch: false, drainTimeoutMs: 200 }, http: undefined }, { timeoutMs: 90_000 });
    process.kill(host.pid, 'SIGHUP');
    await t.rejects(
      waiting,
      /mcp-host cancelled tools\/call on mount "child": a reload removed or replaced this plugin, and the call was still running at the drain timeout \(reload\.drainTimeoutMs, 200 ms\)/,
    );
    await assertExited(t, [pid], "the session's child of the replaced mount exits");
    t.equal((await count(host)).calls, 1, 'the new mount opens a fresh child for the session');
  },
);
