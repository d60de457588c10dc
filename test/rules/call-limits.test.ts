// Rate limits (host/proxy/call-limits.ts) in-process: limits.callsPerMinute
// counted once per identity (a user and a client of the same name are two),
// against the first perTool glob that matches the tool and the default; a
// tool the identity may not use is not counted; the refusal names the limit,
// the identity and when to retry. The counters are the host's own
// (rate-limiter-flexible in memory), made through the factory a cluster
// replaces with Redis, which records what is counted under which key.
// test/call-limits.test.ts limits calls through hosts; this file is quick
// enough for `npm run mutation`.
import t from 'tap';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { CALL_LIMITED, CallLimited, callToolWithinLimits } from '../../host/proxy/call-limits.js';
import { installCounterFactory, type CounterOptions } from '../../host/sinks/call-counters.js';
import { installInstrumentation, type Instrumentation } from '../../host/sinks/telemetry.js';
import type { Identity } from '../../host/vocabulary/identity.js';
import { inProcessGeneration } from '../helpers/in-process-generation.js';

const ALICE_USER: Identity = { kind: 'user', name: 'alice', claims: { sub: 'alice' }, scopes: [] };
const ALICE_CLIENT: Identity = { kind: 'client', name: 'alice', claims: { client_id: 'alice' }, scopes: [] };
const CI: Identity = { kind: 'token', name: 'ci', tokenName: 'ci', claims: {}, scopes: [] };

/** Every counter made, and each call counted: `keyPrefix key`. */
const made: CounterOptions[] = [];
const counted: string[] = [];
/** When set, the store's answer to every count (a Redis that is down, or one that refuses with a given wait). */
let storeAnswer: (() => Promise<never>) | undefined;
installCounterFactory((options) => {
  made.push(options);
  const counter = new RateLimiterMemory(options);
  const consume = counter.consume.bind(counter);
  counter.consume = (key, points) => {
    counted.push(`${options.keyPrefix} ${String(key)}`);
    return storeAnswer ? storeAnswer() : consume(key, points);
  };
  return counter;
});
const limitHits: string[] = [];
installInstrumentation({ limitHit: (limit: string) => limitHits.push(limit) } as unknown as Instrumentation);
t.beforeEach(() => {
  made.length = 0;
  counted.length = 0;
  limitHits.length = 0;
  storeAnswer = undefined;
});

const MOUNTS = [
  { prefix: 'a', tools: ['x', 'y'] },
  { prefix: 'b', tools: ['z'] },
];

/** Call `tool` as `identity`: the text of its answer, or the refusal. */
function call(generation: ReturnType<typeof inProcessGeneration>['generation'], tool: string, identity?: Identity) {
  return callToolWithinLimits(generation, { name: tool, arguments: {} }, identity ? { identity } : {}).then(
    (result) => (result.content as { text: string }[])[0]!.text,
  );
}

async function refusal(attempt: Promise<unknown>): Promise<CallLimited> {
  try {
    await attempt;
  } catch (error) {
    return error as CallLimited;
  }
  throw new Error('expected the call to be refused');
}

t.test('without limits, a call goes to its mount uncounted', async (t) => {
  const { generation, received } = inProcessGeneration({}, MOUNTS);
  for (let i = 0; i < 10; i++) t.equal(await call(generation, 'a.x', ALICE_USER), 'a ran x');
  t.equal(received.length, 10);
  t.same(received[0]!.params, { name: 'x', arguments: {} }, 'by its own name');
  t.equal(received[0]!.hooks?.identity, ALICE_USER, 'with its identity');
  t.same(made, [], 'no counter made');
  t.same(counted, []);
});

t.test('a limit of N calls a minute refuses call N+1, naming the limit, the identity and when to retry', async (t) => {
  const { generation, received } = inProcessGeneration({ limits: { callsPerMinute: { default: 2 } } }, MOUNTS);
  t.equal(await call(generation, 'a.x', CI), 'a ran x');
  t.equal(await call(generation, 'b.z', CI), 'b ran z', 'every tool counts against the default');
  const refused = await refusal(call(generation, 'a.y', CI));
  t.ok(refused instanceof CallLimited);
  t.equal(refused.code, CALL_LIMITED);
  t.equal(CALL_LIMITED, -32029);
  const data = refused.data as { retryAfterSeconds: number };
  // The window is a minute from the first call: a refusal within it is told to wait up to 60 s (rounded up).
  t.ok(Number.isInteger(data.retryAfterSeconds) && data.retryAfterSeconds >= 1 && data.retryAfterSeconds <= 60);
  t.same(refused.data, {
    limit: 'limits.callsPerMinute.default',
    identity: 'ci',
    callsPerMinute: 2,
    retryAfterSeconds: data.retryAfterSeconds,
  });
  t.equal(
    refused.message,
    `Rate limit: token "ci" has made 2 calls this minute, the limit limits.callsPerMinute.default; retry in ${data.retryAfterSeconds} s. Fix: wait, or ask the host's operator to raise limits.callsPerMinute.default.`,
  );
  t.equal(received.length, 2, 'the refused call reaches no mount');
  t.same(limitHits, ['limits.callsPerMinute'], 'and is recorded as a limit hit');
  t.same(made, [{ points: 2, duration: 60, keyPrefix: 'default' }], 'one counter for the config, made once');
  t.same(counted, ['default token:ci', 'default token:ci', 'default token:ci']);
});

t.test(
  'one count per identity: a user and a client of the same name are two, and no identity is anonymous',
  async (t) => {
    const { generation } = inProcessGeneration({ limits: { callsPerMinute: { default: 1 } } }, MOUNTS);
    t.equal(await call(generation, 'a.x', ALICE_USER), 'a ran x');
    const user = await refusal(call(generation, 'a.x', ALICE_USER));
    t.match(user.message, /^Rate limit: user "alice" has made 1 calls this minute/);
    t.equal(await call(generation, 'a.x', ALICE_CLIENT), 'a ran x', 'the client alice has her own count');
    const client = await refusal(call(generation, 'a.x', ALICE_CLIENT));
    t.match(client.message, /^Rate limit: client "alice" has made 1 calls this minute/);
    t.equal(await call(generation, 'a.x', CI), 'a ran x', 'as has every other identity');
    t.equal(await call(generation, 'a.x'), 'a ran x', 'a call without an identity counts as anonymous');
    const anonymous = await refusal(call(generation, 'a.x'));
    t.match(anonymous.message, /^Rate limit: anonymous "anonymous" has made 1 calls/);
    t.same(counted, [
      'default user:alice',
      'default user:alice',
      'default client:alice',
      'default client:alice',
      'default token:ci',
      'default anonymous:anonymous',
      'default anonymous:anonymous',
    ]);
  },
);

t.test('a call counts against the first perTool glob matching its tool, and the default', async (t) => {
  const { generation } = inProcessGeneration(
    { limits: { callsPerMinute: { default: 4, perTool: { 'a.x': 1, 'a.*': 2 } } } },
    MOUNTS,
  );
  t.same(made, [], 'counters are made at the first call');
  t.equal(await call(generation, 'a.x', CI), 'a ran x');
  t.same(made, [
    { points: 1, duration: 60, keyPrefix: 'tool:a.x' },
    { points: 2, duration: 60, keyPrefix: 'tool:a.*' },
    { points: 4, duration: 60, keyPrefix: 'default' },
  ]);
  const perTool = await refusal(call(generation, 'a.x', CI));
  t.same(perTool.data, {
    limit: 'limits.callsPerMinute.perTool["a.x"]',
    identity: 'ci',
    callsPerMinute: 1,
    retryAfterSeconds: (perTool.data as { retryAfterSeconds: number }).retryAfterSeconds,
  });
  t.match(perTool.message, /raise limits\.callsPerMinute\.perTool\["a\.x"\]\.$/);
  t.equal(await call(generation, 'a.y', CI), 'a ran y', 'a.x did not count against a.*');
  t.equal(await call(generation, 'a.y', CI), 'a ran y');
  t.match(
    (await refusal(call(generation, 'a.y', CI))).data,
    { limit: 'limits.callsPerMinute.perTool["a.*"]', identity: 'ci', callsPerMinute: 2 },
    'a.* spent',
  );
  t.equal(await call(generation, 'b.z', CI), 'b ran z', 'a tool no glob matches: the default alone');
  const overall = await refusal(call(generation, 'b.z', CI));
  t.equal(overall.data && (overall.data as { limit: string }).limit, 'limits.callsPerMinute.default');
  t.same(counted, [
    'tool:a.x token:ci',
    'default token:ci',
    'tool:a.x token:ci',
    'tool:a.* token:ci',
    'default token:ci',
    'tool:a.* token:ci',
    'default token:ci',
    'tool:a.* token:ci',
    'default token:ci',
    'default token:ci',
  ]);
  t.same(limitHits, ['limits.callsPerMinute', 'limits.callsPerMinute', 'limits.callsPerMinute']);
});

t.test('perTool alone: a tool no glob matches is not limited', async (t) => {
  const { generation } = inProcessGeneration({ limits: { callsPerMinute: { perTool: { 'a.*': 1 } } } }, MOUNTS);
  for (let i = 0; i < 6; i++) t.equal(await call(generation, 'b.z', CI), 'b ran z');
  t.same(made, [{ points: 1, duration: 60, keyPrefix: 'tool:a.*' }], 'no default counter');
  t.same(counted, [], 'b.z counted nowhere');
});

t.test('a perTool glob matches a name with a dot-segment', async (t) => {
  const { generation } = inProcessGeneration({ limits: { callsPerMinute: { perTool: { 'a.*/*': 1 } } } }, [
    { prefix: 'a', tools: ['x/.hidden'] },
  ]);
  t.equal(await call(generation, 'a.x/.hidden', CI), 'a ran x/.hidden');
  t.match((await refusal(call(generation, 'a.x/.hidden', CI))).data, {
    limit: 'limits.callsPerMinute.perTool["a.*/*"]',
  });
});

t.test('a tool the identity may not use is not counted: it is unknown, whatever the limits', async (t) => {
  const { generation, received } = inProcessGeneration(
    {
      access: [{ who: { token: 'ci' }, tools: ['a.*'] }],
      limits: { callsPerMinute: { default: 1 } },
    },
    MOUNTS,
  );
  for (let i = 0; i < 3; i++) {
    await t.rejects(call(generation, 'b.z', CI), {
      message: 'Unknown tool "b.z": no mounted plugin serves it. Fix: use a name from tools/list.',
    });
  }
  t.same(counted, []);
  t.equal(await call(generation, 'a.x', CI), 'a ran x', 'its count is whole');
  t.match((await refusal(call(generation, 'a.x', CI))).data, { limit: 'limits.callsPerMinute.default' }, 'and counts');
  t.same(counted, ['default token:ci', 'default token:ci']);
  t.same(
    received.map(({ prefix }) => prefix),
    ['a'],
  );
});

t.test('the retry is the store’s wait in whole seconds, rounded up, at least one', async (t) => {
  const { generation } = inProcessGeneration({ limits: { callsPerMinute: { default: 3 } } }, MOUNTS);
  const retryAfter = async (msBeforeNext: number) => {
    storeAnswer = () => Promise.reject(Object.assign(Object.create(null), { msBeforeNext }));
    return ((await refusal(call(generation, 'a.x', CI))).data as { retryAfterSeconds: number }).retryAfterSeconds;
  };
  t.equal(await retryAfter(1500), 2);
  t.equal(await retryAfter(59_001), 60);
  t.equal(await retryAfter(0), 1, 'a window that ends now: one second');
  t.equal(await retryAfter(-20), 1);
});

t.test('a store that fails (a Redis down) fails the call with its own error, not a rate limit', async (t) => {
  const { generation, received } = inProcessGeneration({ limits: { callsPerMinute: { default: 3 } } }, MOUNTS);
  storeAnswer = () => Promise.reject(new Error('Connection is closed.'));
  const failed = await refusal(call(generation, 'a.x', CI));
  t.notOk(failed instanceof CallLimited);
  t.equal(failed.message, 'Connection is closed.');
  t.same(limitHits, [], 'no limit hit');
  t.same(received, []);
});
