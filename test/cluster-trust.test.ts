// What a replica of a cluster trusts (DESIGN.md, "Scale"; docs/replicas.md):
// Redis is a shared bus, not a trust anchor, and the network between the
// replicas is not trusted either. Each recipe is played as an attacker
// would, against real replicas (\`mcp-host start\` child processes), a real
// redis-server with a password, and a real HAProxy: rewriting Redis,
// replaying a request captured between replicas, a Redis without
// credentials, a Redis speaking TLS, and a replica stopped while Redis is
// paused or gone.
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { createClient } from 'redis';
import { join } from 'node:path';
import t from 'tap';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  assertLogged,
  eventually,
  runCli,
  startHttpHost,
  type HttpHost,
  until,
  watchingNotificationStream,
} from './helpers/host.js';
import { REDIS_PASSWORD, freePort, makeRedisTls, startRedis } from './helpers/engines.js';
import {
  SECRET,
  alternating,
  answering,
  attackerServer,
  callWaitingOn,
  listOnSession,
  modernClient,
  openSession,
  readiness,
  replicaEntries,
  rewritingRedis,
  startCluster,
  startTokenCluster,
  TOKENS,
  writeClusterConfig,
  type Result,
} from './helpers/cluster.js';
import { PeerAuth, STAMP_WINDOW_MS, deriveKey } from '../host/cluster/peer-auth.js';
import { recordSealOf } from '../host/cluster/signed-record.js';
import { tokenId } from '../host/config/token-names.js';
import { makeWorkspace } from './helpers/packages.js';
import { firstText } from './helpers/results.js';
import { EXIT_MS } from './helpers/timing.js';

t.test('whoever writes to Redis cannot send a client’s requests anywhere, nor answer them', async (t) => {
  const ws = makeWorkspace(t);
  const cluster = await startCluster(t, ws);
  const [a, b] = cluster.replicas as [HttpHost, HttpHost];
  const attacker = await attackerServer(t);

  // A legacy session through HAProxy: its requests land on either replica, half of them forwarded.
  const legacy = new Client({ name: 'legacy-under-attack', version: '1.0.0' });
  await legacy.connect(new StreamableHTTPClientTransport(new URL(cluster.url)));
  t.teardown(() => legacy.close());
  const pid = firstText(await legacy.callTool({ name: 'r.whoami', arguments: {} }));
  // A 2026-07-28 client whose call's rounds alternate replicas: its retries are forwarded to the call's holder.
  const modern = modernClient();
  answering(modern);
  await modern.connect(new StreamableHTTPClientTransport(new URL(a.url), { fetch: alternating([a.url, b.url]) }));
  t.teardown(() => modern.close());

  const rewriting = rewritingRedis(t, cluster.redis.url, 'test', attacker.url);
  await until('every record to be rewritten', () => rewriting.rounds() > 1);
  const outcomes = { answered: 0, refused: 0 };
  const clearly =
    /Service Unavailable: (session "[\w-]+" is not on this replica|another replica holds the call this requestState continues), and the cluster's record of (which replica holds it|where that replica is) failed its signature check \(something other than a replica wrote it to Redis\), so it is not followed; retry later\. Fix: if it persists, find what else writes to the cluster's Redis, and give Redis credentials only the replicas hold \(docs\/replicas\.md\)/;
  for (let i = 0; i < 12; i++) {
    try {
      t.equal(
        firstText(await legacy.callTool({ name: 'r.whoami', arguments: {} })),
        pid,
        'answered by its own replica',
      );
      outcomes.answered += 1;
    } catch (error) {
      t.match((error as Error).message, clearly);
      outcomes.refused += 1;
    }
  }
  for (let i = 0; i < 4; i++) {
    try {
      t.match(firstText(await modern.callTool({ name: 'r.ask_twice', arguments: {} })), /^first! then second! on \d+$/);
      outcomes.answered += 1;
    } catch (error) {
      t.match((error as Error).message, clearly);
      outcomes.refused += 1;
    }
  }
  // HAProxy sends a request another replica refused (503) to the other one: most legacy calls fail over.
  t.equal(
    outcomes.answered + outcomes.refused,
    16,
    `every call answered rightly or refused clearly (${JSON.stringify(outcomes)})`,
  );
  await rewriting.stop();
  t.equal(attacker.hits(), 0, 'nothing reached the address written to Redis');
  await assertLogged(
    t,
    () => a.log() + b.log(),
    /ignored the Redis record mcp-host:test:(session|replica):[\w-]+: (it is not a sealed record|its signature does not match this cluster’s key for that key name)\. Something other than a replica of this cluster wrote it; it is not followed\. Fix: find what else writes to this Redis, and give Redis credentials only the replicas hold \(docs\/replicas\.md\)/,
  );
  t.ok(
    (a.log().match(/ignored the Redis record/g)?.length ?? 0) < 10,
    'refused records are logged at most once per 10 s (with a count of the rest)',
  );

  // The replicas' heartbeats write their records again: what was refused is served again.
  await eventually('the session to be served again from either replica', async () => {
    const answers = await Promise.all(
      [0, 1].map(() => legacy.callTool({ name: 'r.whoami', arguments: {} }).then(firstText, () => 'refused')),
    );
    return answers.every((answer) => answer === pid);
  });
  await eventually('a 2026-07-28 call to complete across both replicas again', () =>
    modern.callTool({ name: 'r.ask_twice', arguments: {} }).then(
      (result) => /^first! then second! on \d+$/.test(firstText(result)),
      () => false,
    ),
  );
  t.equal(attacker.hits(), 0);
  // The entry the attacker added is no replica's: status --cluster asks the two replicas, and says what it ignored.
  await eventually("the replicas' heartbeats to write their entries again", async () => {
    const entries = [...(await replicaEntries(cluster.redis.port))].filter(([key]) => !key.endsWith(':evil'));
    return entries.length === 2 && entries.every(([, entry]) => !entry.includes(attacker.url));
  });
  const status = await runCli(['status', '--cluster', '--config', cluster.config], {
    env: { ...process.env, ...cluster.env },
  });
  t.equal(status.code, 0, 'status --cluster exits 0');
  t.match(status.stdout, /^cluster "test": 2 replicas answered\n/);
  t.match(
    status.stderr,
    /^mcp-host: Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+: 1 replica entry in it fails the cluster's signature check, and is ignored: something other than a replica wrote it, or MCP_HOST_CLUSTER_SECRET is not the replicas'\. Fix: run with the replicas' MCP_HOST_CLUSTER_SECRET; if it is theirs, give Redis credentials only the replicas hold \(docs\/replicas\.md\)\.\n$/,
  );
});

t.test('a forwarded request captured between replicas opens nothing when replayed', async (t) => {
  const ws = makeWorkspace(t);
  const token = 'token-for-replays-0123456789';
  const redis = await startRedis(t);
  const [portA, portB, portTap] = [await freePort(), await freePort(), await freePort()];
  // The wire between the replicas, as someone on that network sees it: a sends its advertise address
  // through this tap, which keeps a copy of every request.
  const captured: { method: string; headers: Record<string, string>; body: string }[] = [];
  const tap = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name)),
      ) as Record<string, string>;
      captured.push({ method: req.method!, headers, body });
      void fetch(`http://127.0.0.1:${portA}/mcp`, {
        method: req.method!,
        headers,
        ...(req.method === 'POST' && { body }),
      }).then(async (answer) => {
        res.writeHead(answer.status, Object.fromEntries(answer.headers));
        res.end(Buffer.from(await answer.arrayBuffer()));
      });
    });
  });
  await new Promise<void>((resolve) => tap.listen(portTap, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => tap.close(resolve)));
  const env = {
    MCP_HOST_REDIS_URL: redis.url,
    MCP_HOST_CLUSTER_SECRET: SECRET,
    MCP_HOST_HTTP_TOKENS: token,
    MCP_HOST_LOG_LEVEL: 'debug',
  };
  const http = { port: 0, auth: {} };
  const configA = writeClusterConfig(
    ws,
    { http, cluster: { name: 'test', advertise: `http://127.0.0.1:${portTap}` } },
    'a.config.js',
  );
  const configB = writeClusterConfig(ws, { http }, 'b.config.js');
  const a = await startHttpHost(t, configA, { args: ['--http', `127.0.0.1:${portA}`], env });
  const b = await startHttpHost(t, configB, { args: ['--http', `127.0.0.1:${portB}`], env });
  for (const replica of [a, b]) await until('the replica to register', () => /registering/.test(replica.log()));

  const client = new Client({ name: 'legacy-on-a', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(a.url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  t.teardown(() => client.close());
  const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
  const version = client.getNegotiatedProtocolVersion()!;
  const call = (text: string) =>
    JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'r.whoami', arguments: { text } } });
  const sent = (url: string, headers: Record<string, string>, init: RequestInit = {}) =>
    fetch(url, { method: 'POST', body: call('first'), ...init, headers });
  const clientHeaders = {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-session-id': sessionId,
    'mcp-protocol-version': version,
  };
  const viaB = await sent(b.url, clientHeaders);
  t.equal(viaB.status, 200, 'b forwarded the call to the session’s owner');
  t.match(await viaB.text(), String(a.child.pid));
  await assertLogged(
    t,
    a.log,
    new RegExp(`serving a POST forwarded by replica [\\w-]+ for ${tokenId(token)}`),
    'a knows whom b authenticated',
  );
  // b checks Host and Origin on what the client sent before forwarding anything.
  const foreign = await sent(b.url, { ...clientHeaders, origin: 'http://evil.example' });
  t.equal(foreign.status, 403);
  const forwarded = captured.filter((request) => request.headers['x-mcp-host-peer'] !== undefined);
  t.equal(forwarded.length, 1, 'one request crossed the wire, stamped');
  const { headers } = forwarded[0]!;
  t.notOk('authorization' in headers, 'the client’s token does not cross the wire');

  const refusedWith = async (answer: Promise<Response>, why: RegExp | string, what: string) => {
    const response = await answer;
    t.equal(response.status, 401, what);
    t.match(
      ((await response.json()) as { error: Result }).error.message,
      why instanceof RegExp ? why : `Unauthorized: a request forwarded by an mcp-host replica was refused: ${why}`,
      what,
    );
  };
  const badSignature =
    'its signature does not match this request (its method, path, session and body) under this cluster’s key (or MCP_HOST_CLUSTER_SECRET differs)';
  await refusedWith(
    sent(a.url, headers, { body: forwarded[0]!.body }),
    'it was used already (a replay)',
    'the same again',
  );
  await refusedWith(
    sent(a.url, headers, { body: call('other') }),
    'the body is not the one it was stamped for',
    'another body',
  );
  await refusedWith(sent(a.url, headers, { method: 'GET', body: null }), badSignature, 'another method (GET)');
  await refusedWith(sent(a.url, headers, { method: 'DELETE', body: null }), badSignature, 'another method (DELETE)');
  const { 'mcp-session-id': _session, ...sessionless } = headers;
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'replayed', version: '1' } },
  });
  await refusedWith(sent(a.url, sessionless, { body: initialize }), badSignature, 'a new session');
  await refusedWith(sent(b.url, headers, { body: forwarded[0]!.body }), 'it was stamped for another replica', 'to b');
  await refusedWith(
    sent(a.url, { ...headers, 'mcp-session-id': sessionId.replace(/.$/, (c) => (c === '0' ? '1' : '0')) }),
    badSignature,
    'another session',
  );

  // Well formed, its MAC of the right length, made with a key not derived from the cluster's secret.
  const [, , , from, target] = headers['x-mcp-host-peer']!.split('.');
  const forger = new PeerAuth(deriveKey('not-the-cluster-secret-0123456789', 'test', 'peer'), from!);
  const forgedStamp = forger.stamp({ method: 'POST', path: '/mcp', sessionId }, call('forged'), target!, 'token-1');
  t.equal(forgedStamp.split('.').pop()!.length, headers['x-mcp-host-peer']!.split('.').pop()!.length);
  await refusedWith(
    sent(a.url, { ...headers, 'x-mcp-host-peer': forgedStamp }, { body: call('forged') }),
    badSignature,
    'a stamp made without the secret',
  );

  t.equal(firstText(await client.callTool({ name: 'r.whoami', arguments: {} })), String(a.child.pid));
  await assertLogged(t, a.log, 'refused a request forwarded as from another replica: it was used already (a replay)');

  // Redis is the cluster's replay cache only while it answers: where it does not answer in time, the replica's
  // own cache decides. A fresh stamp, used once, then replayed to the same replica while Redis is paused.
  const seen = captured.length;
  const again = await sent(b.url, clientHeaders, { body: call('second') });
  t.equal(again.status, 200, 'b forwarded a second call');
  await again.text();
  const second = captured.slice(seen).find((request) => request.headers['x-mcp-host-peer'] !== undefined)!;
  redis.child.kill('SIGSTOP');
  t.teardown(() => void redis.child.kill('SIGCONT'));
  await refusedWith(
    sent(a.url, second.headers, { body: second.body }),
    'it was used already (a replay)',
    'the same again while Redis does not answer',
  );
  redis.child.kill('SIGCONT');

  // Past its window the captured stamp is refused for its age, before anything else is looked at.
  const sentAt = Number(headers['x-mcp-host-peer']!.split('.')[1]);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, sentAt + STAMP_WINDOW_MS + 100 - Date.now())));
  await refusedWith(
    sent(a.url, headers, { body: forwarded[0]!.body }),
    "it was stamped more than 5 s away from this replica's clock (a replay, or clocks out of step)",
    'the same, later',
  );
});

t.test('a sealed record moved to another key in Redis is not followed: its seal binds the key', async (t) => {
  const tokens = TOKENS;
  const cluster = await startTokenCluster(t, makeWorkspace(t), 2);
  const [a, b] = cluster.replicas as [HttpHost, HttpHost];
  const open = async (url: string, token: string) => (await openSession(t, url, token)).sessionId!;
  const held = await open(a.url, tokens[0]);
  await open(b.url, tokens[0]);
  await open(b.url, tokens[1]);
  const redis = createClient({ url: cluster.redis.url });
  await redis.connect();
  t.teardown(() => redis.close());

  // A session's record, sealed for its own key, copied under a session id no replica holds.
  const stranger = 'c0ffee00-0000-4000-8000-000000000000';
  await redis.set(`mcp-host:test:session:${stranger}`, (await redis.get(`mcp-host:test:session:${held}`))!);
  const moved = await listOnSession(b.url, stranger, '2025-11-25', tokens[0]);
  t.equal(moved.status, 503, 'the moved record is not followed to its replica');
  t.match(
    ((await moved.json()) as { error: Result }).error.message,
    `Service Unavailable: session "${stranger}" is not on this replica, and the cluster's record of which replica holds it failed its signature check`,
  );
  await assertLogged(
    t,
    b.log,
    `ignored the Redis record mcp-host:test:session:${stranger}: its signature does not match this cluster’s key for that key name`,
  );

  // The first token's two sessions, their sealed members moved into the second token's count: not counted there.
  const counts = new Map<string, string[]>();
  for await (const keys of redis.scanIterator({ MATCH: 'mcp-host:test:token:*' })) {
    for (const key of [keys].flat()) counts.set(key, await redis.zRange(key, 0, -1));
  }
  const [full, other] = [...counts.keys()].sort((x, y) => counts.get(y)!.length - counts.get(x)!.length) as [
    string,
    string,
  ];
  t.same([counts.get(full)!.length, counts.get(other)!.length], [2, 1], 'two sessions, then one');
  await redis.zAdd(
    other,
    counts.get(full)!.map((value) => ({ score: Date.now() + 60_000, value })),
  );
  t.type(
    await open(a.url, tokens[1]),
    'string',
    'the second token opens its second session: the moved members are not its',
  );
  await assertLogged(
    t,
    a.log,
    `ignored the Redis record ${other}: its signature does not match this cluster’s key for that key name`,
  );
});

t.test('cluster commands in Redis are followed only when sealed with the cluster’s key, and once', async (t) => {
  const cluster = await startCluster(t, makeWorkspace(t));
  const [a, b] = cluster.replicas as [HttpHost, HttpHost];
  const redis = createClient({ url: cluster.redis.url });
  await redis.connect();
  const listener = redis.duplicate();
  await listener.connect();
  t.teardown(async () => {
    await listener.close();
    await redis.close();
  });
  const channel = 'mcp-host:test:channel:commands';
  const answers: { channel: string; message: string }[] = [];
  await listener.pSubscribe(
    'mcp-host:test:channel:reply:*',
    (message, replyTo) => void answers.push({ channel: replyTo, message }),
  );
  const seal = recordSealOf(SECRET, 'test');
  const sealed = (id: string, command = 'status') =>
    seal.seal(channel, JSON.stringify({ id, command }), Date.now() + 30_000);

  // In the clear, sealed with another key, or sealed but not a command: no replica acts on it.
  await redis.publish(channel, JSON.stringify({ id: 'plain', command: 'status' }));
  const otherKey = recordSealOf('not-the-cluster-secret-0123456789', 'test');
  await redis.publish(
    channel,
    otherKey.seal(channel, JSON.stringify({ id: 'forged', command: 'status' }), Date.now() + 30_000),
  );
  await redis.publish(channel, seal.seal(channel, 'not json', Date.now() + 30_000));
  await redis.publish(channel, sealed('odd', 'shutdown'));
  // Sealed, and published twice (a replay): each replica answers it once.
  const request = sealed('sealed');
  await redis.publish(channel, request);
  await redis.publish(channel, request);
  // One more after them: once it is answered, everything before it was handled (a replica reads its channel in order).
  await redis.publish(channel, sealed('last'));
  await until(
    'both replicas to answer the last request',
    () => answers.filter(({ channel }) => channel.endsWith(':last')).length === 2,
  );
  t.same(
    answers.map(({ channel }) => channel.split(':').at(-1)).sort(),
    ['last', 'last', 'sealed', 'sealed'],
    'the sealed requests are answered once by each replica, nothing else',
  );
  for (const { channel: replyTo, message } of answers) {
    t.ok('value' in seal.open(replyTo, message), 'each answer is sealed for its reply channel');
  }
  for (const replica of [a, b]) {
    await assertLogged(
      t,
      replica.log,
      /ignored the Redis record mcp-host:test:channel:commands: it is not a sealed record\. Something other than a replica of this cluster wrote it/,
    );
  }
});

t.test('SIGTERM ends a replica within its drain deadline, whatever Redis does', async (t) => {
  const ws = makeWorkspace(t);
  const drainTimeoutMs = 3_000;
  const cluster = await startCluster(t, ws, { config: { reload: { watch: false, drainTimeoutMs } } });
  const [a, b] = cluster.replicas as [HttpHost, HttpHost];

  /** On `replica`: a legacy session with its GET stream, another replica's session whose GET stream it relays, a call in flight and a 2026-07-28 call waiting for its retry. */
  const busy = async (replica: HttpHost, other: HttpHost) => {
    for (const [owner, streamVia] of [
      [replica, replica],
      [other, replica],
    ] as const) {
      const stream = watchingNotificationStream(alternating([owner.url], streamVia.url));
      const client = new Client({ name: 'legacy-open', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(owner.url), { fetch: stream.fetch }));
      t.teardown(() => client.close());
      await stream.opened;
    }
    const holding = new Client({ name: 'holding', version: '1.0.0' });
    await holding.connect(new StreamableHTTPClientTransport(new URL(replica.url)));
    t.teardown(() => holding.close());
    // Never answered: the replica stops first. Its client gives up in its own time.
    void holding.callTool({ name: 'r.hold', arguments: {} }).catch(() => undefined);
    const { asked } = await callWaitingOn(replica.url);
    t.equal(asked.resultType, 'input_required', 'a 2026-07-28 call waits for its retry');
  };
  const stopsWithin = async (replica: HttpHost, what: string) => {
    const started = Date.now();
    t.equal(await replica.exited, 0, `${what}: it stopped as it should`);
    const ms = Date.now() - started;
    // Its drain deadline, then a Redis command's time (cluster.redisTimeoutMs) and its streams' 2 s to flush, and the time any
    // process told to end may take on a loaded machine: a stop held by a paused Redis would never end.
    t.ok(ms < drainTimeoutMs + 1_000 + 2_000 + EXIT_MS, `${what}: it exited after ${ms} ms`);
  };

  await busy(a, b);
  await until('the held call to reach the plugin', () => existsSync(join(ws.dir, 'release.held')));
  a.child.kill('SIGTERM');
  cluster.redis.child.kill('SIGSTOP');
  t.teardown(() => void cluster.redis.child.kill('SIGCONT'));
  await stopsWithin(a, 'Redis paused right after the signal');
  await assertLogged(t, a.log, 'closing with 2 calls still running after the drain timeout');

  cluster.redis.child.kill('SIGCONT');
  await eventually('b to reach Redis again', async () => (await readiness(b)).degraded === undefined);
  await busy(b, b);
  b.child.kill('SIGTERM');
  cluster.redis.child.kill('SIGKILL');
  await stopsWithin(b, 'Redis stopped right after the signal');
});

t.test('rediss://: a replica reaches a Redis speaking TLS whose certificate it can check, and no other', async (t) => {
  const ws = makeWorkspace(t);
  const redis = await startRedis(t, undefined, await makeRedisTls(ws.dir));
  t.match(redis.url, /^rediss:\/\//);
  const config = writeClusterConfig(ws);
  const env = { MCP_HOST_REDIS_URL: redis.url, MCP_HOST_CLUSTER_SECRET: SECRET };
  // Its CA given as Node takes extra CAs: the certificate checks out, and the replica joins.
  const trusting = await startHttpHost(t, config, { env: { ...env, NODE_EXTRA_CA_CERTS: join(ws.dir, 'ca.pem') } });
  await until('the replica to register over TLS', () => /registering/.test(trusting.log()));
  t.same(await readiness(trusting).then((ready) => ready.degraded), undefined);
  // Without it, the same certificate is one nobody vouches for: refused, and the replica says why.
  const doubting = await startHttpHost(t, config, { env });
  t.match(await readiness(doubting), { ready: true, degraded: /^Redis unreachable: .*certificate/ });
  t.notMatch(doubting.log(), 'registering');
  t.notMatch(doubting.log(), REDIS_PASSWORD, 'the password stays out of the log');
});
