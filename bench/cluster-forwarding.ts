/**
 * `npm run bench:cluster`: what forwarding costs a call. Two replicas of
 * `mcp-host start --http` share a real Redis (redis-server on a free port);
 * one 2025-era session lives on replica a. Its `tools/call`s are sent to a
 * itself (local) and to b (which looks the session up in Redis and
 * forwards the request to a, relaying the answer), in alternating rounds so
 * machine noise hits both alike. It prints p50 and p99 per call for each,
 * and the difference: the cost of forwarding. BENCH_ROUNDS and BENCH_CALLS
 * scale the run.
 *
 * Then what the cluster's trust costs a forwarded call in CPU, measured
 * alone: the forwarding replica opens two sealed records (the session's
 * owner, that replica's address) and stamps the request; the owner checks
 * the stamp and its body digest, and records its nonce. (The owner's
 * replay-cache entry in Redis is one more round trip, inside the
 * end-to-end figures above.) BENCH_TRUST_CALLS scales it.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Teardown } from '../test/helpers/host.js';
import { PeerAuth, deriveKey } from '../host/cluster/peer-auth.js';
import { recordSealOf } from '../host/cluster/signed-record.js';
import { startEchoCluster } from './echo-cluster.js';
import { percentile, round } from './soak.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const TRUST_CALLS = Number(process.env.BENCH_TRUST_CALLS ?? 20_000);

const cleanups: (() => unknown)[] = [];
const teardown: Teardown = { teardown: (fn) => void cleanups.push(fn) };

try {
  const [a, b] = (await startEchoCluster(teardown, 2)).replicas;
  let target = a!.url;
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(a!.url), { fetch: (_input, init) => fetch(target, init) }),
  );
  const samples = { local: [] as number[], forwarded: [] as number[] };
  const measure = async (to: string, into: number[]) => {
    target = to;
    for (let i = 0; i < CALLS; i++) {
      const started = performance.now();
      await client.callTool({ name: 'bench.echo', arguments: { text: `call ${i}` } });
      into.push(performance.now() - started);
    }
  };
  // The first forwarded call waits for b to see a's registration; a warm-up round each absorbs that and the JIT.
  await measure(a!.url, []);
  await measure(b!.url, []);
  for (let r = 0; r < ROUNDS; r++) {
    await measure(a!.url, samples.local);
    await measure(b!.url, samples.forwarded);
  }
  await client.close();
  const line = (label: string, values: number[]) => {
    const sorted = [...values].sort((x, y) => x - y);
    return { label, p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)) };
  };
  const local = line('local (session on this replica)', samples.local);
  const forwarded = line('forwarded (session on the other)', samples.forwarded);
  console.log(`cluster forwarding: ${ROUNDS} rounds of ${CALLS} sequential tools/call each way, one 2025-era session`);
  for (const { label, p50, p99 } of [local, forwarded]) {
    console.log(`${label.padEnd(34)} p50 ${p50.toFixed(1).padStart(6)} ms   p99 ${p99.toFixed(1).padStart(6)} ms`);
  }
  console.log(`cost of forwarding per call: p50 +${round(forwarded.p50 - local.p50).toFixed(1)} ms`);
  const trust = trustCostMs();
  console.log(
    `sealing and checking per forwarded call (2 records opened, a stamp made, checked and used; ${TRUST_CALLS} calls): ` +
      `p50 ${(trust.p50 * 1000).toFixed(1)} µs, p99 ${(trust.p99 * 1000).toFixed(1)} µs, mean ${(trust.mean * 1000).toFixed(1)} µs`,
  );
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup();
}

/** The CPU a forwarded call spends on the cluster's trust, per call, in ms, measured in this process. */
function trustCostMs(): { p50: number; p99: number; mean: number } {
  const secret = 'bench-cluster-secret-0123456789';
  const [forwarder, owner] = ['replica-forwarding', 'replica-owning'];
  const key = deriveKey(secret, 'bench', 'peer');
  const stamping = new PeerAuth(key, forwarder);
  const checking = new PeerAuth(key, owner);
  const seal = recordSealOf(secret, 'bench');
  const sessionId = crypto.randomUUID();
  const [sessionKey, replicaKey] = [`mcp-host:bench:session:${sessionId}`, `mcp-host:bench:replica:${owner}`];
  const records = [
    [sessionKey, seal.seal(sessionKey, owner, Date.now() + 60_000)],
    [replicaKey, seal.seal(replicaKey, 'http://10.0.0.12:3000/mcp', Date.now() + 6_000)],
  ] as const;
  const request = { method: 'POST', path: '/mcp', sessionId };
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: { name: 'bench.echo', arguments: { text: 'a forwarded call' } },
  });
  const samples: number[] = [];
  for (let i = 0; i < TRUST_CALLS; i++) {
    const started = performance.now();
    for (const [where, record] of records) if ('refused' in seal.open(where, record)) throw new Error('refused');
    const stamp = stamping.stamp(request, body, owner, 'token-1');
    const checked = checking.check(stamp, request);
    if ('refused' in checked || checking.consume(checked, body) !== undefined) throw new Error('refused');
    samples.push(performance.now() - started);
  }
  // The first calls warm the JIT up.
  const measured = samples.slice(Math.floor(TRUST_CALLS / 10)).sort((x, y) => x - y);
  return {
    p50: percentile(measured, 50),
    p99: percentile(measured, 99),
    mean: measured.reduce((sum, x) => sum + x, 0) / measured.length,
  };
}
