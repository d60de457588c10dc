// The audit of a request (host/proxy/audited.ts) in-process, over a real
// catalogue generation composed here from one 'none'-isolated plugin: who
// asked (identity kind and name, session, client), what for, which rule
// allowed it or that none did (a search_tools call allowed to anyone served
// search), the mount that serves it, the outcome and its code, and a call's
// arguments only with recordArguments. test/access.test.ts reads the same
// records from a host's audit file; this file is quick enough for
// `npm run mutation`.
import t, { type Test } from 'tap';
import {
  CLIENT_INFO_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { Generation } from '../../host/catalogue/generation.js';
import { audited, isAudited } from '../../host/proxy/audited.js';
import { CallLimited } from '../../host/proxy/call-limits.js';
import { RpcError } from '../../host/rpc-error.js';
import { installAuditLog, type AuditRecord } from '../../host/sinks/audit.js';
import { installInstrumentation, stopTelemetry, type Instrumentation } from '../../host/sinks/telemetry.js';
import { authInfoFor, type Identity } from '../../host/vocabulary/identity.js';
import { composeInProcess } from '../helpers/in-process-generation.js';
import { makeWorkspace, type Workspace } from '../helpers/packages.js';

const KIT = `import { McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
export default {
  create() {
    const server = new McpServer({ name: 'kit', version: '1.0.0' }, { capabilities: { resources: { subscribe: true } } });
    for (const name of ['open', 'closed']) {
      server.registerTool(name, {}, async () => ({ content: [{ type: 'text', text: name }] }));
    }
    server.registerPrompt('greet', {}, async () => ({ messages: [] }));
    server.registerResource('readme', 'docs://public/readme', {}, async (u) => ({ contents: [{ uri: u.href, text: 'r' }] }));
    server.registerResource('keys', 'docs://private/keys', {}, async (u) => ({ contents: [{ uri: u.href, text: 'k' }] }));
    server.registerResource('note', new ResourceTemplate('notes://{id}', { list: undefined }), {}, async (u) => ({ contents: [] }));
    return server;
  },
};
`;

const ACCESS = [
  { who: { sub: 'alice' }, tools: ['kit.open'], prompts: ['kit.greet'], resources: ['docs://public/**'] },
  { who: { client_id: 'ci' }, tools: ['kit.*'], resources: ['notes://{id}'] },
];

async function generationOf(t: Test, config: Record<string, unknown>): Promise<Generation> {
  const ws: Workspace = makeWorkspace(t);
  ws.writePackage(
    'node_modules/@t/kit',
    { name: '@t/kit', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': {} },
    { 'index.js': KIT },
  );
  return composeInProcess(t, ws.writeConfig({ plugins: [{ package: '@t/kit', prefix: 'kit' }], ...config }), ws.dir);
}

const user = (name: string): Identity => ({ kind: 'user', name, claims: { sub: name }, scopes: [] });
const client = (name: string): Identity => ({ kind: 'client', name, claims: { client_id: name }, scopes: [] });

/** A request's context: over HTTP with `identity` (stdio without one), in `session`, with `_meta`. */
function contextOf(identity?: Identity, session?: string, meta?: Record<string, unknown>): ServerContext {
  return {
    ...(identity && {
      http: { authInfo: authInfoFor(identity, { token: 't', clientId: identity.name, scopes: [] }) },
    }),
    ...(session !== undefined && { sessionId: session }),
    mcpReq: { ...(meta && { _meta: meta }) },
  } as unknown as ServerContext;
}

/** The SDK server a client initialized with `name` (2025-era), or none. */
const serverOf = (name?: string) =>
  ({ getClientVersion: () => (name === undefined ? undefined : { name, version: '1' }) }) as unknown as Server;

/** The audit log, recording; `recordsArguments` as `audit.recordArguments`. */
function recording(t: Test, recordsArguments = false): AuditRecord[] {
  const records: AuditRecord[] = [];
  installAuditLog({ recordsArguments, write: (record) => records.push(record), close: async () => {} });
  t.teardown(() => installAuditLog(undefined));
  return records;
}

/** The record of one request served by `work` (its result or error passed through). */
async function recordOf(
  t: Test,
  generation: Generation,
  {
    identity,
    method = 'tools/call',
    params = {},
    work = async () => ({ content: [] }),
    session,
    meta,
    clientName,
  }: {
    identity?: Identity;
    method?: string;
    params?: Record<string, unknown>;
    work?: () => Promise<Record<string, unknown>>;
    session?: string;
    meta?: Record<string, unknown>;
    clientName?: string;
  },
): Promise<AuditRecord> {
  const records = recording(t);
  await audited(generation, serverOf(clientName), contextOf(identity, session, meta), method, params, work).catch(
    () => undefined,
  );
  t.equal(records.length, 1, 'one record');
  installAuditLog(undefined);
  return records[0]!;
}

/** A record without its time and duration, which each test bounds on its own. */
function withoutTiming(record: AuditRecord): Omit<AuditRecord, 'time' | 'durationMs'> {
  const { time: _time, durationMs: _durationMs, ...rest } = record;
  return rest;
}

t.test('the methods audited', async (t) => {
  for (const method of [
    'tools/call',
    'prompts/get',
    'resources/read',
    'resources/subscribe',
    'resources/unsubscribe',
    'skills/get',
    'resources/directory/read',
    'completion/complete',
  ]) {
    t.ok(isAudited(method), method);
  }
  for (const method of ['tools/list', 'initialize', 'ping', 'constructor', 'toString', '__proto__']) {
    t.notOk(isAudited(method), method);
  }
});

t.test('with access rules', async (t) => {
  const generation = await generationOf(t, { access: ACCESS });

  await t.test('an allowed call: who, what, the rule and the mount; its arguments not recorded', async (t) => {
    const before = Date.now();
    const record = await recordOf(t, generation, {
      identity: user('alice'),
      params: { name: 'kit.open', arguments: { secret: 'x' } },
      session: 'session-1',
      clientName: 'claude',
      work: async () => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        return { content: [] };
      },
    });
    t.strictSame(withoutTiming(record), {
      identity: { name: 'alice', kind: 'user' },
      session: 'session-1',
      client: 'claude',
      method: 'tools/call',
      target: 'kit.open',
      mount: 'kit',
      decision: 'allow',
      rule: 0,
      outcome: 'ok',
    });
    const time = Date.parse(record.time);
    t.ok(time >= before - 1 && time <= Date.now(), 'the time it arrived');
    t.match(record.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'in ISO 8601');
    t.ok(record.durationMs >= 25 && record.durationMs < 10_000, `its duration in ms (${record.durationMs})`);
    t.ok(Math.abs(record.durationMs * 1000 - Math.round(record.durationMs * 1000)) < 1e-6, 'to the microsecond');
  });

  await t.test('a denied call: deny, no rule, no mount', async (t) => {
    t.strictSame(
      withoutTiming(await recordOf(t, generation, { identity: user('alice'), params: { name: 'kit.closed' } })),
      {
        identity: { name: 'alice', kind: 'user' },
        method: 'tools/call',
        target: 'kit.closed',
        decision: 'deny',
        outcome: 'ok',
      },
    );
  });

  await t.test('the kind of the identity: a user named like a client is not that client', async (t) => {
    t.match(await recordOf(t, generation, { identity: client('ci'), params: { name: 'kit.closed' } }), {
      identity: { name: 'ci', kind: 'client' },
      decision: 'allow',
      rule: 1,
      mount: 'kit',
    });
    t.match(await recordOf(t, generation, { identity: user('ci'), params: { name: 'kit.closed' } }), {
      identity: { name: 'ci', kind: 'user' },
      decision: 'deny',
    });
    t.match(await recordOf(t, generation, { params: { name: 'kit.open' } }), {
      identity: { name: 'stdio', kind: 'stdio' },
      decision: 'deny',
    });
  });

  await t.test('search_tools with no discovery: no rule allows it', async (t) => {
    t.match(await recordOf(t, generation, { identity: user('alice'), params: { name: 'search_tools' } }), {
      target: 'search_tools',
      decision: 'deny',
    });
  });

  await t.test('each method judged by its name or URI', async (t) => {
    const alice = user('alice');
    const cases: [string, Record<string, unknown>, Partial<AuditRecord>][] = [
      ['prompts/get', { name: 'kit.greet' }, { target: 'kit.greet', decision: 'allow', rule: 0, mount: 'kit' }],
      [
        'resources/read',
        { uri: 'docs://public/readme' },
        { target: 'docs://public/readme', decision: 'allow', mount: 'kit' },
      ],
      ['resources/read', { uri: 'docs://private/keys' }, { target: 'docs://private/keys', decision: 'deny' }],
      ['resources/subscribe', { uri: 'docs://public/readme' }, { target: 'docs://public/readme', decision: 'allow' }],
      ['resources/unsubscribe', { uri: 'docs://private/keys' }, { target: 'docs://private/keys', decision: 'deny' }],
      ['resources/unsubscribe', { uri: 'docs://public/readme' }, { target: 'docs://public/readme', decision: 'allow' }],
      ['skills/get', { uri: 'docs://public/readme' }, { target: 'docs://public/readme', decision: 'allow' }],
      ['resources/directory/read', { uri: 'docs://private/x' }, { target: 'docs://private/x', decision: 'deny' }],
      ['resources/directory/read', { uri: 'docs://public/' }, { target: 'docs://public/', decision: 'allow', rule: 0 }],
      [
        'completion/complete',
        { ref: { type: 'ref/prompt', name: 'kit.greet' } },
        { target: 'kit.greet', decision: 'allow', mount: 'kit' },
      ],
      [
        'completion/complete',
        { ref: { type: 'ref/resource', uri: 'docs://public/readme', name: 'x' } },
        { target: 'docs://public/readme', decision: 'allow', mount: 'kit' },
      ],
      ['completion/complete', {}, { target: 'undefined', decision: 'deny' }],
    ];
    for (const [method, params, expected] of cases) {
      const record = await recordOf(t, generation, { identity: alice, method, params });
      t.match(record, { method, ...expected }, `${method} ${JSON.stringify(params)}`);
      if (expected.decision === 'deny') t.notOk('rule' in record || 'mount' in record, 'no rule, no mount');
    }
    t.notOk(
      'mount' in
        (await recordOf(t, generation, { identity: alice, method: 'tools/call', params: { name: 'kit.nothing' } })),
      'a tool no mount serves has none',
    );
  });

  await t.test('a resource template allowed by its rule: the template decides', async (t) => {
    t.match(
      await recordOf(t, generation, {
        identity: client('ci'),
        method: 'resources/read',
        params: { uri: 'notes://{id}' },
      }),
      { decision: 'allow', rule: 1 },
    );
  });

  await t.test('the client: its initialize, else its request’s _meta', async (t) => {
    const alice = user('alice');
    const params = { name: 'kit.open' };
    t.equal(
      (await recordOf(t, generation, { identity: alice, params, meta: { [CLIENT_INFO_META_KEY]: { name: 'modern' } } }))
        .client,
      'modern',
    );
    t.equal(
      (
        await recordOf(t, generation, {
          identity: alice,
          params,
          clientName: 'legacy',
          meta: { [CLIENT_INFO_META_KEY]: { name: 'modern' } },
        })
      ).client,
      'legacy',
    );
    const none = await recordOf(t, generation, { identity: alice, params, meta: {} });
    t.notOk('client' in none || 'session' in none, 'no client, no session: neither key');
  });
});

t.test('without access rules every request is allowed, by no rule', async (t) => {
  const generation = await generationOf(t, {});
  t.strictSame(
    withoutTiming(await recordOf(t, generation, { identity: user('bob'), params: { name: 'kit.closed' } })),
    {
      identity: { name: 'bob', kind: 'user' },
      method: 'tools/call',
      target: 'kit.closed',
      mount: 'kit',
      decision: 'allow',
      outcome: 'ok',
    },
  );
});

t.test('search_tools served: allowed to anyone, though no rule names it', async (t) => {
  const generation = await generationOf(t, { access: ACCESS, discovery: { mode: 'search' } });
  t.match(await recordOf(t, generation, { identity: user('bob'), params: { name: 'search_tools' } }), {
    target: 'search_tools',
    decision: 'allow',
  });
  const prompt = await recordOf(t, generation, {
    identity: user('bob'),
    method: 'prompts/get',
    params: { name: 'search_tools' },
  });
  t.equal(prompt.decision, 'deny', 'a prompt of that name is not the search tool');
  t.equal((await recordOf(t, generation, { identity: user('bob'), params: { name: 'kit.open' } })).decision, 'deny');
});

t.test('outcomes, errors and arguments', async (t) => {
  const generation = await generationOf(t, {});
  const bob = user('bob');
  const params = { name: 'kit.open' };

  await t.test('a result passed through; isError a tool_error', async (t) => {
    const records = recording(t);
    const result = { content: [], isError: true };
    t.equal(await audited(generation, serverOf(), contextOf(bob), 'tools/call', params, async () => result), result);
    await audited(generation, serverOf(), contextOf(bob), 'tools/call', params, async () => ({ isError: 'yes' }));
    t.same(
      records.map((record) => record.outcome),
      ['tool_error', 'ok'],
    );
  });

  await t.test('an error thrown through, its code recorded', async (t) => {
    const errors: [unknown, Partial<AuditRecord>][] = [
      [new RpcError(-32602, 'bad'), { outcome: 'error', code: -32602, decision: 'allow' }],
      [new ProtocolError(ProtocolErrorCode.InternalError, 'broke'), { outcome: 'error', code: -32603 }],
      [
        new CallLimited('limits.callsPerMinute.default', bob, 3, 20),
        { outcome: 'error', decision: 'refuse', rule: 'limits.callsPerMinute.default' },
      ],
    ];
    for (const [error, expected] of errors) {
      const record = await recordOf(t, generation, { identity: bob, params, work: () => Promise.reject(error) });
      t.match(record, expected);
    }
    const plain = await recordOf(t, generation, {
      identity: bob,
      params,
      work: () => Promise.reject(Object.assign(new Error('x'), { code: 'ECONNRESET' })),
    });
    t.match(plain, { outcome: 'error', decision: 'allow' });
    t.notOk(
      'code' in plain || 'rule' in plain,
      'a plain error has no code (not even its own .code), and no limit refused it',
    );
    const thrown = new RpcError(-32000, 'mine');
    const records = recording(t);
    t.equal(
      await audited(generation, serverOf(), contextOf(bob), 'tools/call', params, () => Promise.reject(thrown)).catch(
        (error: unknown) => error,
      ),
      thrown,
    );
    t.equal(records.length, 1);
  });

  await t.test('arguments recorded only with recordArguments', async (t) => {
    const withArguments = { name: 'kit.open', arguments: { city: 'Paris' } };
    const off = recording(t);
    await audited(generation, serverOf(), contextOf(bob), 'tools/call', withArguments, async () => ({}));
    t.notOk('arguments' in off[0]!, 'off by default');
    const on = recording(t, true);
    await audited(generation, serverOf(), contextOf(bob), 'tools/call', withArguments, async () => ({}));
    await audited(generation, serverOf(), contextOf(bob), 'tools/call', params, async () => ({}));
    t.same(on[0]!.arguments, { city: 'Paris' });
    t.notOk('arguments' in on[1]!, 'a call without arguments records none');
  });

  await t.test('the trace id, when telemetry traces the request', async (t) => {
    const records = recording(t);
    await audited(generation, serverOf(), contextOf(bob), 'tools/call', params, async () => ({}));
    t.notOk('traceId' in records[0]!, 'no telemetry, no trace id');
    installInstrumentation({ traceId: () => 'trace-1', shutdown: async () => {} } as unknown as Instrumentation);
    t.teardown(stopTelemetry);
    await audited(generation, serverOf(), contextOf(bob), 'tools/call', params, async () => ({}));
    t.equal(records[1]!.traceId, 'trace-1');
  });

  await t.test('with the log off: the work itself, nothing measured', async (t) => {
    installAuditLog(undefined);
    const answer = Promise.resolve({ content: [] });
    t.equal(
      audited(generation, serverOf(), contextOf(bob), 'tools/call', params, () => answer),
      answer,
      'the very promise of the work',
    );
  });
});
