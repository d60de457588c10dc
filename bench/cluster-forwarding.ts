/**
 * `npm run bench:cluster`: what forwarding costs a call. Two replicas of
 * `mcp-host start --http` share a real Redis (redis-server on a free port);
 * one 2025-era session lives on replica a. Its `tools/call`s are sent to a
 * itself (local) and to b (which looks the session up in Redis and
 * forwards the request to a, relaying the answer), in alternating rounds so
 * machine noise hits both alike. It prints p50 and p99 per call for each,
 * and the difference: the cost of forwarding. BENCH_ROUNDS and BENCH_CALLS
 * scale the run.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Teardown } from '../test/helpers/host.js';
import { startEchoCluster } from './echo-cluster.js';
import { percentile, round } from './soak.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CALLS = Number(process.env.BENCH_CALLS ?? 200);

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
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup();
}
