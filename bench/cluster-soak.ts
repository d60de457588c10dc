/**
 * `npm run soak:cluster`: three replicas behind HAProxy (round robin, no
 * affinity) sharing a real Redis, under clients of both eras, while the
 * replicas are restarted one by one (SIGTERM, then started again on the
 * same port) and the cluster is reloaded (`mcp-host reload --cluster`)
 * every few seconds. It reports the calls made, the failures (the goal:
 * none for 2026-07-28 clients; for legacy clients, only sessions that lived
 * on a restarted replica, which start again), and p50/p99 latency per era.
 * Meanwhile a process that can write to Redis but holds no cluster secret
 * rewrites it every SOAK_REWRITE_MS (every address to an attacker's server,
 * every session's owner to a replica of its own): nothing may reach that
 * server, and no client may get its answer. A call that needed a rewritten
 * record is refused with a 503 saying so (HAProxy retries it on another
 * replica first): counted apart, as the attack's cost, not a failure.
 * The cost of forwarding per call is `npm run bench:cluster`'s.
 * SOAK_SECONDS, SOAK_CLIENTS, SOAK_RESTART_MS, SOAK_RELOAD_MS and
 * SOAK_REWRITE_MS scale it.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { runCli, type Teardown } from '../test/helpers/host.js';
import { startHaproxy } from '../test/helpers/engines.js';
import { attackerServer, rewritingRedis } from '../test/helpers/cluster.js';
import { startEchoCluster } from './echo-cluster.js';
import { percentile, round } from './soak.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 30);
const CLIENTS = Number(process.env.SOAK_CLIENTS ?? 4);
const RESTART_MS = Number(process.env.SOAK_RESTART_MS ?? 8_000);
const RELOAD_MS = Number(process.env.SOAK_RELOAD_MS ?? 3_000);
const REWRITE_MS = Number(process.env.SOAK_REWRITE_MS ?? 1_000);
/** What a replica answers when a record it needed failed its check: the attack's cost, said clearly. */
const REFUSED_UNDER_ATTACK = /failed its signature check \(something other than a replica wrote it to Redis\)/;
const MODERN = '2026-07-28';

const cleanups: (() => unknown)[] = [];
const teardown: Teardown = { teardown: (fn) => void cleanups.push(fn) };

interface Era {
  calls: number;
  failures: string[];
  latencies: number[];
  /** Legacy sessions that got 404 (their replica restarted) and started again. */
  sessionsRestarted: number;
  /** Calls refused because a record they needed had been rewritten in Redis (a clear 503). */
  refusedUnderAttack: number;
}

try {
  const { ws, config, env, ports, replicas, start } = await startEchoCluster(teardown, 3);
  const balancer = await startHaproxy(teardown, ws, ports);
  const attacker = await attackerServer(teardown);
  const rewriting = rewritingRedis(teardown, env.MCP_HOST_REDIS_URL!, 'bench', attacker.url, REWRITE_MS);
  const deadline = Date.now() + SECONDS * 1000;
  const eras = {
    modern: { calls: 0, failures: [], latencies: [], sessionsRestarted: 0, refusedUnderAttack: 0 } as Era,
    legacy: { calls: 0, failures: [], latencies: [], sessionsRestarted: 0, refusedUnderAttack: 0 } as Era,
  };

  const connect = async (modern: boolean) => {
    const client = new Client(
      { name: modern ? 'soak-modern' : 'soak-legacy', version: '1.0.0' },
      modern ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(balancer.url)));
    return client;
  };
  /** A new client; a failed connect is a failure of its era too, and is tried again. */
  const reconnect = async (modern: boolean, era: Era): Promise<Client> => {
    for (;;) {
      try {
        return await connect(modern);
      } catch (error) {
        const message = (error as Error).message;
        if (REFUSED_UNDER_ATTACK.test(message)) era.refusedUnderAttack += 1;
        else era.failures.push(`connect: ${message}`);
      }
    }
  };
  const caller = async (modern: boolean) => {
    const era = modern ? eras.modern : eras.legacy;
    let client = await reconnect(modern, era);
    for (let i = 0; Date.now() < deadline; i++) {
      const started = performance.now();
      try {
        const result = await client.callTool({ name: 'bench.echo', arguments: { text: `call ${i}` } });
        if (JSON.stringify(result).includes('FORGED')) throw new Error('a forged answer reached the client');
        era.calls += 1;
        era.latencies.push(performance.now() - started);
      } catch (error) {
        const message = (error as Error).message;
        if (REFUSED_UNDER_ATTACK.test(message)) {
          era.refusedUnderAttack += 1;
          continue;
        }
        if (!modern && /404|Session not found/.test(message)) era.sessionsRestarted += 1;
        else era.failures.push(message);
        await client.close().catch(() => undefined);
        client = await reconnect(modern, era);
      }
    }
    await client.close();
  };
  const restarts = (async () => {
    let restarted = 0;
    for (let next = 0; Date.now() + RESTART_MS < deadline; next = (next + 1) % replicas.length) {
      await new Promise((resolve) => setTimeout(resolve, RESTART_MS));
      const old = replicas[next]!;
      old.child.kill('SIGTERM');
      await old.exited;
      replicas[next] = await start(ports[next]!);
      restarted += 1;
    }
    return restarted;
  })();
  const reloads = (async () => {
    const results = { ok: 0, refused: 0, why: new Set<string>() };
    while (Date.now() + RELOAD_MS < deadline) {
      await new Promise((resolve) => setTimeout(resolve, RELOAD_MS));
      const run = await runCli(['reload', '--cluster', '--config', config], { env: { ...process.env, ...env } });
      results[run.code === 0 ? 'ok' : 'refused'] += 1;
      if (run.code !== 0) results.why.add(run.stderr.trim().split('\n').at(-1) ?? '');
    }
    return results;
  })();
  await Promise.all(Array.from({ length: CLIENTS }, (_, i) => caller(i % 2 === 0)));
  const [restarted, reloaded] = await Promise.all([restarts, reloads]);
  await rewriting.stop();

  console.log(
    `cluster soak: ${SECONDS} s, 3 replicas behind HAProxy, ${CLIENTS} clients (half each era), ` +
      `${restarted} rolling restarts, ${reloaded.ok} cluster reloads (${reloaded.refused} refused or with a replica silent), ` +
      `Redis rewritten ${rewriting.rounds()} times by a process without the secret: ${attacker.hits()} requests reached its address`,
  );
  for (const [label, era] of Object.entries(eras)) {
    const sorted = [...era.latencies].sort((x, y) => x - y);
    console.log(
      `${label.padEnd(7)} calls ${String(era.calls).padStart(6)}   p50 ${round(percentile(sorted, 50)).toFixed(1).padStart(6)} ms   ` +
        `p99 ${round(percentile(sorted, 99)).toFixed(1).padStart(6)} ms   unexpected failures ${era.failures.length}` +
        (label === 'legacy' ? `   sessions lost to a restart (started again) ${era.sessionsRestarted}` : '') +
        `   refused under the rewriting (503, said so) ${era.refusedUnderAttack}`,
    );
    for (const failure of new Set(era.failures)) console.log(`  failure: ${failure}`);
  }
  for (const why of reloaded.why) console.log(`  reload --cluster: ${why}`);
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup();
}
