// MCP servers that are not mcp-host plugins, mounted by the host run as a
// child process and driven by the SDK's own Client over stdio: npm server
// packages (server-everything prefixed, server-memory flat) and a fixture
// server package run as stdio children, and remote servers over Streamable
// HTTP and legacy HTTP+SSE. Supervision (a killed child, a remote that
// drops), start-up and `check` with unreachable upstreams, protocol
// revision refusal, per-request timeouts, and no orphan processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { z } from 'zod';
import { freePort } from './helpers/engines.js';
import { assertLogged, runCli, startStdioHost, type StdioHost, until } from './helpers/host.js';
import { makeWorkspace, REPO_ROOT, type Workspace } from './helpers/packages.js';
import { assertExited, descendants, isAlive, pidsIn } from './helpers/processes.js';
import { START_MS } from './helpers/timing.js';

const EVERYTHING_BIN = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const MEMORY_BIN = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');

/** Supervision fast enough for a test: reconnect within a few hundred ms, ping remotes often. */
const FAST_UPSTREAMS = { reconnectDelayMs: 100, maxReconnectDelayMs: 400, pingIntervalMs: 200 };

/**
 * A stdio MCP server written out by hand (no SDK), so a test controls every
 * byte: it records its pid (and the pid of a grandchild it starts, to check
 * that process groups are reaped), answers `initialize` with the revision
 * in PROTOCOL when set, and records every notifications/cancelled it gets.
 * Its `slow` tool never answers on its own; SLOW_FILE counts its calls.
 * While HOLD_FILE exists, a new instance reads nothing (a restart held back).
 */
const FIXTURE_SERVER = `#!/usr/bin/env node
import { appendFileSync, existsSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const { PID_FILE, GRANDCHILD_FILE, CANCEL_FILE, SLOW_FILE, PROTOCOL, HOLD_FILE } = process.env;
if (PID_FILE) appendFileSync(PID_FILE, process.pid + '\\n');
if (GRANDCHILD_FILE) {
  const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  appendFileSync(GRANDCHILD_FILE, grandchild.pid + '\\n');
  grandchild.unref();
}
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\\n');
const tools = [
  { name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
  { name: 'slow', description: 'Answers only when cancelled.', inputSchema: { type: 'object' } },
];
const serve = () => createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  switch (message.method) {
    case 'initialize':
      return send({ id: message.id, result: {
        protocolVersion: PROTOCOL ?? message.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'fixture-server', version: '1.0.0' },
      } });
    case 'tools/list':
      return send({ id: message.id, result: { tools } });
    case 'tools/call':
      if (message.params.name === 'echo') {
        const text = message.params.arguments?.text ?? '';
        return send({ id: message.id, result: {
          content: [{ type: 'text', text }], structuredContent: { text, pid: process.pid }, _meta: { fixture: true },
        } });
      }
      if (SLOW_FILE) appendFileSync(SLOW_FILE, 'called\\n');
      return undefined;
    case 'notifications/cancelled':
      if (CANCEL_FILE) appendFileSync(CANCEL_FILE, JSON.stringify(message.params) + '\\n');
      return undefined;
    case 'ping':
      return send({ id: message.id, result: {} });
    default:
      if (message.id !== undefined) send({ id: message.id, error: { code: -32601, message: 'Method not found' } });
  }
});
const held = () => HOLD_FILE !== undefined && existsSync(HOLD_FILE);
if (held()) {
  const waiting = setInterval(() => {
    if (held()) return;
    clearInterval(waiting);
    serve();
  }, 20);
} else serve();
`;

function writeFixturePackage(ws: Workspace): void {
  ws.writePackage(
    'node_modules/fixture-server',
    { name: 'fixture-server', version: '1.0.0', type: 'module', bin: { 'fixture-server': 'server.js' } },
    { 'server.js': FIXTURE_SERVER },
  );
}

interface ToolResult {
  content?: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/**
 * The shared stdio host, launched with the SDK's default environment as an
 * MCP client would, plus what the supervision tests need: every message the
 * host sent the client, as it came off the wire, and a close() that waits
 * for the host's process to exit (the orphan checks start from there).
 */
interface RunningHost extends StdioHost {
  received: { method?: string; params?: Record<string, unknown> }[];
  close(): Promise<void>;
}

async function startHost(t: Test, configFile: string): Promise<RunningHost> {
  const host = await startStdioHost(t, configFile, {
    env: { MCP_HOST_LOG_LEVEL: 'info' },
    inheritEnv: false,
    clientOptions: { capabilities: { elicitation: {} } },
  });
  const received: RunningHost['received'] = [];
  const dispatch = host.transport.onmessage;
  host.transport.onmessage = (message) => {
    received.push(message as RunningHost['received'][number]);
    dispatch?.(message);
  };
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await host.client.close();
    await until(`the host (pid ${host.pid}) to exit`, () => !isAlive(host.pid));
  };
  t.teardown(close);
  return { ...host, received, close };
}

/** A client straight to a stdio server, for comparing what the host passes through. */
async function connectDirect(t: Test, command: string, args: string[], env: Record<string, string> = {}) {
  const client = new Client({ name: 'direct', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, env, stderr: 'ignore' }));
  t.teardown(() => client.close());
  return client;
}

/** The error a call is refused with, as the client sees it. */
async function refusal(call: Promise<unknown>): Promise<string> {
  try {
    const result = (await call) as ToolResult;
    return `not refused: ${JSON.stringify(result)}`;
  } catch (error) {
    return (error as Error).message;
  }
}

/** A Streamable HTTP MCP server (SDK v2 behind createMcpHandler) that wants a token header. */
async function startRemoteFixture(
  port = 0,
  legacy: 'stateless' | 'reject' = 'stateless',
): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const handler = toNodeHandler(
    createMcpHandler(
      () => {
        const server = new McpServer({ name: 'remote-fixture', version: '1.0.0' });
        server.registerTool(
          'add',
          {
            description: 'Adds two numbers.',
            inputSchema: z.object({ a: z.number(), b: z.number() }),
            outputSchema: z.object({ sum: z.number() }),
          },
          ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
        );
        return server;
      },
      { legacy },
    ),
  );
  const server: Server = createServer((req, res) => {
    if (req.headers['x-fixture-token'] !== 'secret') {
      res.writeHead(401).end('a token is required');
      return;
    }
    void handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}/mcp`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

t.test('npm server packages: server-everything prefixed, server-memory flat, from their package names', async (t) => {
  const ws = makeWorkspace();
  t.teardown(ws.cleanup);
  const configFile = ws.writeConfig({
    reload: { watch: false },
    plugins: [
      { package: '@modelcontextprotocol/server-everything', prefix: 'everything' },
      {
        package: '@modelcontextprotocol/server-memory',
        flat: true,
        env: { MEMORY_FILE_PATH: join(ws.dir, 'host-memory.jsonl') },
      },
    ],
  });
  const host = await startHost(t, configFile);
  const { client } = host;
  let elicited = 0;
  client.setRequestHandler('elicitation/create', async () => {
    elicited++;
    return { action: 'decline' };
  });

  const names = (await client.listTools()).tools.map((tool) => tool.name);
  t.ok(names.includes('everything.echo'), 'server-everything is mounted under its prefix');
  t.ok(names.includes('everything.trigger-long-running-operation'));
  t.ok(names.includes('create_entities') && names.includes('read_graph'), 'server-memory is mounted flat');
  t.notOk(
    names.some((name) => name.startsWith('everything.') && name.slice(11).includes('.')),
    'only one prefix is added',
  );

  const everything = await connectDirect(t, process.execPath, [EVERYTHING_BIN]);
  const memory = await connectDirect(t, process.execPath, [MEMORY_BIN], {
    MEMORY_FILE_PATH: join(ws.dir, 'direct-memory.jsonl'),
  });

  t.same(
    await client.callTool({ name: 'everything.echo', arguments: { message: 'hi' } }),
    await everything.callTool({ name: 'echo', arguments: { message: 'hi' } }),
    'a tool call through the host returns what the server returns directly',
  );
  const structured = { name: 'get-structured-content', arguments: { location: 'Chicago' } };
  const direct = (await everything.callTool(structured)) as ToolResult;
  t.ok(direct.structuredContent, 'the direct result has structuredContent');
  t.same(await client.callTool({ ...structured, name: 'everything.get-structured-content' }), direct);

  const entities = { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] };
  t.same(
    await client.callTool({ name: 'create_entities', arguments: entities }),
    await memory.callTool({ name: 'create_entities', arguments: entities }),
    'a flat mount passes results through too',
  );
  t.same(
    await client.callTool({ name: 'read_graph', arguments: {} }),
    await memory.callTool({ name: 'read_graph', arguments: {} }),
  );

  const progress: number[] = [];
  const longRun = { duration: 1, steps: 4 };
  const longResult = await client.callTool(
    { name: 'everything.trigger-long-running-operation', arguments: longRun },
    { onprogress: (p) => progress.push(p.progress) },
  );
  const onWire = host.received.filter((message) => message.method === 'notifications/progress');
  t.same(
    onWire.map((message) => message.params),
    [1, 2, 3, 4].map((n) => ({ progress: n, total: 4, progressToken: onWire[0]?.params?.progressToken })),
    "the long-running tool's progress reaches the client, under the client's own token",
  );
  // The SDK client sometimes drops the last one, which the server sends just
  // before its result: it does the same talking to the server directly.
  t.same(progress, [1, 2, 3, 4].slice(0, progress.length), 'and its onprogress sees them in order');
  t.ok(progress.length >= 3);
  t.same(longResult, await everything.callTool({ name: 'trigger-long-running-operation', arguments: longRun }));

  const elicitation = (await client.callTool({
    name: 'everything.trigger-elicitation-request',
    arguments: {},
  })) as ToolResult;
  t.equal(elicited, 1, "the server's elicitation over the pipe reaches the client whose call caused it");
  t.match(elicitation.content?.[0]?.text, /declined/);

  const children = descendants(host.pid);
  t.ok(children.length >= 2, `the host runs its stdio servers as children (${children.join(', ')})`);
  const stopping = Date.now();
  await host.close();
  t.comment(`host and its stdio children stopped in ${Date.now() - stopping} ms`);
  await assertExited(t, children, 'no child outlives the host');
  await assertLogged(
    t,
    host.log,
    /"plugin":"everything".*Starting default \(STDIO\) server/,
    "a child's stderr is logged under its mount",
  );
});

t.test('a child that dies is restarted; its tools leave and come back with list_changed', async (t) => {
  const ws = makeWorkspace();
  t.teardown(ws.cleanup);
  writeFixturePackage(ws);
  const pidFile = join(ws.dir, 'fixture.pids');
  const grandchildFile = join(ws.dir, 'grandchild.pids');
  const holdFile = join(ws.dir, 'hold');
  const configFile = ws.writeConfig({
    reload: { watch: false },
    upstreams: FAST_UPSTREAMS,
    plugins: [
      {
        package: 'fixture-server',
        prefix: 'fixture',
        env: { PID_FILE: pidFile, GRANDCHILD_FILE: grandchildFile, HOLD_FILE: holdFile },
      },
      // A second instance that stays up. (Not server-everything: it sends list_changed of its own after connecting.)
      { package: 'fixture-server', prefix: 'steady' },
    ],
  });
  const host = await startHost(t, configFile);
  const { client } = host;
  const echo = { name: 'fixture.echo', arguments: { text: 'hello' } };
  const [first] = pidsIn(pidFile);
  t.same(((await client.callTool(echo)) as ToolResult).structuredContent, { text: 'hello', pid: first });

  // Its restart is held back until the calls made while it is down are answered: they must not race it.
  writeFileSync(holdFile, '');
  process.kill(first!, 'SIGKILL');
  await until('tools/list_changed after the kill', () => host.notified.tools === 1);
  const whileDown = (await client.listTools({}, { cacheMode: 'refresh' })).tools.map((tool) => tool.name);
  t.notOk(
    whileDown.some((name) => name.startsWith('fixture.')),
    "the dead child's tools are withdrawn",
  );
  t.same(whileDown, ['steady.echo', 'steady.slow'], 'the other mounts keep serving');
  const refused = await refusal(client.callTool(echo));
  t.match(
    refused,
    new RegExp(
      `plugin "fixture" \\(fixture-server\\): is down: its process \\(pid ${first}\\) was killed by signal SIGKILL`,
    ),
    'a call to it is refused naming the mount and its state',
  );

  rmSync(holdFile);
  await until('tools/list_changed after the restart', () => host.notified.tools === 2);
  const [, second] = pidsIn(pidFile);
  t.ok(second && second !== first, `the child was restarted (pid ${first} → ${second})`);
  t.ok(
    (await client.listTools({}, { cacheMode: 'refresh' })).tools.some((tool) => tool.name === 'fixture.echo'),
    'its tools are back',
  );
  t.same(((await client.callTool(echo)) as ToolResult).structuredContent, { text: 'hello', pid: second });
  await assertLogged(
    t,
    host.log,
    /went down: its process \(pid \d+\) was killed by signal SIGKILL.*Reconnecting in 100 ms/,
  );
  // The host logs "back up" on stderr, apart from the list_changed and answers on stdout: wait for the line.
  await until('the host to log the child back up', () => /back up/.test(host.log()));
  const logTime = (pattern: RegExp) =>
    (
      JSON.parse(
        host
          .log()
          .split('\n')
          .find((line) => pattern.test(line))!,
      ) as { time: number }
    ).time;
  t.comment(`back up ${logTime(/back up/) - logTime(/went down/)} ms after it went down (backoff 100 ms, then held)`);
  const grandchildren = pidsIn(grandchildFile);
  await assertExited(t, grandchildren.slice(0, 1), "the killed child's process group is reaped");

  const everyone = descendants(host.pid);
  await host.close();
  await until('every process the host started to exit', () => everyone.every((pid) => !isAlive(pid)));
  t.notOk(
    grandchildren.some(isAlive),
    `no orphan remains after the host exits (checked ${everyone.length + grandchildren.length} pids)`,
  );
});

t.test('a timed-out call sends notifications/cancelled upstream; so does a client cancelling', async (t) => {
  const ws = makeWorkspace();
  t.teardown(ws.cleanup);
  writeFixturePackage(ws);
  const cancelFile = join(ws.dir, 'cancelled.jsonl');
  const slowFile = join(ws.dir, 'slow-calls.txt');
  const configFile = ws.writeConfig({
    reload: { watch: false },
    plugins: [
      {
        package: 'fixture-server',
        prefix: 'fixture',
        timeoutMs: 1500,
        env: { CANCEL_FILE: cancelFile, SLOW_FILE: slowFile },
      },
      // The same server with a timeout no busy machine reaches: the client's own cancel is the only one it gets.
      { package: 'fixture-server', prefix: 'patient', env: { CANCEL_FILE: cancelFile, SLOW_FILE: slowFile } },
    ],
  });
  const slowCalls = () => (existsSync(slowFile) ? readFileSync(slowFile, 'utf8').split('\n').length - 1 : 0);
  const { client } = await startHost(t, configFile);
  const cancelled = () =>
    existsSync(cancelFile)
      ? readFileSync(cancelFile, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { requestId: number; reason: string })
      : [];

  const timedOut = await refusal(client.callTool({ name: 'fixture.slow', arguments: {} }));
  t.match(timedOut, /mount "fixture" did not answer tools\/call within 1500 ms/);
  await until('the fixture to record the cancellation', () => cancelled().length === 1);
  t.match(cancelled()[0], { reason: 'mcp-host timed out after 1500 ms' }, 'the timeout cancelled the call upstream');

  const abort = new AbortController();
  const call = refusal(client.callTool({ name: 'patient.slow', arguments: {} }, { signal: abort.signal }));
  // Cancelled once the fixture has it: a cancel that overtakes the call is the host's alone to drop.
  await until('the second call to reach the fixture', () => slowCalls() === 2);
  abort.abort('changed my mind');
  await call;
  await until('the second cancellation', () => cancelled().length === 2);
  t.match(cancelled()[1], { reason: 'the client cancelled the request' }, "the client's cancellation reached it");
});

t.test('a remote server over Streamable HTTP, mounted by URL with headers; it drops and comes back', async (t) => {
  // Started again on this port below: one outside the range outgoing connections take theirs from (freePort).
  const remote = await startRemoteFixture(await freePort());
  let remoteNow = remote;
  t.teardown(() => remoteNow.close());
  const ws = makeWorkspace();
  t.teardown(ws.cleanup);
  const configFile = ws.writeConfig({
    reload: { watch: false },
    upstreams: FAST_UPSTREAMS,
    plugins: [{ url: remote.url, prefix: 'remote', headers: { 'x-fixture-token': 'secret' } }],
  });
  const host = await startHost(t, configFile);
  const { client } = host;

  const direct = new Client({ name: 'direct', version: '1.0.0' });
  await direct.connect(
    new StreamableHTTPClientTransport(new URL(remote.url), {
      requestInit: { headers: { 'x-fixture-token': 'secret' } },
    }),
  );
  const sum = { arguments: { a: 2, b: 3 } };
  const directResult = await direct.callTool({ name: 'add', ...sum });
  await direct.close();
  t.same(await client.callTool({ name: 'remote.add', ...sum }), directResult, 'the result is the same as direct');
  t.same(((await client.callTool({ name: 'remote.add', ...sum })) as ToolResult).structuredContent, { sum: 5 });

  await remote.close();
  await until('tools/list_changed after the remote dropped', () => host.notified.tools === 1);
  const refused = await refusal(client.callTool({ name: 'remote.add', ...sum }));
  t.match(
    refused,
    `plugin "remote" (${remote.url}): is down: `,
    'a call to the dropped remote is refused naming the mount and its state',
  );
  t.match(refused, /ECONNREFUSED|fetch failed|ping failed/);
  t.notOk((await client.listTools({}, { cacheMode: 'refresh' })).tools.length, 'its tools are withdrawn');

  remoteNow = await startRemoteFixture(remote.port);
  await until('tools/list_changed after the remote came back', () => host.notified.tools === 2);
  t.same(((await client.callTool({ name: 'remote.add', ...sum })) as ToolResult).structuredContent, { sum: 5 });
});

t.test('a remote that only speaks the legacy HTTP+SSE transport is reached over SSE', async (t) => {
  const port = await freePort();
  const legacy: ChildProcess = spawn(process.execPath, [EVERYTHING_BIN, 'sse'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  t.teardown(() => legacy.kill());
  let legacyLog = '';
  legacy.stderr!.on('data', (chunk: Buffer) => (legacyLog += chunk.toString()));
  await until('the legacy server to listen', () => legacyLog.includes(`running on port ${port}`));

  const ws = makeWorkspace();
  t.teardown(ws.cleanup);
  const configFile = ws.writeConfig({
    reload: { watch: false },
    plugins: [{ url: `http://127.0.0.1:${port}/sse`, prefix: 'legacy' }],
  });
  const host = await startHost(t, configFile);
  t.same(await host.client.callTool({ name: 'legacy.echo', arguments: { message: 'old' } }), {
    content: [{ type: 'text', text: 'Echo: old' }],
  });
  await assertLogged(
    t,
    host.log,
    /answered HTTP 404 to a Streamable HTTP initialize: trying the legacy HTTP\+SSE transport/,
  );
});

t.test('check reports the upstreams it could not reach, and why; start serves the rest', async (t) => {
  const ws = makeWorkspace();
  t.teardown(ws.cleanup);
  writeFixturePackage(ws);
  const closedPort = await freePort();
  const locked = await startRemoteFixture();
  t.teardown(() => locked.close());
  const modernOnly = await startRemoteFixture(0, 'reject');
  t.teardown(() => modernOnly.close());
  const configFile = ws.writeConfig({
    reload: { watch: false },
    upstreams: { startTimeoutMs: START_MS },
    plugins: [
      { package: 'fixture-server', prefix: 'fixture' },
      { command: 'mcp-host-no-such-command', prefix: 'ghost' },
      { command: process.execPath, args: ['-e', 'console.error("Error: boom"); process.exit(3)'], prefix: 'crash' },
      { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], prefix: 'mute' },
      { url: `http://127.0.0.1:${closedPort}/mcp`, prefix: 'gone' },
      { url: locked.url, prefix: 'locked' },
      { url: modernOnly.url, prefix: 'modern', headers: { 'x-fixture-token': 'secret' } },
    ],
  });

  const checked = await runCli(['check', '--config', configFile]);
  t.equal(checked.code, 1, 'check exits 1');
  t.match(checked.stdout, /5 problems/);
  t.match(
    checked.stdout,
    'plugin "ghost" (mcp-host-no-such-command) (plugins[1]): could not be reached: could not start "mcp-host-no-such-command": spawn mcp-host-no-such-command ENOENT. Fix: install "mcp-host-no-such-command" or put it on the PATH',
  );
  t.match(
    checked.stdout,
    /plugin "crash" .*\(plugins\[2\]\): could not be reached: its process \(pid \d+\) exited with code 3; its stderr said: "Error: boom"\./,
  );
  t.match(
    checked.stdout,
    `plugin "mute" (${process.execPath} -e setInterval(() => {}, 1000)) (plugins[3]): could not be reached: it did not finish connecting within ${START_MS} ms (upstreams.startTimeoutMs)`,
  );
  t.match(
    checked.stdout,
    `plugin "gone" (http://127.0.0.1:${closedPort}/mcp) (plugins[4]): could not be reached: could not reach http://127.0.0.1:${closedPort}/mcp: fetch failed (ECONNREFUSED).`,
  );
  t.match(
    checked.stdout,
    `plugin "locked" (${locked.url}) (plugins[5]): could not be reached: ${locked.url} refused the host with HTTP 401. Fix: give the entry the credentials the server expects, e.g. headers: { Authorization: "Bearer …" }.`,
  );
  t.notMatch(checked.stdout, /plugin "modern"/, 'a server that speaks only 2026-07-28 is reached in it');
  t.notMatch(checked.stdout, /plugin "fixture"/, 'the reachable upstream is not reported');
  // Without the start timeout, the mute child would hold check until its 60 s request timeout.
  t.ok(checked.ms < 60_000, `a hung upstream delays check only by the start timeout (${checked.ms} ms)`);

  const listed = await runCli(['list', '--config', configFile]);
  t.equal(listed.code, 0, 'list shows a catalogue with upstreams down');
  t.match(listed.stdout, 'ghost  (mcp-host-no-such-command, stdio, prefix "ghost", down)');

  const started = Date.now();
  const host = await startHost(t, configFile);
  t.comment(`start with five unreachable upstreams served after ${Date.now() - started} ms`);
  const names = (await host.client.listTools()).tools.map((tool) => tool.name);
  t.same(names, ['fixture.echo', 'fixture.slow', 'modern.add'], 'start serves the upstreams it reached');
  t.match(
    await refusal(host.client.callTool({ name: 'ghost.anything', arguments: {} })),
    'plugin "ghost" (mcp-host-no-such-command): is down: could not start',
    'a call under the prefix of an upstream never reached names it and why',
  );
  const everyone = descendants(host.pid);
  const stopping = Date.now();
  await host.close();
  t.comment(`the host stopped in ${Date.now() - stopping} ms with a mute child and a crash loop`);
  await assertExited(t, everyone, `no orphan remains, the mute child included (checked ${everyone.length} pids)`);
});

t.test('an upstream that negotiates a revision outside the host range is refused, naming the versions', async (t) => {
  const ws = makeWorkspace();
  t.teardown(ws.cleanup);
  writeFixturePackage(ws);
  const configFile = ws.writeConfig({
    protocolVersions: ['2025-06-18', '2025-11-25'],
    plugins: [{ package: 'fixture-server', prefix: 'old', env: { PROTOCOL: '2024-11-05' } }],
  });
  const checked = await runCli(['check', '--config', configFile]);
  t.equal(checked.code, 1);
  t.match(
    checked.stdout,
    'plugin "fixture-server" (plugins[0]): the host asked it for MCP revision "2025-11-25" and it answered with "2024-11-05", which is outside the host\'s protocolVersions ("2025-06-18" and "2025-11-25"). Fix: mount a version of the server that speaks one of the host\'s revisions, or add "2024-11-05" to the host\'s protocolVersions.',
  );
  const started = await runCli(['start', '--config', configFile]);
  t.equal(started.code, 1, 'start refuses it too');
  t.match(started.stderr, /answered with "2024-11-05", which is outside the host's protocolVersions/);
});

t.test('a reload closes the children of the mounts it removes and keeps the unchanged ones', async (t) => {
  const ws = makeWorkspace();
  t.teardown(ws.cleanup);
  writeFixturePackage(ws);
  const removedPids = join(ws.dir, 'removed.pids');
  const keptPids = join(ws.dir, 'kept.pids');
  const kept = { package: 'fixture-server', prefix: 'kept', env: { PID_FILE: keptPids } };
  const configFile = ws.writeConfig({
    reload: { watch: false },
    plugins: [{ package: 'fixture-server', prefix: 'removed', env: { PID_FILE: removedPids } }, kept],
  });
  const host = await startHost(t, configFile);
  const [removed] = pidsIn(removedPids);
  ws.writeConfig({ reload: { watch: false }, plugins: [kept] });
  process.kill(host.pid, 'SIGHUP');
  await until('tools/list_changed after the reload', () => host.notified.tools === 1);
  await assertExited(t, [removed!], "the removed mount's child is closed");
  t.same(pidsIn(keptPids).length, 1, 'the unchanged mount keeps its child');
  t.same(
    (await host.client.listTools({}, { cacheMode: 'refresh' })).tools.map((tool) => tool.name),
    ['kept.echo', 'kept.slow'],
  );
});

t.test('the upstreams settings are validated like every other key', async (t) => {
  const ws = makeWorkspace();
  t.teardown(ws.cleanup);
  const configFile = ws.writeConfig({
    upstreams: { startTimeoutMs: 0, pingIntervalMs: 'often', retries: 3 },
    plugins: [],
  });
  const checked = await runCli(['check', '--config', configFile]);
  t.equal(checked.code, 1);
  t.match(
    checked.stdout + checked.stderr,
    'upstreams.startTimeoutMs: expected a positive integer, got 0. Fix: e.g. startTimeoutMs: 30000.',
  );
  t.match(
    checked.stdout + checked.stderr,
    'upstreams.pingIntervalMs: expected an integer of 0 or more, got "often". Fix: e.g. pingIntervalMs: 15000 (0 turns pinging off).',
  );
  t.match(checked.stdout + checked.stderr, 'upstreams.retries: unknown key "retries".');
});
