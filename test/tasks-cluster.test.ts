// Tasks (SEP-2663) behind replicas (docs/tasks.md, docs/replicas.md): two
// `mcp-host start` child processes sharing a real Redis, each mounting a
// 2026-07-28 upstream that offers tasks (test/fixtures/task-server), and
// HAProxy round robin in front. A task started on replica a is polled,
// updated and cancelled through replica b, which forwards each follow-up to
// a (the replica its ID names) as it forwards a retry's requestState; and
// through HAProxy, whichever replica each request lands on.
import { join } from 'node:path';
import t from 'tap';
import { until } from './helpers/host.js';
import { startCluster } from './helpers/cluster.js';
import { REPO_ROOT, makeWorkspace } from './helpers/packages.js';
import { modernRpc } from './helpers/modern-rpc.js';
import { EVENT_MS } from './helpers/timing.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const SERVER = join(REPO_ROOT, 'test/fixtures/task-server/server.js');

t.test('a task started on one replica is followed up through another, and through HAProxy', async (t) => {
  const ws = makeWorkspace(t);
  const cluster = await startCluster(t, ws, {
    config: { plugins: [{ command: process.execPath, args: [SERVER, 't'], prefix: 't' }] },
  });
  const [a, b] = cluster.replicas;
  const logs = () => a!.log() + b!.log();
  const forwards = () => logs().match(/forwarded a POST to replica/g)?.length ?? 0;
  const onA = modernRpc(a!.url, { extensions: { [TASKS]: {} } });
  const onB = modernRpc(b!.url, { extensions: { [TASKS]: {} } });

  const polled = await onA('tools/call', { name: 't.slow', arguments: {} });
  const cancelled = await onA('tools/call', { name: 't.slow', arguments: {} });
  const before = forwards();
  t.equal((await onB('tasks/get', { taskId: polled.taskId })).status, 'working', 'b polls a’s task');
  t.equal((await onB('tasks/update', { taskId: polled.taskId, inputResponses: {} })).resultType, 'complete');
  const done = await onB('tasks/get', { taskId: polled.taskId });
  t.equal(done.taskId, polled.taskId, 'answered under the host’s ID');
  t.same(done.result, { content: [{ type: 'text', text: 't task 1 done' }] }, 'updated through b, by a’s upstream');
  t.equal((await onB('tasks/cancel', { taskId: cancelled.taskId })).resultType, 'complete', 'b cancels a’s task');
  t.equal((await onA('tasks/get', { taskId: cancelled.taskId })).status, 'cancelled', 'a saw it cancelled');
  // The replicas log asynchronously: a forward's line may come a little after its answer.
  await until('b to forward its four follow-ups to a', () => forwards() - before >= 4, EVENT_MS, logs);

  // An ID no replica handed out is answered where it lands, as unknown.
  await t.rejects(onB('tasks/get', { taskId: 'made-up' }), { code: -32602, message: /^Unknown task "made-up"/ });

  const balanced = modernRpc(cluster.url, { extensions: { [TASKS]: {} } });
  const started = await balanced('tools/call', { name: 't.slow', arguments: {} });
  for (let i = 0; i < 4; i++) {
    t.equal((await balanced('tasks/get', { taskId: started.taskId })).status, 'working', `through HAProxy, poll ${i}`);
  }
  await balanced('tasks/update', { taskId: started.taskId, inputResponses: {} });
  t.equal((await balanced('tasks/get', { taskId: started.taskId })).status, 'completed', 'updated through HAProxy');
});
