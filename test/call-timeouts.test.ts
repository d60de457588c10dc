// Each call forwarded to a plugin times out at its own deadline, restarted by
// its own progress (DESIGN.md: a plugin entry's timeoutMs), though the peer
// keeps one timer for all of them, armed for the earliest deadline
// (mounts/upstream-peer.ts). Real parts: an SDK server linked in process to
// the host's peer.
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { McpServer } from '@modelcontextprotocol/server';
import { linkedPeer } from './helpers/linked-peer.js';

/** The timeout the peer gives a call unless asked for another. */
const TIMEOUT_MS = 400;

/** A server with a tool that answers only when cancelled, one that answers at once, and one that reports progress. */
function plugin(): McpServer {
  const server = new McpServer({ name: 'timing', version: '1.0.0' });
  server.registerTool(
    'hang',
    { description: 'Answers only once cancelled' },
    (ctx) =>
      new Promise((resolve) =>
        ctx.mcpReq.signal.addEventListener('abort', () => resolve({ content: [] }), { once: true }),
      ),
  );
  server.registerTool('quick', { description: 'Answers at once' }, async () => ({ content: [] }));
  server.registerTool('pulse', { description: 'Reports progress every 250 ms for 3 s, then answers' }, async (ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    for (let beat = 1; beat <= 12; beat++) {
      await sleep(250);
      await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress: beat } });
    }
    return { content: [{ type: 'text', text: 'done' }] };
  });
  return server;
}

/** How a call ended and how long after `since` (by the clock the peer reads). */
async function outcome(call: Promise<unknown>, since: number): Promise<{ error?: string; ms: number }> {
  try {
    await call;
    return { ms: performance.now() - since };
  } catch (error) {
    return { error: String(error), ms: performance.now() - since };
  }
}

// The peer's timer does not keep a process alive (in the host its transport does): this test's process is kept up here.
const alive = setInterval(() => {}, 1000);
t.teardown(() => clearInterval(alive));

const TIMED_OUT = new RegExp(`mount "test" did not answer tools/call within ${TIMEOUT_MS} ms`);

t.test('each call in flight times out at its own deadline, not at the first one armed', async (t) => {
  const { peer } = await linkedPeer(t, plugin(), TIMEOUT_MS);
  // An answered call leaves the timer armed for its deadline: what comes after is not timed out at it.
  await peer.request('tools/call', { name: 'quick', arguments: {} });
  await sleep(TIMEOUT_MS / 2);
  const firstSince = performance.now();
  const first = outcome(peer.request('tools/call', { name: 'hang', arguments: {} }), firstSince);
  await sleep(TIMEOUT_MS / 2);
  const secondSince = performance.now();
  const second = outcome(peer.request('tools/call', { name: 'hang', arguments: {} }), secondSince);
  const [a, b] = await Promise.all([first, second]);
  t.match(a.error, TIMED_OUT);
  t.match(b.error, TIMED_OUT);
  t.ok(a.ms >= TIMEOUT_MS, `the first call timed out ${a.ms.toFixed(0)} ms after it was made`);
  t.ok(b.ms >= TIMEOUT_MS, `the second call timed out ${b.ms.toFixed(0)} ms after it was made, not at the first's`);
  t.equal(peer.inFlight, 0);
});

t.test('a call asked to time out sooner than one already in flight times out first', async (t) => {
  const { peer } = await linkedPeer(t, plugin(), TIMEOUT_MS);
  // Past the handshake's deadline: the timer it armed has fired, and the long call arms it anew.
  await sleep(TIMEOUT_MS * 2);
  const abort = new AbortController();
  let longSettled = false;
  const long = outcome(
    peer.request('tools/call', { name: 'hang', arguments: {} }, { signal: abort.signal }, 100 * TIMEOUT_MS),
    performance.now(),
  ).finally(() => (longSettled = true));
  const shortSince = performance.now();
  const short = await outcome(peer.request('tools/call', { name: 'hang', arguments: {} }), shortSince);
  t.match(short.error, TIMED_OUT);
  t.ok(short.ms >= TIMEOUT_MS, `the short call timed out ${short.ms.toFixed(0)} ms after it was made`);
  t.notOk(longSettled, 'the call with the later deadline is still in flight');
  abort.abort();
  t.match((await long).error, /request cancelled/);
});

t.test("progress restarts its own call's timeout only", async (t) => {
  // Beats 250 ms apart against a 2 s timeout: the pulse outlives its timeout many times over, and a call beside it without progress does not.
  const { peer } = await linkedPeer(t, plugin(), 2000);
  const since = performance.now();
  const progressed: unknown[] = [];
  const [pulse, hang] = await Promise.all([
    outcome(
      peer.request(
        'tools/call',
        { name: 'pulse', arguments: {}, _meta: { progressToken: 'beat' } },
        { onProgress: (progress) => void progressed.push(progress.progress) },
      ),
      since,
    ),
    outcome(peer.request('tools/call', { name: 'hang', arguments: {} }), since),
  ]);
  t.equal(pulse.error, undefined, `the call with progress answered after ${pulse.ms.toFixed(0)} ms`);
  t.ok(pulse.ms >= 3000);
  t.equal(progressed.length, 12);
  t.match(hang.error, /did not answer tools\/call within 2000 ms/);
  t.ok(hang.ms >= 2000 && hang.ms < pulse.ms, `the call without progress timed out after ${hang.ms.toFixed(0)} ms`);
});
