// Replicas behind a real load balancer, coordinated through a real Redis
// (DESIGN.md, "Scale"): three `mcp-host start` child processes with the same
// config and cluster secret, Debian's redis-server and haproxy (round
// robin, no affinity) started by the test on free 127.0.0.1 ports, and the
// SDK's own Client of both eras. A legacy session keeps working while its
// requests alternate replicas; a 2026-07-28 call that asks its client
// questions completes when its rounds land on different replicas; a killed
// replica's legacy sessions get 404 and 2026-07-28 clients notice nothing.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { validateConfig } from '../host/config/validate.js';
import { formatProblem, problemsOf } from '../host/errors.js';
import {
  assertLogged,
  eventually,
  runCli,
  startHttpHost,
  type HttpHost,
  type Teardown,
  until,
  watchingNotificationStream,
} from './helpers/host.js';
import { freePort, redisCli, startRedis } from './helpers/engines.js';
import {
  MODERN,
  SECRET,
  allListening,
  alternating,
  answering,
  callWaitingOn,
  listOnSession,
  modernClient,
  openSession,
  readiness,
  registeredReplicas,
  replicaEntries,
  retryOf,
  startCluster,
  startTokenCluster,
  TOKENS,
  writeClusterConfig,
  type Result,
} from './helpers/cluster.js';
import { shownRedisUrl } from '../host/cluster/cluster-options.js';
import { makeWorkspace } from './helpers/packages.js';
import { EVENT_MS } from './helpers/timing.js';
import { firstText } from './helpers/results.js';

t.test('three replicas behind HAProxy, one Redis', async (t) => {
  const ws = makeWorkspace(t);
  const cluster = await startCluster(t, ws, { replicas: 3 });
  const [a, b, c] = cluster.replicas as [HttpHost, HttpHost, HttpHost];
  const logs = () => a.log() + b.log() + c.log();
  /** A legacy session and a 2026-07-28 client on a, once b forwards to that session (Redis answers). */
  const clientsOnA = async (t: Test) => {
    const onA = new Client({ name: 'legacy-on-a', version: '1.0.0' });
    await onA.connect(new StreamableHTTPClientTransport(new URL(a.url)));
    t.teardown(() => onA.close());
    const sessionId = (onA.transport as StreamableHTTPClientTransport).sessionId!;
    const version = onA.getNegotiatedProtocolVersion()!;
    t.equal((await listOnSession(b.url, sessionId, version)).status, 200, 'b forwards to a while Redis answers');
    const modern = modernClient();
    answering(modern);
    await modern.connect(new StreamableHTTPClientTransport(new URL(a.url)));
    t.teardown(() => modern.close());
    return { onA, sessionId, version, modern };
  };
  /** While Redis cannot answer, a serves its own session and calls, and b cannot place a's session: 503 saying `why` (a pattern). */
  const servedAlone = async (t: Test, clients: Awaited<ReturnType<typeof clientsOnA>>, why: string) => {
    t.ok(firstText(await clients.onA.callTool({ name: 'r.whoami', arguments: {} })), 'a serves its own session');
    t.match(firstText(await clients.modern.callTool({ name: 'r.ask_twice', arguments: {} })), /^first! then second!/);
    const lost = await listOnSession(b.url, clients.sessionId, clients.version);
    t.equal(lost.status, 503);
    t.match(
      ((await lost.json()) as { error: Result }).error.message,
      new RegExp(
        `^Service Unavailable: session "${clients.sessionId}" is not on this replica, and which replica holds it cannot be looked up now \\(${why}\\); retry later$`,
      ),
    );
  };
  /** What must outlive one subtest (a restarted Redis) is torn down with the whole. */
  const whole: Teardown = t;

  t.test('a legacy session works while its requests alternate replicas', async (t) => {
    // initialize opens the session on a; its GET stream goes through c, and the other requests through b, c, a in turn.
    const stream = watchingNotificationStream(alternating([a.url, b.url, c.url], c.url));
    const client = new Client({ name: 'legacy', version: '1.0.0' });
    const changed: string[] = [];
    client.setNotificationHandler('notifications/tools/list_changed', () => void changed.push('tools'));
    await client.connect(new StreamableHTTPClientTransport(new URL(a.url), { fetch: stream.fetch }));
    t.teardown(() => client.close());
    t.not(client.getNegotiatedProtocolVersion(), MODERN);
    await stream.opened;
    const pids = new Set<string>();
    for (let i = 0; i < 6; i++) pids.add(firstText(await client.callTool({ name: 'r.whoami', arguments: {} })));
    t.equal(pids.size, 1, 'every call of the session is served by the replica that holds it');
    t.equal(
      firstText(await client.callTool({ name: 'r.secret', arguments: {} })),
      'undefined',
      'plugin code cannot read the cluster secret',
    );
    t.equal(firstText(await client.callTool({ name: 'r.grow', arguments: {} })), 'grew');
    await until('list_changed on the relayed GET stream', () => changed.length > 0);
    t.ok((await client.listTools()).tools.some((tool) => tool.name === 'r.grown_1'));
    await assertLogged(t, b.log, `forwarded a POST to replica ${a.url}`, 'b forwarded to the owner');
    await assertLogged(t, c.log, `forwarded a POST to replica ${a.url}`, 'c forwarded to the owner');
    await assertLogged(t, c.log, `forwarded a GET to replica ${a.url}`, 'the GET stream was relayed');
  });

  t.test('a legacy SDK client through HAProxy', async (t) => {
    const client = new Client({ name: 'legacy-lb', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(cluster.url)));
    t.teardown(() => client.close());
    const pids = new Set<string>();
    for (let i = 0; i < 6; i++) pids.add(firstText(await client.callTool({ name: 'r.whoami', arguments: {} })));
    t.equal(pids.size, 1, 'one replica serves the session, whichever one HAProxy sent a request to');
  });

  t.test('a 2026-07-28 call whose rounds land on different replicas completes', async (t) => {
    const client = modernClient();
    answering(client);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(a.url), { fetch: alternating([a.url, b.url, c.url]) }),
    );
    t.teardown(() => client.close());
    t.equal(client.getNegotiatedProtocolVersion(), MODERN);
    const forwards = () => logs().match(/forwarded a POST to replica/g)?.length ?? 0;
    const before = forwards();
    const holders = new Set<string>();
    for (let i = 0; i < 3; i++) {
      // One POST more before each call: the next call starts on the next replica.
      await client.listTools();
      // The call and its two retries are three POSTs in a row: each lands on another of the three replicas.
      const done = firstText(await client.callTool({ name: 'r.ask_twice', arguments: {} }));
      t.match(done, /^first! then second! on \d+$/);
      holders.add(done);
    }
    t.equal(holders.size, 3, 'each call was held by another replica');
    // The replicas log asynchronously: a forward's line may come a little after its answer.
    await until('both retries of each call to be forwarded', () => forwards() - before >= 6, EVENT_MS, logs);
  });

  t.test('a 2026-07-28 client through HAProxy', async (t) => {
    const client = modernClient();
    answering(client);
    await client.connect(new StreamableHTTPClientTransport(new URL(cluster.url)));
    t.teardown(() => client.close());
    for (let i = 0; i < 4; i++) {
      t.match(firstText(await client.callTool({ name: 'r.ask_twice', arguments: {} })), /^first! then second!/);
    }
  });

  t.test('a forged forwarding stamp is refused', async (t) => {
    const response = await fetch(a.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-mcp-host-peer': `${Date.now()}..not-a-mac` },
      body: '{}',
    });
    t.equal(response.status, 401);
    t.match(
      await response.text(),
      'Unauthorized: a request forwarded by an mcp-host replica was refused: it is not a stamp this version makes',
    );
  });

  t.test(
    'a replica whose advertise address nobody can reach: a forward fails at once, naming it and the fix',
    async (t) => {
      const closed = await freePort();
      const advertised = `http://127.0.0.1:${closed}/mcp`;
      const config = writeClusterConfig(
        ws,
        { cluster: { name: 'test', advertise: `http://127.0.0.1:${closed}` } },
        'unreachable.config.js',
      );
      const before = await registeredReplicas(cluster.redis.port);
      const d = await startHttpHost(t, config, { env: cluster.env });
      await eventually('d to register', async () => (await registeredReplicas(cluster.redis.port)) > before);
      const unreachable = (what: string) =>
        `${what}, and the mcp-host replica at ${advertised} cannot be reached from this replica ` +
        `\\(connect ECONNREFUSED 127\\.0\\.0\\.1:${closed}\\), though it was heard from [\\d.]+ s ago\\. ` +
        `Fix: retry; if it persists, that replica's cluster\\.advertise \\(${advertised}\\) is not an address the other ` +
        'replicas can reach: set it to one they can \\(and check the network between them\\)$';

      const onD = new Client({ name: 'legacy-on-d', version: '1.0.0' });
      await onD.connect(new StreamableHTTPClientTransport(new URL(d.url)));
      t.teardown(() => onD.close());
      const sessionId = (onD.transport as StreamableHTTPClientTransport).sessionId!;
      const response = await listOnSession(a.url, sessionId, onD.getNegotiatedProtocolVersion()!);
      t.equal(response.status, 404, 'a 404 as the spec has it: the session cannot be served from here');
      t.match(((await response.json()) as { error: Result }).error, {
        code: -32001,
        message: new RegExp(
          `^Session not found: ${unreachable(`session "${sessionId}" lives on another mcp-host replica`)}`,
        ),
      });
      await until('a to log it', () =>
        a.log().includes(`could not forward a POST: the mcp-host replica at ${advertised} cannot be reached`),
      );

      const { manual, asked } = await callWaitingOn(d.url);
      await manual.connect(new StreamableHTTPClientTransport(new URL(a.url)));
      t.teardown(() => manual.close());
      await t.rejects(manual.callTool(retryOf(asked), { allowInputRequired: true }), {
        message: new RegExp(
          `Bad Gateway: ${unreachable('another replica holds the call this requestState continues').slice(0, -1)}`,
        ),
      });

      // Sent to d itself, the call's two rounds complete: nothing is left for d to drain as it stops.
      await manual.close();
      await manual.connect(new StreamableHTTPClientTransport(new URL(d.url)));
      const second = (await manual.callTool(retryOf(asked), { allowInputRequired: true })) as Result;
      t.equal(second.resultType, 'input_required', 'the call was still waiting on d');
      t.match(firstText(await manual.callTool(retryOf(second), { allowInputRequired: true })), /^x then x on \d+$/);
      await onD.close();
      // d leaves the cluster as it stops: the replicas below are the three behind HAProxy again.
      d.child.kill('SIGTERM');
      t.equal(await d.exited, 0);
    },
  );

  t.test(
    'Redis slow (every client paused): local sessions and calls are served; a lookup gives up in time, saying so',
    async (t) => {
      const clients = await clientsOnA(t);
      const { sessionId, version } = clients;

      const cli = (...args: string[]) => redisCli(cluster.redis.port, ...args);
      t.match(await cli('CLIENT', 'PAUSE', '8000', 'ALL'), 'OK');
      // Answered only once the pause is over: what follows must all happen before.
      let paused = true;
      const resumed = cli('PING').then(() => (paused = false));
      await servedAlone(
        t,
        clients,
        'Redis slow: a command got no answer within 1000 ms \\(cluster\\.redisTimeoutMs\\)',
      );
      t.match(await readiness(b), { ready: true, degraded: 'Redis slow: a command got no answer within 1000 ms' });
      t.ok(paused, 'all of that was answered while Redis was paused');
      await until('b to log it', () =>
        b.log().includes('Redis slow: a command got no answer within 1000 ms (cluster.redisTimeoutMs): serving'),
      );

      await resumed;
      await eventually(
        'b to forward to a again',
        async () => (await listOnSession(b.url, sessionId, version)).status === 200,
      );
      await eventually('b to be no longer degraded', async () => (await readiness(b)).degraded === undefined);
    },
  );

  t.test('Redis stopped: replicas degrade and serve what they hold; Redis back: they recover', async (t) => {
    const clients = await clientsOnA(t);
    const { sessionId, version } = clients;

    cluster.redis.child.kill('SIGKILL');
    await cluster.redis.exited;
    for (const replica of [a, b, c]) {
      await eventually('the replica to report Redis down', async () =>
        /^Redis unreachable/.test((await readiness(replica)).degraded ?? ''),
      );
    }
    t.match(await readiness(a), { ready: true, degraded: /^Redis unreachable: / }, 'degraded, still ready');
    await servedAlone(t, clients, 'Redis unreachable: .*');

    cluster.redis = await startRedis(whole, cluster.redis.port);
    for (const replica of [a, b, c]) {
      await eventually('the replica to recover', async () => (await readiness(replica)).degraded === undefined);
    }
    await allListening(cluster.redis.port, 3);
    await eventually(
      "a's session to be registered again",
      async () => (await listOnSession(b.url, sessionId, version)).status === 200,
    ).catch(() => {});
    t.equal((await listOnSession(b.url, sessionId, version)).status, 200, 'b forwards to a again');
  });

  t.test(
    'reload --cluster reloads every replica and reports each; list_changed reaches a relayed stream',
    async (t) => {
      const stream = watchingNotificationStream(alternating([a.url, b.url, c.url], b.url));
      const client = new Client({ name: 'legacy-reload', version: '1.0.0' });
      let changed = 0;
      client.setNotificationHandler('notifications/tools/list_changed', () => void (changed += 1));
      await client.connect(new StreamableHTTPClientTransport(new URL(a.url), { fetch: stream.fetch }));
      t.teardown(() => client.close());
      await stream.opened;
      t.ok((await client.listTools()).tools.some((tool) => tool.name === 'r.grow'));
      writeClusterConfig(ws, { plugins: [{ package: '@test/mcp-replicated', tools: { exclude: ['grow'] } }] });
      const run = await runCli(['reload', '--cluster', '--config', cluster.config], {
        env: { ...process.env, ...cluster.env },
      });
      t.equal(run.code, 0, run.stderr);
      for (const replica of [a, b, c]) {
        t.match(
          run.stdout,
          new RegExp(
            `mcp-host replica ${replica.url} \\(pid ${replica.child.pid}\\): reloaded in [\\d.]+ ms, generation \\d+ is live`,
          ),
        );
      }
      t.match(run.stdout, /tools removed: r\.grow/);
      await until('list_changed on the relayed GET stream', () => changed > 0);
      t.notOk((await client.listTools()).tools.some((tool) => tool.name === 'r.grow'));
    },
  );

  t.test(
    'reload --cluster across a Redis restart: it ends at once, saying what to check; the replicas reload',
    async (t) => {
      const gate = join(ws.dir, 'gate');
      writeClusterConfig(ws, { plugins: [{ package: '@test/mcp-replicated', options: { gate } }] });
      const generations = await Promise.all([a, b, c].map(async (replica) => (await readiness(replica)).generation));
      const run = runCli(['reload', '--cluster', '--config', cluster.config], {
        env: { ...process.env, ...cluster.env },
      });
      // Every replica creating the plugin again: the command reached each one, and its answers are awaited. (Once one
      // replica was, another could still be waiting for the command when Redis went, and would never reload.)
      await until('every replica to be reloading', () =>
        [a, b, c].every((replica) => existsSync(`${gate}.waiting.${replica.child.pid}`)),
      );
      cluster.redis.child.kill('SIGKILL');
      await cluster.redis.exited;
      const ended = await run;
      t.equal(ended.code, 1, `${ended.stdout}\n${ended.stderr}`);
      t.match(
        ended.stderr,
        `mcp-host: Redis at ${shownRedisUrl(cluster.redis.url)}: the connection was lost while waiting for the replicas' answers (`,
      );
      t.match(
        ended.stderr,
        'Fix: the replicas that did not answer may have reloaded all the same: see each one\u2019s generation with mcp-host status --cluster once Redis is back, and run mcp-host reload --cluster again if one is behind.',
      );
      t.match(ended.stderr, /mcp-host replica [\w-]+: did not answer before the connection to Redis was lost/);

      cluster.redis = await startRedis(whole, cluster.redis.port);
      writeFileSync(gate, '');
      await Promise.all(
        [a, b, c].map((replica, index) =>
          eventually(
            'the replica to finish its reload',
            async () => (await readiness(replica)).generation > generations[index]!,
          ),
        ),
      );
      for (const replica of [a, b, c]) {
        await eventually(
          'the replica to be back in Redis',
          async () => (await readiness(replica)).degraded === undefined,
        );
      }
      await allListening(cluster.redis.port, 3);
      const again = await runCli(['reload', '--cluster', '--config', cluster.config], {
        env: { ...process.env, ...cluster.env },
      });
      t.equal(again.code, 0, again.stderr);
      t.match(again.stdout, /nothing changed/, 'every replica took the change; reload --cluster reaches them again');
    },
  );

  t.test('status --cluster lists every replica with its generation, config hash and mounts', async (t) => {
    const run = await runCli(['status', '--cluster', '--config', cluster.config], {
      env: { ...process.env, ...cluster.env },
    });
    t.equal(run.code, 0, run.stderr);
    t.match(run.stdout, /^cluster "test": 3 replicas answered\n/);
    const hashes = new Set<string>();
    for (const replica of [a, b, c]) {
      const line = new RegExp(
        `mcp-host replica ${replica.url} \\(pid ${replica.child.pid}\\): generation (\\d+), config ([0-9a-f]{12}); up \\d+ (s|min( \\d+ s)?); \\d+ sessions? \\(\\d+ active, \\d+ idle\\); mounts 1 up, 0 down\n  serving: ${replica.url}\n(  last reload .*\n)?  r \\(@test/mcp-replicated [^)]+\\): up, \\d+ tools?\n`,
      ).exec(run.stdout);
      t.ok(line, `${replica.url} is listed with its mount`);
      hashes.add(line?.[2] ?? '');
    }
    t.equal(hashes.size, 1, 'all run the same config');
    t.notMatch(run.stdout, 'warning');
    const json = await runCli(['status', '--cluster', '--json', '--config', cluster.config], {
      env: { ...process.env, ...cluster.env },
    });
    t.equal(json.code, 0, json.stderr);
    const { cluster: name, replicas } = JSON.parse(json.stdout) as { cluster: string; replicas: Result[] };
    t.equal(name, 'test');
    t.same(replicas.map((replica) => replica.url).sort(), [a.url, b.url, c.url].sort());
    for (const replica of replicas) {
      t.match(replica, {
        pid: Number,
        status: {
          configHash: [...hashes][0],
          uptimeSeconds: Number,
          sessions: Number,
          mounts: [{ name: 'r', state: 'up' }],
        },
      });
    }

    // One replica takes a change (its own SIGHUP), the other does not: status shows it.
    const generation = (await readiness(a)).generation;
    writeClusterConfig(ws, { plugins: [{ package: '@test/mcp-replicated', tools: { exclude: ['grow', 'secret'] } }] });
    a.child.kill('SIGHUP');
    await eventually('a to reload', async () => (await readiness(a)).generation > generation);
    const split = await runCli(['status', '--cluster', '--config', cluster.config], {
      env: { ...process.env, ...cluster.env },
    });
    t.match(
      split.stdout,
      'warning: the replicas run 2 different configs; reload the ones behind (mcp-host reload --cluster)',
    );
  });

  t.test('killing a replica: its legacy sessions get 404, 2026-07-28 clients notice nothing', async (t) => {
    const onB = new Client({ name: 'legacy-on-b', version: '1.0.0' });
    await onB.connect(new StreamableHTTPClientTransport(new URL(b.url)));
    const sessionId = (onB.transport as StreamableHTTPClientTransport).sessionId!;
    const modern = modernClient();
    answering(modern);
    await modern.connect(new StreamableHTTPClientTransport(new URL(cluster.url)));
    t.teardown(() => modern.close());

    const { manual, asked } = await callWaitingOn(b.url);
    t.equal(asked.resultType, 'input_required', 'a call waits on b for its retry');

    b.child.kill('SIGKILL');
    await b.exited;
    // A 404 from the first request on. Until b's heartbeat is missed (3 s), a cannot tell a stopped b from
    // one it cannot reach, and its message says the latter; then that b is gone.
    let error: Result;
    for (;;) {
      const response = await listOnSession(a.url, sessionId, onB.getNegotiatedProtocolVersion()!);
      t.equal(response.status, 404);
      error = ((await response.json()) as { error: Result }).error;
      if (!String(error.message).includes('cannot be reached from this replica')) break;
      t.match(error, {
        code: -32001,
        message: `cannot be reached from this replica (connect ECONNREFUSED ${new URL(b.url).host})`,
      });
    }
    t.match(error, {
      code: -32001,
      message: `Session not found: session "${sessionId}" lived on another mcp-host replica, which is gone (stopped or restarted); start a new one with initialize`,
    });
    await manual.connect(new StreamableHTTPClientTransport(new URL(a.url)));
    t.teardown(() => manual.close());
    await t.rejects(manual.callTool(retryOf(asked), { allowInputRequired: true }), {
      code: -32602,
      message:
        /Invalid or expired requestState: the mcp-host replica holding the tools\/call it continues is gone \(stopped or restarted\), and its call with it\. Fix: send the tools\/call again without requestState and inputResponses\./,
    });
    for (let i = 0; i < 4; i++) {
      t.match(firstText(await modern.callTool({ name: 'r.ask_twice', arguments: {} })), /^first! then second!/);
    }
  });

  t.test('a replica stopped with SIGTERM refuses new requests while it drains, and leaves the cluster', async (t) => {
    const client = new Client({ name: 'holding', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(a.url)));
    const held = client.callTool({ name: 'r.hold', arguments: {} });
    await until('the held call to reach the plugin', () => existsSync(join(ws.dir, 'release.held')));
    a.child.kill('SIGTERM');
    await until('a to start stopping', () => /stopping \(SIGTERM\)/.test(a.log()));
    const health = await fetch(new URL('/healthz', a.url));
    t.equal(health.status, 503);
    t.same(await health.json(), { status: 'stopping' });
    const refused = await fetch(a.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    t.equal(refused.status, 503);
    t.match(((await refused.json()) as { error: Result }).error, {
      message: 'Service Unavailable: mcp-host is stopping; retry (another replica, or this host once it is back)',
    });
    writeFileSync(join(ws.dir, 'release'), '');
    t.equal(firstText(await held), 'released', 'the call in flight finished');
    t.equal(await a.exited, 0);
    // a's own entry, not the count: b's (killed) lapses in its own time, which may be before or after a's exit.
    const entries = [...(await replicaEntries(cluster.redis.port)).values()];
    t.notOk(
      entries.some((entry) => entry.includes(new URL(a.url).host)),
      'a left the cluster at once',
    );
    t.ok(
      entries.some((entry) => entry.includes(new URL(c.url).host)),
      'c is still registered',
    );
    await eventually("b's entry to lapse", async () => (await registeredReplicas(cluster.redis.port)) === 1);
    const run = await runCli(['status', '--cluster', '--config', cluster.config], {
      env: { ...process.env, ...cluster.env },
    });
    t.equal(run.code, 0, run.stderr);
    t.match(run.stdout, /^cluster "test": 1 replica answered\n/);
    t.match(run.stdout, `mcp-host replica ${c.url} (pid ${c.child.pid})`, 'only c is left');
  });
});

t.test('the cluster section is validated like every other key', async (t) => {
  const file = '/srv/mcp-host.config.js';
  const refusals = (cluster: unknown) => {
    try {
      validateConfig({ plugins: [], cluster }, file);
      return [];
    } catch (error) {
      return problemsOf(error, 'config').map(formatProblem);
    }
  };
  t.same(refusals({ redis: 'redis://10.0.0.5:6379', name: 'prod', advertise: 'http://10.0.0.12:3000' }), []);
  t.same(refusals({ redis: 'http://x', name: '', advertise: 'ftp://y', redisTimeoutMs: 0, extra: 1 }), [
    'mcp-host.config.js: cluster.redis: expected a redis:// or rediss:// URL, got "http://x". Fix: e.g. redis: "redis://redis.internal:6379" (or set MCP_HOST_REDIS_URL).',
    'mcp-host.config.js: cluster.name: expected a non-empty string, got "". Fix: e.g. name: "prod".',
    'mcp-host.config.js: cluster.advertise: expected an http:// or https:// URL, got "ftp://y". Fix: e.g. advertise: "http://10.0.0.12:3000".',
    'mcp-host.config.js: cluster.redisTimeoutMs: expected a positive integer, got 0. Fix: e.g. redisTimeoutMs: 1000.',
    'mcp-host.config.js: cluster.extra: unknown key "extra". Fix: remove it; the keys allowed here are "redis", "name", "advertise", "redisTimeoutMs" and "redisAuth".',
  ]);
  t.same(refusals({ redisAuth: 'password' }), [
    'mcp-host.config.js: cluster.redisAuth: expected "none", got "password". Fix: e.g. redisAuth: "none" (only where nothing but the replicas can reach Redis).',
  ]);
  t.same(refusals('yes'), [
    'mcp-host.config.js: cluster: expected an object, got "yes". Fix: e.g. cluster: { redis: "redis://127.0.0.1:6379", name: "prod" }.',
  ]);
});

t.test('a replica without Redis, its secret or HTTP refuses to start, naming the fix', async (t) => {
  const ws = makeWorkspace(t);
  const config = writeClusterConfig(ws);
  const start = (env: NodeJS.ProcessEnv, args = ['--http', '127.0.0.1:0']) =>
    runCli(['start', '--config', config, ...args], {
      env: {
        ...process.env,
        MCP_HOST_REDIS_URL: 'redis://:a-redis-password@127.0.0.1:1',
        MCP_HOST_CLUSTER_SECRET: SECRET,
        ...env,
      },
    });
  const refusals: [NodeJS.ProcessEnv, string[] | undefined, string][] = [
    [
      { MCP_HOST_CLUSTER_SECRET: undefined },
      undefined,
      'mcp-host.config.js: cluster: a cluster needs its shared key in MCP_HOST_CLUSTER_SECRET, which is not set. Fix: give every replica the same MCP_HOST_CLUSTER_SECRET, or the same key in a file named by MCP_HOST_CLUSTER_SECRET_FILE (e.g. the output of `openssl rand -hex 32`); it never goes in the config file.',
    ],
    [{ MCP_HOST_CLUSTER_SECRET: 'tiny-key' }, undefined, 'which is shorter than 16 characters'],
    [
      { MCP_HOST_CLUSTER_SECRET: undefined, MCP_HOST_CLUSTER_SECRET_FILE: join(ws.dir, 'no-such-key') },
      undefined,
      `mcp-host.config.js: cluster: cannot read the cluster's shared key (MCP_HOST_CLUSTER_SECRET_FILE) from ${join(ws.dir, 'no-such-key')}: ENOENT: no such file or directory, open '${join(ws.dir, 'no-such-key')}'. Fix: create the file, readable by the host's user, or correct its path.`,
    ],
    [
      { MCP_HOST_CLUSTER_SECRET: undefined, MCP_HOST_CLUSTER_SECRET_FILE: ws.writeFile('short-key', 'tiny-key\n') },
      undefined,
      `a cluster needs its shared key in the file ${join(ws.dir, 'short-key')} (MCP_HOST_CLUSTER_SECRET_FILE), which is shorter than 16 characters.`,
    ],
    [
      { MCP_HOST_CLUSTER_SECRET_FILE: ws.writeFile('key', `${SECRET}\n`) },
      undefined,
      "mcp-host.config.js: cluster: both MCP_HOST_CLUSTER_SECRET and MCP_HOST_CLUSTER_SECRET_FILE are set, so the cluster's shared key is ambiguous. Fix: unset MCP_HOST_CLUSTER_SECRET and keep the key in the file only.",
    ],
    [
      // The key read from its file, the replica goes on to its next check.
      { MCP_HOST_CLUSTER_SECRET: undefined, MCP_HOST_CLUSTER_SECRET_FILE: join(ws.dir, 'key') },
      ['--stdio'],
      'mcp-host.config.js: cluster: a cluster replica serves HTTP, and this host serves stdio.',
    ],
    [
      { MCP_HOST_REDIS_URL: undefined },
      undefined,
      'mcp-host.config.js: cluster: a cluster needs Redis, and neither cluster.redis nor MCP_HOST_REDIS_URL names it. Fix: set cluster.redis: "redis://HOST:6379" in the config, or MCP_HOST_REDIS_URL=redis://HOST:6379 in the host\'s environment.',
    ],
    [
      { MCP_HOST_REDIS_URL: 'http://:a-redis-password@redis:6379' },
      undefined,
      'MCP_HOST_REDIS_URL: expected a redis:// or rediss:// URL, got "http://:***@redis:6379". Fix: set MCP_HOST_REDIS_URL=redis://HOST:6379.',
    ],
    [
      { MCP_HOST_REDIS_URL: 'redis://127.0.0.1:1' },
      undefined,
      "MCP_HOST_REDIS_URL: the Redis URL redis://127.0.0.1:1 carries no credentials: a Redis that asks for none lets anything that reaches it rewrite or delete the cluster's records. Fix: give Redis a password (requirepass, or an ACL user) and put it in the URL, redis://:PASSWORD@HOST:6379 or redis://USER:PASSWORD@HOST:6379 (rediss:// for TLS), in MCP_HOST_REDIS_URL rather than the config file; or, where nothing but the replicas can reach Redis, say so with cluster.redisAuth: 'none' (docs/replicas.md).",
    ],
    [
      // A user with an empty password is no credential either.
      { MCP_HOST_REDIS_URL: 'redis://mcp-host:@127.0.0.1:1' },
      undefined,
      'MCP_HOST_REDIS_URL: the Redis URL redis://mcp-host:***@127.0.0.1:1 carries no password (only the user "mcp-host"): a Redis that asks for none lets anything that reaches it rewrite or delete the cluster\'s records. Fix: give Redis a password',
    ],
    [
      { MCP_HOST_HTTP_TOKENS: 'a-token-for-every-interface-0123' },
      ['--http', '0.0.0.0:0'],
      'mcp-host.config.js: cluster: this replica listens on 0.0.0.0 (every interface), an address the other replicas cannot connect to, and cluster.advertise does not say where they reach it. Fix: set cluster.advertise to this replica\u2019s address as the other replicas reach it, e.g. advertise: "http://10.0.0.12:3000".',
    ],
    [
      {},
      ['--stdio'],
      'mcp-host.config.js: cluster: a cluster replica serves HTTP, and this host serves stdio. Fix: give the config an http section (or start with --http [HOST:]PORT), or remove the cluster section.',
    ],
  ];
  // Each start is refused before it serves anything: they run side by side.
  const runs = await Promise.all(refusals.map(([env, args]) => start(env, args)));
  for (const [index, [, , message]] of refusals.entries()) {
    const run = runs[index]!;
    t.equal(run.code, 1, message);
    t.match(run.stderr, message);
    t.notMatch(run.stderr, 'tiny-key', 'the secret is not shown');
    t.notMatch(run.stderr, 'a-redis-password', "Redis's password is not shown");
  }
  const inConfig = writeClusterConfig(
    ws,
    { cluster: { name: 'test', redis: 'rediss://redis.internal:6380' } },
    'tls.config.js',
  );
  const refused = await runCli(['start', '--config', inConfig, '--http', '127.0.0.1:0'], {
    env: { ...process.env, MCP_HOST_CLUSTER_SECRET: SECRET },
  });
  t.equal(refused.code, 1);
  t.match(
    refused.stderr,
    'tls.config.js: cluster.redis: the Redis URL rediss://redis.internal:6380 carries no credentials',
    'a URL in the config is refused naming its key',
  );
  // Said explicitly, a Redis without credentials is taken: the start goes on to the next check.
  const unauthenticated = writeClusterConfig(ws, { cluster: { name: 'test', redisAuth: 'none' } }, 'none.config.js');
  const taken = await runCli(['start', '--config', unauthenticated, '--stdio'], {
    env: { ...process.env, MCP_HOST_REDIS_URL: 'redis://127.0.0.1:1', MCP_HOST_CLUSTER_SECRET: SECRET },
  });
  t.equal(taken.code, 1);
  t.match(taken.stderr, 'a cluster replica serves HTTP, and this host serves stdio');
});

t.test('sessions per bearer token are counted across the cluster', async (t) => {
  const tokens = TOKENS;
  const cluster = await startTokenCluster(t, makeWorkspace(t), 2);
  const [a, b] = cluster.replicas as [HttpHost, HttpHost];
  const open = (url: string, token: string) => openSession(t, url, token);
  const first = await open(a.url, tokens[0]);
  await open(b.url, tokens[0]);
  const refused = await fetch(a.url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${tokens[0]}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'third', version: '1' } },
    }),
  });
  t.equal(refused.status, 429, 'one session on each replica: the token holds its 2');
  t.match(((await refused.json()) as { error: Result }).error, {
    message:
      "Too Many Requests: this bearer token holds 2 sessions open across the cluster's replicas, its limit (http.maxSessionsPerToken); end sessions no longer used (DELETE with their Mcp-Session-Id), or raise http.maxSessionsPerToken in the host config",
  });
  t.type((await open(b.url, tokens[1])).sessionId, 'string', 'another token is not counted against it');
  await first.terminateSession();
  t.type((await open(a.url, tokens[0])).sessionId, 'string', 'a session ended makes room again');
});

t.test('reload --cluster without a cluster, or without its Redis, says so', async (t) => {
  const ws = makeWorkspace(t);
  const clustered = writeClusterConfig(ws);
  const plain = ws.writeConfig({ plugins: [] }, 'plain.config.js');
  const reload = (config: string, env: NodeJS.ProcessEnv) =>
    runCli(['reload', '--cluster', '--config', config], {
      env: { ...process.env, MCP_HOST_CLUSTER_SECRET: SECRET, ...env },
    });
  const misplaced = await runCli(['list', '--cluster', '--config', plain]);
  t.equal(misplaced.code, 2);
  t.match(misplaced.stderr, 'mcp-host: --cluster goes with "reload" or "status"');
  const noCluster = await reload(plain, {});
  t.equal(noCluster.code, 1);
  t.match(
    noCluster.stderr,
    'plain.config.js: cluster: the config has no cluster section, so the hosts running it are not replicas of a cluster. Fix: run mcp-host reload without --cluster, or add a cluster section to the config.',
  );
  const unreachable = await reload(clustered, { MCP_HOST_REDIS_URL: `redis://:pw@127.0.0.1:${await freePort()}` });
  t.equal(unreachable.code, 1);
  t.match(
    unreachable.stderr,
    /Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+\/?: cannot be reached: .*ECONNREFUSED.*\. Fix: start it, or name the cluster's Redis with cluster\.redis or MCP_HOST_REDIS_URL\./,
  );
  const redis = await startRedis(t);
  const empty = await reload(clustered, { MCP_HOST_REDIS_URL: redis.url });
  t.equal(empty.code, 1);
  t.match(
    empty.stderr,
    `mcp-host.config.js: cluster: no replica of cluster "test" is registered in Redis at ${shownRedisUrl(redis.url)}. Fix: start the replicas (mcp-host start with this config and the same Redis).`,
  );
  // An entry made without the cluster's key (or read with another secret) is no replica.
  await redisCli(redis.port, 'SET', 'mcp-host:test:replica:evil', 'http://127.0.0.1:1/mcp');
  const forged = await reload(clustered, { MCP_HOST_REDIS_URL: redis.url });
  t.equal(forged.code, 1);
  t.match(
    forged.stderr,
    `mcp-host.config.js: cluster: no replica of cluster "test" is registered in Redis at ${shownRedisUrl(redis.url)}; 1 replica entry in it fails the cluster's signature check, and is ignored: something other than a replica wrote it, or MCP_HOST_CLUSTER_SECRET is not the replicas'. Fix: run with the replicas' MCP_HOST_CLUSTER_SECRET; if it is theirs, give Redis credentials only the replicas hold (docs/replicas.md), and retry.`,
  );
  const secretless = await runCli(['reload', '--cluster', '--config', clustered], {
    env: { ...process.env, MCP_HOST_REDIS_URL: redis.url, MCP_HOST_CLUSTER_SECRET: undefined },
  });
  t.equal(secretless.code, 1);
  t.match(secretless.stderr, 'mcp-host.config.js: cluster: a cluster needs its shared key in MCP_HOST_CLUSTER_SECRET');
});
