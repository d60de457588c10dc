/**
 * `isolation: 'worker'`: a plugin in a worker thread of its own serves as it
 * does in the host's thread (progress, cancellation, mid-call elicitation,
 * logging, list_changed; SDK v2 and v1), and what goes wrong in its worker
 * (out of memory, an uncaught throw, process.exit, a blocked thread) is that
 * plugin's alone: the host stays up, the other mounts answer, the plugin's
 * items are withdrawn and come back. The host runs as a child process; the
 * plugins are real packages on disk.
 */
import t, { type Test } from 'tap';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { makeWorkspace, type Workspace } from './helpers/packages.js';
import {
  assertEventually,
  assertLogged,
  rawInitializeLine,
  runCli,
  startHttpHost,
  startStdioHost,
  until,
  type StdioHost,
} from './helpers/host.js';
import { RawStdioHost } from './helpers/raw-stdio-host.js';
import { writeZoo } from './helpers/zoo.js';
import { progressOnTheWire } from './helpers/wire-progress.js';
import { formatProblem, problemsOf } from '../host/errors.js';
import { validateConfig } from '../host/config/validate.js';

const manifest = (name: string, prefix: string, version = '1.0.0') => ({
  name,
  version,
  type: 'module',
  exports: './index.js',
  'mcp-host': { prefix },
});

/**
 * SDK v2. `where` says which thread and version serve it; `slow` reports
 * progress and notices cancellation; `ask` elicits mid-call; `grow` adds a
 * tool (list_changed); the rest misbehave, each in one way.
 */
const TWO = (version: string) => `
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMainThread, threadId } from 'node:worker_threads';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

const text = (text) => ({ content: [{ type: 'text', text }] });
export default {
  create({ options, logger }) {
    logger.info({ threadId }, 'two ${version} created');
    console.log('two says hello on stdout');
    const server = new McpServer(
      { name: 'two', version: '${version}' },
      { capabilities: { logging: {}, resources: { subscribe: true } } },
    );
    let count = 0;
    server.registerResource('counter', 'two://counter', {}, async (uri) => ({ contents: [{ uri: uri.href, text: String(count) }] }));
    server.server.setRequestHandler('resources/subscribe', async () => ({}));
    server.server.setRequestHandler('resources/unsubscribe', async () => ({}));
    server.registerTool('bump', {}, async () => {
      count++;
      await server.server.sendResourceUpdated({ uri: 'two://counter' });
      return text('bumped');
    });
    server.registerTool('where', {}, async () =>
      text(JSON.stringify({ isMainThread, threadId, version: '${version}', token: process.env.MCP_HOST_HTTP_TOKENS ?? null })));
    server.registerTool('slow', { inputSchema: z.object({ steps: z.number() }) }, async ({ steps }, ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      for (let i = 1; i <= steps; i++) {
        if (ctx.mcpReq.signal.aborted) {
          writeFileSync(join(options.markers, 'two-aborted'), 'yes');
          return text('aborted');
        }
        await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps } });
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
      return text('done');
    });
    server.registerTool('ask', {}, async (ctx) => {
      await ctx.mcpReq.log('info', 'two is asking');
      const answer = await ctx.mcpReq.elicitInput({
        message: 'Your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
      });
      return text('hello ' + answer.content?.name);
    });
    server.registerTool('grow', {}, async () => {
      server.registerTool('grown', {}, async () => text('grown'));
      return text('grew');
    });
    server.registerTool('hog', {}, async () => {
      const hog = [];
      for (;;) hog.push(new Array(100000).fill(hog.length));
    });
    server.registerTool('throw-later', {}, async () => {
      setTimeout(() => { throw new Error('two: uncaught from a timer'); }, 10);
      return text('thrown later');
    });
    server.registerTool('exit', {}, async () => process.exit(5));
    server.registerTool('kill', {}, async () => process.kill(process.pid, 'SIGTERM'));
    server.registerTool('close', {}, async () => {
      setTimeout(() => server.close(), 10);
      return text('closing');
    });
    server.registerTool('uncloneable', {}, async () => ({ content: [], _meta: { callback() {} } }));
    server.registerTool('block', { inputSchema: z.object({ ms: z.number() }) }, async ({ ms }) => {
      writeFileSync(join(options.markers, 'two-blocking'), 'yes');
      const until = Date.now() + ms;
      while (Date.now() < until);
      return text('unblocked');
    });
    return server;
  },
};
`;

/** SDK v1: the same where/slow/ask. */
const ONE = `
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

const text = (text) => ({ content: [{ type: 'text', text }] });
export default {
  create({ options }) {
    const server = new McpServer({ name: 'one', version: '1.0.0' });
    server.registerTool('where', {}, async () => text(JSON.stringify({ isMainThread })));
    server.registerTool('slow', { inputSchema: { steps: z.number() } }, async ({ steps }, extra) => {
      const progressToken = extra._meta?.progressToken;
      for (let i = 1; i <= steps; i++) {
        if (extra.signal.aborted) {
          writeFileSync(join(options.markers, 'one-aborted'), 'yes');
          return text('aborted');
        }
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: i, total: steps } });
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
      return text('done');
    });
    server.registerTool('ask', {}, async () => {
      const answer = await server.server.elicitInput({
        message: 'Your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
      });
      return text('hello ' + answer.content?.name);
    });
    return server;
  },
};
`;

function writePlugins(ws: Workspace, version = '1.0.0'): string {
  ws.writePackage('node_modules/@w/two', manifest('@w/two', 'two', version), { 'index.js': TWO(version) });
  ws.writePackage('node_modules/@w/one', manifest('@w/one', 'one'), { 'index.js': ONE });
  writeZoo(ws);
  const markers = join(ws.dir, 'markers');
  ws.writeFile('markers/.keep', '');
  return markers;
}

const textOf = (result: { content?: unknown }) => (result.content as { text?: string }[] | undefined)?.[0]?.text ?? '';
const whereOf = async (client: Client, tool = 'two.where') =>
  JSON.parse(textOf(await client.callTool({ name: tool, arguments: {} }))) as {
    isMainThread: boolean;
    threadId?: number;
    version?: string;
    token?: string | null;
  };
const toolNames = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name);
/** Fast restarts, so a test waits for the comeback, not for the backoff. */
const FAST_RESTARTS = { reconnectDelayMs: 100, maxReconnectDelayMs: 400 };
/**
 * The heartbeat timeout of the blocked-thread test: the window in which the others must be answered while the
 * plugin blocks, so generous for two HTTP round trips on a loaded machine.
 */
const HEARTBEAT_MS = 10_000;

t.test('plugins in workers serve as they do in process: SDK v2 and v1', async (t) => {
  const ws = makeWorkspace(t);
  const markers = writePlugins(ws);
  const file = ws.writeConfig({
    isolation: 'worker',
    plugins: [
      { package: '@w/two', options: { markers } },
      { package: '@w/one', options: { markers } },
      { package: '@zoo/good', isolation: 'none' },
    ],
  });
  const elicited: unknown[] = [];
  const logged: unknown[] = [];
  const host = await startStdioHost(t, file, {
    env: { MCP_HOST_HTTP_TOKENS: 'host-secret' },
    clientOptions: { capabilities: { elicitation: {} } },
  });
  host.client.setRequestHandler('elicitation/create', async (request) => {
    elicited.push(request.params.message);
    return { action: 'accept', content: { name: 'ada' } };
  });
  host.client.setNotificationHandler(
    'notifications/message',
    (notification) => void logged.push(notification.params.data),
  );

  t.test('each worker plugin runs off the main thread, without the host token; the in-process one on it', async (t) => {
    const names = await toolNames(host.client);
    for (const name of ['two.where', 'two.slow', 'two.ask', 'one.where', 'one.slow', 'one.ask', 'good.echo']) {
      t.ok(names.includes(name), `${name} is listed`);
    }
    t.match(await whereOf(host.client), { isMainThread: false, version: '1.0.0', token: null });
    t.match(await whereOf(host.client, 'one.where'), { isMainThread: false });
    t.same(textOf(await host.client.callTool({ name: 'good.echo', arguments: { text: 'main' } })), 'main');
  });

  t.test("the plugin's logger and console.log reach the host's log on stderr, under its name", async (t) => {
    await assertLogged(t, host.log, /"plugin":"two".*two 1\.0\.0 created/, 'its logger');
    await assertLogged(t, host.log, /"plugin":"two".*two says hello on stdout/, 'its console.log');
  });

  t.test('its console.log never reaches stdout, which carries only JSON-RPC', async (t) => {
    // Watched raw: the SDK's client skips a line that is not JSON without a word.
    const raw = new RawStdioHost(t, file);
    raw.send(rawInitializeLine('raw').trimEnd());
    await raw.answer(0);
    await until('the console.log to be logged', () => /"plugin":"two".*two says hello on stdout/.test(raw.stderr));
    t.match(await raw.request('ping'), { result: {} }, 'the host answers after it');
    t.same(raw.garbage, [], 'no line on stdout that is not JSON');
    t.same(
      raw.received.filter((message) => message.jsonrpc !== '2.0'),
      [],
      'and every one is JSON-RPC',
    );
  });

  t.test('an answer that cannot leave the worker fails its call, saying why', async (t) => {
    await t.rejects(host.client.callTool({ name: 'two.uncloneable', arguments: {} }), {
      message: /plugin "two" \(@w\/two\) sent an answer that cannot leave its worker: .*could not be cloned/,
    });
  });

  for (const prefix of ['two', 'one']) {
    t.test(`${prefix}: progress comes back, cancellation reaches the plugin`, async (t) => {
      const wire = progressOnTheWire(host.transport);
      const done = await host.client.callTool(
        { name: `${prefix}.slow`, arguments: { steps: 3 } },
        { onprogress: () => {} },
      );
      t.equal(textOf(done), 'done');
      t.same(wire.take(), [1, 2, 3]);

      const abort = new AbortController();
      await t.rejects(
        host.client.callTool(
          { name: `${prefix}.slow`, arguments: { steps: 100 } },
          { signal: abort.signal, onprogress: () => abort.abort('enough') },
        ),
        { message: 'enough' },
        'the call fails with the reason it was cancelled for',
      );
      await until(`${prefix} to see the cancellation`, () => existsSync(join(markers, `${prefix}-aborted`)));
    });

    t.test(`${prefix}: a mid-call elicitation is asked of the calling client, and answered`, async (t) => {
      const result = await host.client.callTool({ name: `${prefix}.ask`, arguments: {} });
      t.equal(textOf(result), 'hello ada');
      t.equal(elicited.at(-1), 'Your name?');
    });
  }

  t.test("the plugin's log messages reach the client whose call they concern", async (t) => {
    await assertEventually(t, 'the log message of the call reached its client', () => logged.includes('two is asking'));
  });

  t.test('a subscribed resource’s updates reach the subscriber', async (t) => {
    const updated: string[] = [];
    host.client.setNotificationHandler('notifications/resources/updated', (n) => void updated.push(n.params.uri));
    await host.client.subscribeResource({ uri: 'two://counter' });
    await host.client.callTool({ name: 'two.bump', arguments: {} });
    await until('the update', () => updated.includes('two://counter'));
    t.match(await host.client.readResource({ uri: 'two://counter' }), { contents: [{ text: '1' }] });
  });

  t.test("the plugin's own list_changed is forwarded", async (t) => {
    await host.client.callTool({ name: 'two.grow', arguments: {} });
    await host.until('tools/list_changed', () => host.notified.tools > 0);
    t.ok((await toolNames(host.client)).includes('two.grown'));
  });
});

/**
 * A fault in the worker, then: the host log names the plugin and the
 * cause, its tools leave (list_changed) and come back (list_changed again),
 * served by a new worker, while the in-process mount answers throughout.
 */
async function faultsAndComesBack(t: Test, host: StdioHost, tool: string, cause: RegExp): Promise<void> {
  const before = await whereOf(host.client);
  const notified = host.notified.tools;
  const logged = host.log().length;
  await host.client.callTool({ name: tool, arguments: {} }).catch((error: Error) => {
    t.match(
      error.message,
      /mount "two" closed the connection before answering tools\/call: /,
      'a call cut short names the plugin',
    );
    t.match(error.message, cause, 'and the cause');
  });
  await host.until('the fault, and the plugin withdrawn, in the log', () => {
    const log = host.log().slice(logged);
    return cause.test(log) && /"plugin":"two".*went down/.test(log);
  });
  t.same(textOf(await host.client.callTool({ name: 'good.echo', arguments: { text: 'still here' } })), 'still here');
  await host.until('withdrawn and back (two list_changed)', () => host.notified.tools >= notified + 2);
  t.ok((await toolNames(host.client)).includes('two.where'), 'its tools are back');
  const after = await whereOf(host.client);
  t.not(after.threadId, before.threadId, 'served by a new worker');
}

t.test(
  'faults in a worker are the plugin’s alone: out of memory, an uncaught throw, process.exit, process.kill',
  async (t) => {
    const ws = makeWorkspace(t);
    const markers = writePlugins(ws);
    const file = ws.writeConfig({
      upstreams: FAST_RESTARTS,
      plugins: [
        { package: '@w/two', options: { markers }, isolation: 'worker', memoryLimitMb: 64 },
        { package: '@zoo/good' },
      ],
    });
    const host = await startStdioHost(t, file);

    t.test('allocating without end', (t) =>
      faultsAndComesBack(t, host, 'two.hog', /its worker ran out of memory \(memoryLimitMb: 64\)/),
    );
    t.test('a timer that throws', (t) =>
      faultsAndComesBack(
        t,
        host,
        'two.throw-later',
        /plugin code threw outside any request, in its worker: two: uncaught from a timer/,
      ),
    );
    t.test('closing its own server', (t) => faultsAndComesBack(t, host, 'two.close', /the plugin closed its server\./));
    t.test('process.exit', (t) =>
      faultsAndComesBack(t, host, 'two.exit', /its worker exited with code 5 \(plugin code called process\.exit\)/),
    );
    t.test("process.kill of the host's own pid", (t) =>
      faultsAndComesBack(
        t,
        host,
        'two.kill',
        /\(@w\/two\) called process\.kill\(\d+, SIGTERM\) on the host's own process, which would have ended the host and every plugin in it: mcp-host refuses process exits and signals from plugin code\./,
      ),
    );
  },
);

t.test('a plugin blocking its worker thread stalls no one else, and is restarted', async (t) => {
  const ws = makeWorkspace(t);
  const markers = writePlugins(ws);
  const file = ws.writeConfig({
    upstreams: { ...FAST_RESTARTS, heartbeatTimeoutMs: HEARTBEAT_MS },
    plugins: [{ package: '@w/two', options: { markers }, isolation: 'worker' }, { package: '@zoo/good' }],
  });
  const { url, log } = await startHttpHost(t, file);
  const connect = async () => {
    const client = new Client({ name: 'worker-isolation-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    t.teardown(() => client.close());
    return client;
  };
  const [blocker, other] = await Promise.all([connect(), connect()]);

  // The plugin blocks its thread for longer than the heartbeat allows, so only the heartbeat ends the block. The
  // others are served while it lasts: their answers come before the blocked call fails, in the window the heartbeat
  // leaves (once a 1 s bound on /healthz's time, which raced the busy worker for a core on a loaded 2-core machine).
  let blockEnded = false;
  const blocked = blocker.callTool({ name: 'two.block', arguments: { ms: 10 * HEARTBEAT_MS } });
  blocked.then(
    () => (blockEnded = true),
    () => (blockEnded = true),
  );
  await until('the plugin to block its thread', () => existsSync(join(markers, 'two-blocking')));
  const health = await fetch(new URL('/healthz', url));
  t.equal(health.status, 200);
  t.same(textOf(await other.callTool({ name: 'good.echo', arguments: { text: 'meanwhile' } })), 'meanwhile');
  t.notOk(blockEnded, '/healthz and the other plugin answered while the plugin blocked its thread');

  await t.rejects(
    blocked,
    /mount "two" closed the connection before answering tools\/call: its worker thread did not answer a heartbeat/,
    'the blocked call fails, naming the plugin and why',
  );
  // Logged on stderr, apart from the answer: it may arrive after the call's failure.
  await assertLogged(t, log, `did not answer a heartbeat for ${HEARTBEAT_MS} ms (upstreams.heartbeatTimeoutMs)`);
  // A worker started again: bounded by the suite's time for an event, not 10 s.
  await until('two to come back', () => /"plugin":"two".*back up/.test(log()), undefined, log);
  t.match(await whereOf(other), { isMainThread: false });
});

t.test('an upgrade-reload terminates the old worker', async (t) => {
  const ws = makeWorkspace(t);
  const markers = writePlugins(ws);
  const file = ws.writeConfig({
    reload: { watch: false },
    plugins: [{ package: '@w/two', options: { markers }, isolation: 'worker' }],
  });
  const checked = await runCli(['check', '--config', file]);
  t.match(checked.stdout, 'two  (@w/two@1.0.0, in a worker, prefix "two")', 'check says where it runs');
  const host = await startStdioHost(t, file);
  const old = await whereOf(host.client);
  t.equal(old.version, '1.0.0');

  writePlugins(ws, '2.0.0');
  const reloaded = await runCli(['reload', '--config', file]);
  t.equal(reloaded.code, 0, reloaded.stdout + reloaded.stderr);
  t.match(await whereOf(host.client), { version: '2.0.0', isMainThread: false });
  await host.until('the old worker to end', () => host.log().includes(`worker thread ${old.threadId} ended`));
});

/** `mcp-host check` of `config` in `ws` exits 1, its output matching `refusal`. */
async function checkRefuses(
  t: Test,
  ws: Workspace,
  config: string | Record<string, unknown>,
  refusal: string | RegExp,
) {
  const checked = await runCli(['check', '--config', ws.writeConfig(config)]);
  t.equal(checked.code, 1, 'the exit status is the host’s');
  t.match(checked.stdout + checked.stderr, refusal);
}

t.test('isolation and memoryLimitMb are validated like every other key', async (t) => {
  const refusals = (raw: unknown) => {
    try {
      validateConfig(raw, '/srv/mcp-host.config.js');
      return [];
    } catch (error) {
      return problemsOf(error, 'config').map(formatProblem);
    }
  };
  t.same(
    refusals({
      isolation: 'thread',
      upstreams: { heartbeatTimeoutMs: 0 },
      plugins: [
        { package: '@acme/a', prefix: 'a', isolation: true },
        { package: '@acme/b', prefix: 'b', isolation: 'worker', memoryLimitMb: 8 },
        { command: 'uvx', prefix: 'c', isolation: 'worker' },
      ],
    }),
    [
      'mcp-host.config.js: isolation: expected "none", "worker", "process" or "sandbox", got "thread". Fix: e.g. isolation: "process" (its own Node process, reading only its package) or "worker" (its own thread); see docs/isolation.md.',
      'mcp-host.config.js: upstreams.heartbeatTimeoutMs: expected a positive integer, got 0. Fix: e.g. heartbeatTimeoutMs: 10000.',
      'mcp-host.config.js: plugins[0].isolation: expected "none", "worker", "process" or "sandbox", got true. Fix: e.g. isolation: "process" (its own Node process, reading only its package) or "worker" (its own thread); see docs/isolation.md.',
      'mcp-host.config.js: plugins[1].memoryLimitMb: expected an integer of 16 or more, got 8. Fix: e.g. memoryLimitMb: 256.',
      'mcp-host.config.js: plugins[2].isolation: "isolation" applies to package entries only, and this is a command entry. Fix: remove "isolation".',
    ],
  );

  const limited = { package: '@acme/c', prefix: 'c', memoryLimitMb: 128 };
  t.same(refusals({ plugins: [limited] }), [
    'mcp-host.config.js: plugins[0].memoryLimitMb: limits the heap of a plugin\'s worker thread, but "@acme/c" runs in the host\'s thread (isolation "none"). Fix: add isolation: "worker" to the entry, or remove memoryLimitMb.',
  ]);
  t.same(refusals({ isolation: 'worker', plugins: [limited] }), [], 'the top-level isolation counts');

  const ws = makeWorkspace(t);
  writeZoo(ws);
  await checkRefuses(
    t,
    ws,
    { plugins: [{ package: 'zoo-child', prefix: 'child', isolation: 'worker' }] },
    'plugins[0].isolation: "isolation" is for mcp-host plugins, but "zoo-child" is an MCP server package run over stdio',
  );
});

t.test('options that cannot be sent to a worker refuse the plugin, saying so', async (t) => {
  const ws = makeWorkspace(t);
  writeZoo(ws);
  await checkRefuses(
    t,
    ws,
    "export default { plugins: [{ package: '@zoo/good', isolation: 'worker', options: { now: () => Date.now() } }] };\n",
    /plugin "@zoo\/good" \(plugins\[0\]\): its options cannot be sent to a worker thread: .*could not be cloned\. Fix: give the entry options that are plain data, or run the plugin with isolation: "none"\./,
  );
});

t.test('a worker plugin that exits while it loads is refused at check, naming the exit', async (t) => {
  const ws = makeWorkspace(t);
  ws.writePackage('node_modules/@w/quitter', manifest('@w/quitter', 'quitter'), {
    'index.js': 'process.exit(3);\nexport default { create() {} };\n',
  });
  await checkRefuses(
    t,
    ws,
    { isolation: 'worker', plugins: [{ package: '@w/quitter' }] },
    'plugin "@w/quitter" (plugins[0]): its worker exited with code 3 (plugin code called process.exit). Fix: remove the process.exit call from the plugin',
  );
});

t.test('a create() that throws in a worker refuses the plugin, as in process', async (t) => {
  const ws = makeWorkspace(t);
  writeZoo(ws);
  await checkRefuses(
    t,
    ws,
    { plugins: [{ package: '@zoo/faulty', isolation: 'worker', options: { fault: 'create-throws' } }] },
    'plugin "@zoo/faulty" (plugins[0]): create() threw: zoo: create failed on purpose Fix: fix the plugin or its options in the config; the host did not mount it.',
  );
});

t.test(
  'a create() that never returns in a worker is refused after upstreams.startTimeoutMs, its worker ended',
  async (t) => {
    const ws = makeWorkspace(t);
    writeZoo(ws);
    await checkRefuses(
      t,
      ws,
      {
        upstreams: { startTimeoutMs: 1000 },
        plugins: [{ package: '@zoo/faulty', isolation: 'worker', options: { fault: 'create-hangs' } }],
      },
      'plugin "@zoo/faulty" (plugins[0]): it was not ready within 1000 ms (upstreams.startTimeoutMs): create() did not return, or the plugin took that long to load.',
    );
  },
);
