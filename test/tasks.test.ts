// Tasks through the host (SEP-2663, the `io.modelcontextprotocol/tasks`
// extension): two 2026-07-28 upstreams that number their tasks alike
// (test/fixtures/task-server) are mounted under prefixes; a 2026-07-28 HTTP
// client starts a task on each, polls, updates and cancels them, and the
// host keeps them apart under IDs of its own. A reload that retires one
// mount ends its task with a clear error; the other's lives on. Real parts:
// the host a child process, the upstreams its stdio children, the client the
// SDK's own over HTTP on 127.0.0.1.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import t from 'tap';
import { eventually, runCli, startHttpHost } from './helpers/host.js';
import { REPO_ROOT, makeWorkspace } from './helpers/packages.js';
import { modernRpc } from './helpers/modern-rpc.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const SERVER = join(REPO_ROOT, 'test/fixtures/task-server/server.js');
function config(prefixes: string[]): string {
  return `export default ${JSON.stringify({
    reload: { watch: false },
    plugins: prefixes.map((prefix) => ({ command: process.execPath, args: [SERVER, prefix], prefix })),
  })};`;
}

t.test(
  'two mounts’ tasks of the same ID are started, polled, updated and cancelled apart; a reload retires one',
  async (t) => {
    const ws = makeWorkspace(t);
    const configFile = ws.writeFile('mcp-host.config.js', config(['a', 'b']));
    const runtimeDir = join(dirname(configFile), 'run');
    mkdirSync(runtimeDir, { mode: 0o700 });
    const env = { ...process.env, XDG_RUNTIME_DIR: runtimeDir };
    const host = await startHttpHost(t, configFile, { env });
    const ask = modernRpc(host.url, { extensions: { [TASKS]: {} } });

    const discovered = await ask('server/discover');
    t.same(
      (discovered.capabilities as { extensions?: unknown }).extensions,
      { [TASKS]: {} },
      'the extension is advertised: a mount offers it',
    );

    const quick = await ask('tools/call', { name: 'a.quick', arguments: {} });
    t.notOk('taskId' in quick, 'a tool that is not a task is answered at once');
    const started = {
      a: await ask('tools/call', { name: 'a.slow', arguments: {} }),
      b: await ask('tools/call', { name: 'b.slow', arguments: {} }),
    };
    for (const [prefix, task] of Object.entries(started)) {
      t.equal(task.resultType, 'task', `${prefix}: a task`);
      t.match(
        task.taskId,
        /^mcph\.[0-9a-f-]{36}\.[A-Za-z0-9_-]{22}$/,
        `${prefix}: under the host's ID, not the upstream's "1"`,
      );
      t.equal(task.status, 'working');
    }
    t.not(started.a.taskId, started.b.taskId, 'the two upstreams’ task 1 are two tasks');

    const polled = await ask('tasks/get', { taskId: started.a.taskId });
    t.equal(polled.taskId, started.a.taskId, 'polled under the host’s ID');
    t.equal(polled.status, 'working');

    const updated = await ask('tasks/update', { taskId: started.a.taskId, inputResponses: {} });
    t.equal(updated.resultType, 'complete', 'updated: an empty ack');
    t.notOk('taskId' in updated);
    const done = await ask('tasks/get', { taskId: started.a.taskId });
    t.equal(done.status, 'completed');
    t.same(done.result, { content: [{ type: 'text', text: 'a task 1 done' }] }, 'a’s task, answered by a');
    t.equal((await ask('tasks/get', { taskId: started.b.taskId })).status, 'working', 'b’s task 1 untouched');

    t.equal(
      (await ask('tasks/cancel', { taskId: started.b.taskId })).resultType,
      'complete',
      'cancelled: an empty ack',
    );
    t.equal((await ask('tasks/get', { taskId: started.b.taskId })).status, 'cancelled', 'b’s task cancelled');
    t.equal((await ask('tasks/get', { taskId: started.a.taskId })).status, 'completed', 'a’s still completed');

    // Another client (another connection; no identity: the handle's randomness keeps it apart) guessing wrong.
    await t.rejects(ask('tasks/get', { taskId: 'mcph.x.y' }), {
      code: -32602,
      message:
        /Unknown task "mcph\.x\.y": mcp-host handed out no such task to this client, or it expired\. Fix: use a taskId from a tools\/call result of this client's\./,
    });
    await t.rejects(ask('tasks/get', { taskId: '1' }), { code: -32602 }, 'an upstream’s own ID is not a host ID');
    await t.rejects(ask('tasks/get', { taskId: 1 }), { code: -32602, message: /^Unknown task 1:/ }, 'nor a number');

    // A client that did not declare the extension may not follow tasks up.
    const plain = modernRpc(host.url);
    await t.rejects(plain('tasks/get', { taskId: started.a.taskId }), {
      code: -32021,
      message: /tasks\/get needs the io\.modelcontextprotocol\/tasks extension/,
    });

    // A reload that retires b: b's task ends with a clear error; a's lives on.
    const again = await ask('tools/call', { name: 'b.slow', arguments: {} });
    writeFileSync(configFile, config(['a']));
    t.equal((await runCli(['reload', '--config', configFile], { env })).code, 0);
    await t.rejects(ask('tasks/get', { taskId: again.taskId }), {
      code: -32602,
      message:
        /^Task "mcph\.[^"]+" was started by mount "b", which a reload has since retired: the task ended with it\. Fix: call the tool again\.$/,
    });
    t.equal((await ask('tasks/get', { taskId: started.a.taskId })).status, 'completed', 'a’s task outlives the reload');
  },
);

t.test(
  'limits.tasks: a task past maxTasks is refused and cancelled; a handle of unlimited ttlMs expires after limits.tasks.ttlMs',
  async (t) => {
    const ws = makeWorkspace(t);
    const configFile = ws.writeConfig({
      reload: { watch: false },
      limits: { tasks: { maxTasks: 2, ttlMs: 1 } },
      plugins: [{ command: process.execPath, args: [SERVER, 'a'], prefix: 'a' }],
    });
    const host = await startHttpHost(t, configFile);
    const ask = modernRpc(host.url, { extensions: { [TASKS]: {} } });

    // A task of unlimited ttlMs (null) is kept limits.tasks.ttlMs after it was last seen: here 1 ms.
    const brief = await ask('tools/call', { name: 'a.slow', arguments: { ttlMs: null } });
    await eventually('the brief task’s handle expired', () =>
      ask('tasks/get', { taskId: brief.taskId }).then(
        () => false,
        (error: { code?: number }) => error.code === -32602,
      ),
    );
    // The expired handle no longer counts: two more fit under maxTasks 2.
    const kept = [
      await ask('tools/call', { name: 'a.slow', arguments: {} }),
      await ask('tools/call', { name: 'a.slow', arguments: {} }),
    ];
    await t.rejects(ask('tools/call', { name: 'a.slow', arguments: {} }), {
      code: -32603,
      message:
        'mcp-host holds 2 tasks, the limit limits.tasks.maxTasks in its config: the task mount "a" started was not handed out. Fix: call again once tasks have expired, or raise limits.tasks.maxTasks.',
    });
    for (const task of kept) t.equal((await ask('tasks/get', { taskId: task.taskId })).status, 'working');
  },
);

t.test('limits.tasks is checked: each value a positive integer', async (t) => {
  const ws = makeWorkspace(t);
  const configFile = ws.writeConfig({ limits: { tasks: { maxTasks: 0, ttlMs: 'long' } }, plugins: [] });
  const checked = await runCli(['check', '--config', configFile]);
  t.equal(checked.code, 1);
  t.match(checked.stdout, 'limits.tasks.maxTasks: expected a positive integer, got 0. Fix: e.g. maxTasks: 10000.');
  t.match(checked.stdout, 'limits.tasks.ttlMs: expected a positive integer, got "long". Fix: e.g. ttlMs: 3600000.');
});

t.test('a task is its caller’s: another identity holding its ID is told it is unknown, word for word', async (t) => {
  const ws = makeWorkspace(t);
  const configFile = ws.writeConfig({
    reload: { watch: false },
    http: { port: 0, auth: { tokens: ['alice:alice-token-0123456789', 'bob:bob-token-0123456789ab'] } },
    plugins: [{ command: process.execPath, args: [SERVER, 'a'], prefix: 'a' }],
  });
  const host = await startHttpHost(t, configFile, { env: { MCP_HOST_HTTP_TOKENS: undefined } });
  const alice = modernRpc(host.url, { extensions: { [TASKS]: {} } }, 'alice-token-0123456789');
  const bob = modernRpc(host.url, { extensions: { [TASKS]: {} } }, 'bob-token-0123456789ab');
  const task = await alice('tools/call', { name: 'a.slow', arguments: {} });
  t.equal((await alice('tasks/get', { taskId: task.taskId })).status, 'working', 'alice follows her task');
  for (const method of ['tasks/get', 'tasks/cancel']) {
    await t.rejects(bob(method, { taskId: task.taskId }), {
      code: -32602,
      message: `Unknown task ${JSON.stringify(task.taskId)}: mcp-host handed out no such task to this client, or it expired. Fix: use a taskId from a tools/call result of this client's.`,
    });
  }
  t.equal((await alice('tasks/get', { taskId: task.taskId })).status, 'working', 'bob’s cancel reached nothing');
});

/** An in-process plugin whose tasks tell of themselves on the request streams (the SDK links an in-process plugin's notifications to their request). */
const CHATTER = `
import { McpServer } from '@modelcontextprotocol/server';
const AS_SENT = { '~standard': { version: 1, vendor: 'chatter', validate: (value) => ({ value }) } };
const now = new Date().toISOString();
const task = (taskId) => ({ taskId, status: 'working', createdAt: now, lastUpdatedAt: now, ttlMs: 60000 });
export default {
  create() {
    const server = new McpServer({ name: 'chatter', version: '1.0.0' });
    server.server.registerCapabilities({ extensions: { '${TASKS}': {} } });
    server.registerTool('start', { description: 'Starts task 1, telling of it while the call runs.' }, async (ctx) => {
      await ctx.mcpReq.notify({ method: 'notifications/tasks', params: task('1') });
      return { resultType: 'task', ...task('1') };
    });
    server.server.setRequestHandler('tasks/get', { params: AS_SENT, result: AS_SENT }, async (params, ctx) => {
      await ctx.mcpReq.notify({ method: 'notifications/tasks', params: task(params.taskId) });
      await ctx.mcpReq.notify({ method: 'notifications/tasks', params: task('2') });
      return task(params.taskId);
    });
    return server;
  },
};
`;

t.test(
  'an upstream’s task notifications on a request’s stream: its own task under the host’s ID, others not at all',
  async (t) => {
    const ws = makeWorkspace(t);
    ws.writePackage(
      'node_modules/@test/mcp-task-chatter',
      {
        name: '@test/mcp-task-chatter',
        version: '1.0.0',
        type: 'module',
        exports: './index.js',
        'mcp-host': { protocolVersions: ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] },
      },
      { 'index.js': CHATTER },
    );
    const host = await startHttpHost(
      t,
      ws.writeConfig({ reload: { watch: false }, plugins: [{ package: '@test/mcp-task-chatter', prefix: 'c' }] }),
    );
    const heard: { method: string; params?: Record<string, unknown> }[] = [];
    const ask = modernRpc(host.url, { extensions: { [TASKS]: {} } }, undefined, (notification) =>
      heard.push(notification),
    );

    // On the call's stream the task has no ID of the host's yet: nothing names it.
    const started = await ask('tools/call', { name: 'c.start', arguments: {} });
    t.equal(started.resultType, 'task');
    t.same(
      heard.map((notification) => notification.method),
      [],
      'the upstream’s task 1 is never shown',
    );

    heard.length = 0;
    t.equal((await ask('tasks/get', { taskId: started.taskId })).status, 'working');
    t.same(
      heard.map(({ method, params }) => [method, params?.taskId]),
      [['notifications/tasks', started.taskId]],
      'told of its own task under the host’s ID; of the upstream’s task 2 not at all',
    );
  },
);
