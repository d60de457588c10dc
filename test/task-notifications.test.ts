// Task status notifications through the host (SEP-2663): a 2026-07-28 client's
// `subscriptions/listen` naming `taskIds` (the host's IDs) hears
// `notifications/tasks` about those of its own tasks, under the host's ID,
// which the host has the task's upstream send on its own listen stream
// (test/fixtures/task-server tells the tasks its listen streams name).
// Two upstreams number their tasks alike, so alice's task on one and bob's
// on the other are both "1" upstream: each hears only its own. Real parts:
// the host a child process on HTTP, the upstreams its stdio children.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import t from 'tap';
import { runCli, startHttpHost, until } from './helpers/host.js';
import { REPO_ROOT, makeWorkspace } from './helpers/packages.js';
import { modernListen, modernRpc } from './helpers/modern-rpc.js';
import { ALICE, secretOf } from './helpers/named-tokens.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const DECLARED = { extensions: { [TASKS]: {} } };
const SERVER = join(REPO_ROOT, 'test/fixtures/task-server/server.js');
const BOB = 'bob:bob-token-0123456789abcdef';
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

t.test(
  'a listen naming taskIds hears its own tasks’ status under the host’s IDs, never another identity’s',
  async (t) => {
    const ws = makeWorkspace(t);
    const config = (prefixes: string[]) => ({
      reload: { watch: false },
      http: { port: 0, auth: { tokens: [ALICE, BOB] } },
      plugins: prefixes.map((prefix) => ({ command: process.execPath, args: [SERVER, prefix], prefix })),
    });
    const configFile = ws.writeConfig(config(['a', 'b']));
    const runtimeDir = join(dirname(configFile), 'run');
    mkdirSync(runtimeDir, { mode: 0o700 });
    const env = { XDG_RUNTIME_DIR: runtimeDir, MCP_HOST_HTTP_TOKENS: undefined };
    const host = await startHttpHost(t, configFile, { env });
    const alice = modernRpc(host.url, DECLARED, secretOf(ALICE));
    const bob = modernRpc(host.url, DECLARED, secretOf(BOB));

    const hers = (await alice('tools/call', { name: 'a.slow', arguments: {} })).taskId as string;
    const his = (await bob('tools/call', { name: 'b.slow', arguments: {} })).taskId as string;
    const hersToo = (await alice('tools/call', { name: 'a.slow', arguments: {} })).taskId as string;
    t.not(hers, his, 'two tasks, both "1" upstream');

    // A client that did not declare the extension may not ask for task status (SEP-2663).
    await t.rejects(
      modernRpc(host.url, {}, secretOf(ALICE))('subscriptions/listen', { notifications: { taskIds: [hers] } }),
      {
        code: -32021,
        message: /^subscriptions\/listen naming taskIds needs the io\.modelcontextprotocol\/tasks extension/,
        data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
      },
    );

    // Bob naming alice's task: not agreed to, so his stream asks for nothing and is closed at once.
    const told: { method: string; params?: Record<string, unknown> }[] = [];
    const closed = await modernRpc(host.url, DECLARED, secretOf(BOB), (note) => told.push(note))(
      'subscriptions/listen',
      { notifications: { taskIds: [hers, 'mcph.x.y'] } },
    );
    t.equal(closed.resultType, 'complete', 'bob’s stream ends at once');
    t.same(
      told.map((note) => [note.method, note.params?.notifications]),
      [['notifications/subscriptions/acknowledged', {}]],
      'and its acknowledgement agrees to no task',
    );

    const herListen = await modernListen(host.url, DECLARED, secretOf(ALICE), { taskIds: [hers, his, hersToo] });
    const hisListen = await modernListen(host.url, DECLARED, secretOf(BOB), {
      taskIds: [his],
      toolsListChanged: true,
    });
    t.teardown(() => (herListen.close(), hisListen.close()));
    await until('both acknowledgements', () => herListen.heard.length > 0 && hisListen.heard.length > 0);
    t.same(
      herListen.heard[0],
      {
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: { notifications: { taskIds: [hers, hersToo] }, _meta: { [SUBSCRIPTION_ID]: 1 } },
      },
      'alice’s own tasks are agreed to; bob’s is left out; no tool list changes she did not ask for',
    );
    t.same(
      hisListen.heard[0]?.params?.notifications,
      { toolsListChanged: true, taskIds: [his] },
      'a stream asking for more than tasks keeps it',
    );

    await bob('tasks/update', { taskId: his, inputResponses: {} });
    await until('bob hears his task complete', () => hisListen.heard.length > 1);
    t.match(
      hisListen.heard[1],
      {
        method: 'notifications/tasks',
        params: {
          taskId: his,
          status: 'completed',
          result: { content: [{ type: 'text', text: 'b task 1 done' }] },
          _meta: { [SUBSCRIPTION_ID]: 1 },
        },
      },
      'the whole task, under bob’s host ID, tagged with his stream',
    );

    // A second stream of alice's following one of her tasks: closing it leaves the first one hearing.
    const herSecond = await modernListen(host.url, DECLARED, secretOf(ALICE), { taskIds: [hersToo] });
    await until('her second acknowledgement', () => herSecond.heard.length > 0);
    herSecond.close();

    await alice('tasks/cancel', { taskId: hers });
    await until('alice hears her task cancelled', () => herListen.heard.length > 1);
    t.match(herListen.heard[1], {
      method: 'notifications/tasks',
      params: { taskId: hers, status: 'cancelled', createdAt: String, lastUpdatedAt: String, pollIntervalMs: 100 },
    });
    t.equal(hisListen.heard.length, 2, 'bob heard nothing of alice’s task "1"');

    // A reload retiring b changes the tools: bob's stream, which asked for that, is told; alice's, which asked for
    // tasks only, is not. Then bob stops listening: his mount's upstream is no longer asked about his task.
    writeFileSync(configFile, `export default ${JSON.stringify(config(['a']))};`);
    t.equal((await runCli(['reload', '--config', configFile], { env })).code, 0);
    await until('bob hears the tools change', () => hisListen.heard.length > 2);
    t.equal(hisListen.heard[2]?.method, 'notifications/tools/list_changed');
    hisListen.close();
    await alice('tasks/update', { taskId: hersToo, inputResponses: {} });
    await until('alice hears her other task complete', () => herListen.heard.length > 2);
    t.same(
      herListen.heard.map((message) => [message.method, message.params?.taskId]),
      [
        ['notifications/subscriptions/acknowledged', undefined],
        ['notifications/tasks', hers],
        ['notifications/tasks', hersToo],
      ],
      'alice heard her two tasks, nothing of bob’s task "1" nor of the tools the reload changed',
    );
    t.equal(herSecond.heard.length, 1, 'her second stream, closed before, heard nothing of it');
  },
);
