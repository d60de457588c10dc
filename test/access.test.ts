// Access rules (docs/access.md): two named static tokens see different
// catalogues over HTTP in both eras, and each is answered for the other's
// items exactly as for names that do not exist; the stdio client is matched
// by `stdio: true`; a reload that changes the rules tells a connected client
// whose view changed, and only it. The host runs as a child process, driven
// by the SDK's own Client; the plugins are the repository's examples.
import { join } from 'node:path';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  eventually,
  runCli,
  startHttpHost,
  startStdioHost,
  until,
  watchingNotificationStream,
} from './helpers/host.js';
import { describeWho, whoMatches } from '../host/catalogue/access-rules.js';
import { namedToken } from '../host/config/token-names.js';
import { ANONYMOUS_IDENTITY, STDIO_IDENTITY, type Identity } from '../host/vocabulary/identity.js';
import { makeWorkspace, type Workspace } from './helpers/packages.js';
import { modernClient } from './helpers/cluster.js';
import { ALICE, CI, secretOf } from './helpers/named-tokens.js';

const RULES = [
  { who: { token: 'alice' }, tools: ['notes.*'], resources: ['note://**'] },
  { who: { token: 'ci' }, tools: ['clock.*'], prompts: ['clock.*'] },
  { who: { stdio: true }, tools: ['clock.now'] },
];

/** The config's text: the example plugins, both tokens, and `access`. */
function configText(ws: Workspace, access: unknown[] = RULES, http = true): string {
  const config = {
    reload: { watch: true, debounceMs: 50 },
    ...(http && { http: { port: 0, auth: { tokens: [ALICE, CI] } } }),
    plugins: [
      { package: '@mcp-host/notes', options: { file: join(ws.dir, 'notes.json'), exportDelayMs: 0 } },
      { package: '@mcp-host/clock' },
    ],
    access,
  };
  return `export default ${JSON.stringify(config, null, 2)};\n`;
}

function config(ws: Workspace, http = true): string {
  return ws.writeConfig(configText(ws, RULES, http));
}

async function connect(url: string, token: string, era: 'legacy' | 'modern'): Promise<Client> {
  const client = era === 'modern' ? modernClient() : new Client({ name: 'access-test', version: '1.0.0' });
  const secret = secretOf(token);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${secret}` } },
    }),
  );
  return client;
}

/** The error a call gets, as the client receives it. */
async function refusal(attempt: Promise<unknown>): Promise<unknown> {
  try {
    await attempt;
  } catch (error) {
    const { code, message, data } = error as { code?: number; message: string; data?: unknown };
    return { code, message, data };
  }
  throw new Error('expected a refusal');
}

t.test("two static tokens see different lists in both eras, and the other one's items are unknown", async (t) => {
  const ws = makeWorkspace(t);
  const host = await startHttpHost(t, config(ws), { env: { MCP_HOST_HTTP_TOKENS: undefined } });
  for (const era of ['legacy', 'modern'] as const) {
    const alice = await connect(host.url, ALICE, era);
    const ci = await connect(host.url, CI, era);
    t.teardown(() => Promise.all([alice.close(), ci.close()]));
    const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();
    t.same(
      await names(alice),
      [
        'notes.add_note',
        'notes.delete_note',
        'notes.export_notes',
        'notes.list_notes',
        'notes.read_note',
        'notes.search_notes',
      ],
      `${era}: alice sees the notes tools`,
    );
    t.same(
      await names(ci),
      ['clock.convert_time', 'clock.countdown', 'clock.list_time_zones', 'clock.now'],
      `${era}: ci sees the clock tools`,
    );
    t.same((await alice.listPrompts()).prompts, [], `${era}: alice is allowed no prompt`);
    t.same(
      (await ci.listPrompts()).prompts.map((prompt) => prompt.name),
      ['clock.plan_meeting'],
    );
    t.same((await ci.listResourceTemplates()).resourceTemplates, [], `${era}: ci is allowed no resource`);
    t.ok((await alice.listResourceTemplates()).resourceTemplates.length > 0);

    // The other's tool, and a tool that exists nowhere: the same answer, word for word.
    for (const [client, theirs, nowhere] of [
      [alice, 'clock.now', 'clock.no_such_tool'],
      [ci, 'notes.list_notes', 'notes.no_such_tool'],
    ] as const) {
      const denied = await refusal(client.callTool({ name: theirs, arguments: {} }));
      const unknown = await refusal(client.callTool({ name: nowhere, arguments: {} }));
      t.same(denied, JSON.parse(JSON.stringify(unknown).replaceAll(nowhere, theirs)), `${era}: ${theirs} as unknown`);
      t.match(denied, { message: new RegExp(`Unknown tool "${theirs.replace('.', '\\.')}"`) });
    }
    const deniedPrompt = await refusal(alice.getPrompt({ name: 'clock.plan_meeting', arguments: {} }));
    const unknownPrompt = await refusal(alice.getPrompt({ name: 'clock.no_such_prompt', arguments: {} }));
    t.same(
      deniedPrompt,
      JSON.parse(JSON.stringify(unknownPrompt).replaceAll('clock.no_such_prompt', 'clock.plan_meeting')),
    );
    const deniedRead = await refusal(ci.readResource({ uri: 'note://some-note' }));
    const unknownRead = await refusal(alice.readResource({ uri: 'note://no-such-note' }));
    t.same(deniedRead, JSON.parse(JSON.stringify(unknownRead).replaceAll('no-such-note', 'some-note')), `${era}: read`);
    t.match((await ci.callTool({ name: 'clock.now', arguments: {} })).content, [{ type: 'text' }]);
  }
});

t.test(
  'the stdio client is matched by stdio: true; a reload that changes its rules tells it, one that does not stays quiet',
  async (t) => {
    const ws = makeWorkspace(t);
    const file = config(ws, false);
    const host = await startStdioHost(t, file);
    const { client } = host;
    t.same(
      (await client.listTools()).tools.map((tool) => tool.name),
      ['clock.now'],
    );
    const denied = await refusal(client.callTool({ name: 'notes.list_notes', arguments: {} }));
    t.match(denied, { code: -32602, message: /^Unknown tool "notes\.list_notes": no mounted plugin serves it/ });

    // Alice's rule changes: nothing the stdio client sees does.
    const reloads = () => host.log().match(/reloaded \(/g)?.length ?? 0;
    writeFileSync(file, configText(ws, [{ ...RULES[0], tools: ['notes.list_notes'] }, RULES[1], RULES[2]], false));
    await host.until('the first reload', () => reloads() === 1);
    t.equal(host.notified.tools, 0, 'not told of a change it cannot see');

    writeFileSync(
      file,
      configText(ws, [RULES[0], RULES[1], { who: { stdio: true }, tools: ['clock.now', 'clock.countdown'] }], false),
    );
    await host.until('told its tools changed', () => host.notified.tools === 1);
    t.same((await client.listTools()).tools.map((tool) => tool.name).sort(), ['clock.countdown', 'clock.now']);
    t.equal(host.notified.prompts, 0);
  },
);

t.test('mcp-host check names each bad rule: its who key, its glob, its list kind', async (t) => {
  const ws = makeWorkspace(t);
  const file = ws.writeConfig({
    plugins: [],
    access: [
      { who: { subject: 'alice' }, tools: ['x.*'] },
      { who: {}, tools: ['ok'] },
      { who: { token: 'ci' }, tool: ['clock.*'] },
      { who: { groups: 'admins', stdio: false }, resources: ['note://[x', ''] },
      { who: { sub: 'bob' }, tools: 'notes.*' },
      'nope',
      { tools: ['clock.*'] },
    ],
  });
  const run = await runCli(['check', '--config', file]);
  t.equal(run.code, 1);
  t.equal(
    run.stdout,
    [
      `mcp-host check: 10 problems in ${file}`,
      '- mcp-host.config.js: access[0].who.subject: unknown key "subject". Fix: remove it; the keys allowed here are "sub", "client_id", "scope", "groups", "roles", "token" and "stdio".',
      "- mcp-host.config.js: access[1].who: expected an object naming whom the rule is for, got an empty one (it would match no one in particular). Fix: e.g. who: { sub: 'alice' }, { scope: 'notes' }, { groups: ['admins'] }, { token: 'ci' } or { stdio: true }.",
      '- mcp-host.config.js: access[2].tool: unknown key "tool": a rule allows tools, prompts or resources only. Fix: did you mean "tools"?',
      "- mcp-host.config.js: access[3].who.groups: expected a non-empty array of non-empty strings, got \"admins\". Fix: e.g. who: { sub: 'alice' }, { scope: 'notes' }, { groups: ['admins'] }, { token: 'ci' } or { stdio: true }.",
      '- mcp-host.config.js: access[3].who.stdio: expected true, got false. Fix: write stdio: true, or leave it out.',
      `- mcp-host.config.js: access[3].resources[0]: expected a glob of composed URIs, but "note://[x" is not one: Missing closing: "]" - use "\\\\]" to match literal characters. Fix: e.g. resources: ['note://**'] ('*' matches within a name, '**' across '/').`,
      `- mcp-host.config.js: access[3].resources[1]: expected a glob of composed URIs, got "". Fix: e.g. resources: ['note://**'] ('*' matches within a name, '**' across '/').`,
      `- mcp-host.config.js: access[4].tools: expected an array of globs, got "notes.*". Fix: e.g. tools: ['notes.*'].`,
      `- mcp-host.config.js: access[5]: expected an access rule object, got "nope". Fix: e.g. { who: { token: 'ci' }, tools: ['clock.*'] }.`,
      "- mcp-host.config.js: access[6].who: expected an object naming whom the rule is for, got undefined. Fix: e.g. who: { sub: 'alice' }, { scope: 'notes' }, { groups: ['admins'] }, { token: 'ci' } or { stdio: true }.",
      '',
    ].join('\n'),
  );
  const notAList = await runCli(['check', '--config', ws.writeConfig({ plugins: [], access: { who: {} } })]);
  t.match(
    notAList.stdout,
    "access: expected an array of access rules, got an object. Fix: e.g. access: [{ who: { token: 'ci' }, tools: ['clock.*'] }], or leave access out to let every client see everything.",
  );
});

t.test('who matches claims, scopes, groups and roles, token names and stdio; every key given must match', (t) => {
  const oauth = (claims: Record<string, unknown>, scopes: string[] = []): Identity => ({
    kind: 'user',
    name: String(claims.sub),
    claims,
    scopes,
  });
  const alice = oauth({ sub: 'alice', client_id: 'app', groups: ['ops', 'admins'], roles: 'reader' }, ['notes', 'mcp']);
  t.ok(whoMatches({ sub: 'alice' }, alice));
  t.notOk(whoMatches({ sub: 'bob' }, alice));
  t.ok(whoMatches({ client_id: 'app', scope: 'notes' }, alice));
  t.notOk(whoMatches({ client_id: 'app', scope: 'admin' }, alice), 'every key must match');
  t.ok(whoMatches({ groups: ['devs', 'admins'] }, alice), 'any one group');
  t.notOk(whoMatches({ groups: ['devs'] }, alice));
  t.notOk(whoMatches({ roles: ['reader'] }, alice), 'a claim that is not an array holds no role');
  t.ok(whoMatches({ roles: ['reader'] }, oauth({ sub: 'carol', roles: ['reader'] })));
  t.notOk(whoMatches({ token: 'alice' }, alice), 'a token name is not a subject');
  const clientAlice: Identity = { kind: 'client', name: 'alice', claims: { client_id: 'alice' }, scopes: [] };
  t.notOk(whoMatches({ sub: 'alice' }, clientAlice), 'a client named alice is not the user alice');
  t.ok(whoMatches({ client_id: 'alice' }, clientAlice));
  t.ok(whoMatches({ token: 'ci' }, { kind: 'token', name: 'ci', tokenName: 'ci', claims: {}, scopes: [] }));
  t.ok(whoMatches({ stdio: true }, STDIO_IDENTITY));
  t.notOk(whoMatches({ stdio: true }, ANONYMOUS_IDENTITY));
  t.equal(describeWho({ sub: 'alice', groups: ['ops'] }), '{ sub: "alice", groups: ["ops"] }');
  t.end();
});

t.test(
  'mcp-host access explain: what an identity sees, the rule that decides each item, and why the rest is denied',
  async (t) => {
    const ws = makeWorkspace(t);
    const file = ws.writeConfig({
      plugins: [
        { package: '@mcp-host/clock' },
        { package: '@mcp-host/notes', options: { file: join(ws.dir, 'n.json') } },
      ],
      access: [
        { who: { scope: 'notes' }, tools: ['notes.*'], resources: ['note://**'] },
        { who: { groups: ['admins'] }, tools: ['**'], prompts: ['**'] },
        { who: { token: 'ci' }, tools: ['clock.now'] },
      ],
    });
    const alice = await runCli(['access', 'explain', '--config', file, '--sub', 'alice', '--scope', 'notes mcp']);
    t.equal(alice.code, 0, alice.stderr);
    const others = (...rules: string[]) => `; listed by ${rules.join(', ')}, for others`;
    const admins = 'access[1] { groups: ["admins"] }';
    t.equal(
      alice.stdout,
      [
        'identity: user "alice" (sub: "alice", scope: "notes mcp")',
        'rules for this identity: access[0] { scope: "notes" }',
        'sees (7):',
        ...['add_note', 'list_notes', 'read_note', 'search_notes', 'delete_note', 'export_notes'].map(
          (tool) => `  tool notes.${tool}  <- access[0] { scope: "notes" }`,
        ),
        '  template note://{id}  <- access[0] { scope: "notes" }',
        'denied (9):',
        `  tool clock.now  <- no rule for this identity lists it${others(admins, 'access[2] { token: "ci" }')}`,
        ...['convert_time', 'list_time_zones', 'countdown'].map(
          (tool) => `  tool clock.${tool}  <- no rule for this identity lists it${others(admins)}`,
        ),
        `  prompt clock.plan_meeting  <- no rule for this identity lists it${others(admins)}`,
        `  prompt notes.review_note  <- no rule for this identity lists it${others(admins)}`,
        '  resource clock://zones  <- no rule for this identity lists it',
        '  resource notes://index  <- no rule for this identity lists it',
        '  template clock://time/{+zone}  <- no rule for this identity lists it',
        '',
      ].join('\n'),
    );
    const stranger = await runCli(['access', 'explain', '--config', file, '--token', 'nobody']);
    t.match(
      stranger.stdout,
      /^identity: token "nobody"\nno rule is for this identity: it sees nothing\nsees \(0\):\ndenied \(16\):\n/,
    );
    t.match(stranger.stdout, `  tool clock.countdown  <- no rule is for this identity${others(admins)}\n`);
    const admin = await runCli([
      'access',
      'explain',
      '--config',
      file,
      '--group',
      'admins',
      '--role',
      'x',
      '--client-id',
      'app',
    ]);
    t.match(admin.stdout, /^identity: client "app" \(client_id: "app", groups: \["admins"\], roles: \["x"\]\)\n/);
    t.match(admin.stdout, 'prompt notes.review_note  <- access[1] { groups: ["admins"] }\n');
    const local = await runCli(['access', 'explain', '--config', file, '--stdio']);
    t.match(local.stdout, /^identity: stdio "stdio"\nno rule is for this identity/);

    const open = ws.writeConfig({ plugins: [{ package: '@mcp-host/clock' }] }, 'open.config.js');
    const everyone = await runCli(['access', 'explain', '--config', open]);
    t.match(
      everyone.stdout,
      /^identity: anonymous "anonymous"\nthe config sets no access rules: every client sees everything\nsees:\n {2}tool clock\.now\n/,
    );

    const wrong = await runCli(['access', 'show', '--config', file]);
    t.equal(wrong.code, 2);
    t.match(wrong.stderr, 'mcp-host: access takes one subcommand: explain (mcp-host access explain --sub alice)');
    const misplaced = await runCli(['list', '--config', file, '--sub', 'alice']);
    t.match(
      misplaced.stderr,
      'mcp-host: --sub, --client-id, --scope, --group, --role and --token go with "access explain"',
    );
  },
);

t.test('audit: every call, read and refusal is a JSON line with its identity, rule and outcome', async (t) => {
  const ws = makeWorkspace(t);
  const file = ws.writeConfig(
    configText(ws, RULES, true).replace(
      'export default {',
      "export default {\n  audit: { file: './logs/audit.log', recordArguments: true },",
    ),
  );
  const host = await startHttpHost(t, file, { env: { MCP_HOST_HTTP_TOKENS: undefined } });
  const alice = await connect(host.url, ALICE, 'legacy');
  const ci = await connect(host.url, CI, 'modern');
  await alice.callTool({ name: 'notes.list_notes', arguments: {} });
  await refusal(alice.callTool({ name: 'clock.now', arguments: { zone: 'UTC' } }));
  await refusal(alice.readResource({ uri: 'note://missing' }));
  await ci.callTool({ name: 'clock.now', arguments: { zone: 'UTC' } });
  await ci.callTool({ name: 'clock.convert_time', arguments: { time: 'not a time', to: 'Nowhere/Zone' } });
  await ci.complete({
    ref: { type: 'ref/prompt', name: 'clock.plan_meeting' },
    argument: { name: 'zones', value: 'par' },
  });
  const deniedCompletion = await refusal(
    ci.complete({ ref: { type: 'ref/resource', uri: 'note://{id}' }, argument: { name: 'id', value: 'x' } }),
  );
  const unknownCompletion = await refusal(
    ci.complete({ ref: { type: 'ref/resource', uri: 'nowhere://{id}' }, argument: { name: 'id', value: 'x' } }),
  );
  t.same(deniedCompletion, JSON.parse(JSON.stringify(unknownCompletion).replaceAll('nowhere://', 'note://')));
  const stranger = await fetch(host.url, {
    method: 'POST',
    headers: { authorization: 'Bearer wrong-token-0123456789' },
  });
  t.equal(stranger.status, 401);
  await Promise.all([alice.close(), ci.close()]);
  host.child.kill('SIGTERM');
  await host.exited;

  const records = readFileSync(join(ws.dir, 'logs/audit.log'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`not JSON: ${line}`);
      }
    });
  const common = { time: String, durationMs: Number };
  t.match(records, [
    {
      ...common,
      identity: { name: 'alice', kind: 'token' },
      session: String,
      client: 'access-test',
      method: 'tools/call',
      target: 'notes.list_notes',
      mount: 'notes',
      decision: 'allow',
      rule: 0,
      outcome: 'ok',
      arguments: {},
    },
    {
      identity: { name: 'alice', kind: 'token' },
      method: 'tools/call',
      target: 'clock.now',
      decision: 'deny',
      outcome: 'error',
      code: -32602,
      arguments: { zone: 'UTC' },
    },
    {
      identity: { name: 'alice' },
      method: 'resources/read',
      target: 'note://missing',
      decision: 'allow',
      rule: 0,
      outcome: 'error',
    },
    {
      identity: { name: 'ci', kind: 'token' },
      client: 'modern',
      method: 'tools/call',
      target: 'clock.now',
      mount: 'clock',
      rule: 1,
      outcome: 'ok',
    },
    { identity: { name: 'ci' }, target: 'clock.convert_time', outcome: 'tool_error' },
    {
      method: 'completion/complete',
      target: 'clock.plan_meeting',
      mount: 'clock',
      decision: 'allow',
      rule: 1,
      outcome: 'ok',
    },
    { method: 'completion/complete', target: 'note://{id}', decision: 'deny', outcome: 'error' },
    { method: 'completion/complete', target: 'nowhere://{id}', decision: 'deny', outcome: 'error' },
    {
      identity: { name: 'unauthenticated', kind: 'none' },
      method: 'http',
      target: '/mcp',
      decision: 'refuse',
      rule: 'http.auth',
      outcome: 'error',
      code: 401,
    },
  ]);
  t.equal(records.length, 9, 'one record each, nothing else');
  t.notOk('mount' in records[1]!, 'a denied call names no mount');
});

t.test(
  'audit.rotate: past size bytes the file is renamed .1 and a new one started; only keep old ones stay',
  async (t) => {
    const ws = makeWorkspace(t);
    const file = ws.writeConfig({
      reload: { watch: false },
      plugins: [{ package: '@mcp-host/clock' }],
      audit: { file: './logs/audit.log', rotate: { size: 600, keep: 2 } },
    });
    const host = await startStdioHost(t, file);
    // A record is about 200 bytes: 12 make four files' worth.
    for (let i = 0; i < 12; i++) await host.client.callTool({ name: 'clock.now', arguments: {} });
    await host.client.close();
    await host.until('the host to exit', () => !alive(host.pid));
    const logs = join(ws.dir, 'logs');
    // The current file is started by the first record after a rotation: when the last call's record was the one
    // that filled it (records vary in length by a few digits), there is none yet.
    const kept = readdirSync(logs).sort();
    t.same(
      kept.filter((name) => name !== 'audit.log'),
      ['audit.log.1', 'audit.log.2'],
      'two old files kept, and no third',
    );
    const linesOf = (name: string) =>
      readFileSync(join(logs, name), 'utf8')
        .split(/(?<=\n)/)
        .filter(Boolean);
    for (const name of ['audit.log.2', 'audit.log.1']) {
      // Renamed by the record that took it to 600 bytes, however busy the machine: never one record later.
      const lines = linesOf(name);
      const bytes = Buffer.byteLength(lines.join(''));
      const beforeLast = bytes - Buffer.byteLength(lines.at(-1)!);
      t.ok(bytes >= 600 && beforeLast < 600, `${name} holds ${bytes} bytes, ${beforeLast} before its last record`);
    }
    const records = ['audit.log.2', 'audit.log.1', 'audit.log'].filter((name) => kept.includes(name)).flatMap(linesOf);
    t.ok(records.length >= 3 && records.length < 12, `the oldest records were dropped: ${records.length} kept`);
  },
);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

t.test('a static token without a name is named by its digest: stable, and telling nothing of the token', (t) => {
  t.same(namedToken('ci:ci-token-0123456789abcdef'), { name: 'ci', token: 'ci-token-0123456789abcdef' });
  const unnamed = namedToken('plain-token-0123456789');
  t.match(unnamed, { name: /^token-[0-9a-f]{8}$/, token: 'plain-token-0123456789' });
  t.same(namedToken('plain-token-0123456789'), unnamed, 'the same name every time');
  t.equal(namedToken('not a name:x-token-0123456789').name.startsWith('token-'), true, 'a name has no spaces');
  t.end();
});

t.test('an audit file that cannot be opened refuses the start, naming audit.file and the fix', async (t) => {
  const ws = makeWorkspace(t);
  ws.writeFile('logs/audit.log/in-the-way', '');
  const file = ws.writeConfig({ plugins: [{ package: '@mcp-host/clock' }], audit: { file: './logs/audit.log' } });
  const run = await runCli(['start', '--config', file]);
  t.equal(run.code, 1);
  t.match(
    run.stderr,
    `mcp-host.config.js: audit.file: the audit log ${join(ws.dir, 'logs', 'audit.log')} cannot be opened for appending: EISDIR: illegal operation on a directory, open '${join(ws.dir, 'logs', 'audit.log')}'. Fix: point audit.file at a file in a directory the host may write to, or remove audit.`,
  );
});

t.test('an audit file that fails a write (/dev/full) is logged, and the calls are served all the same', async (t) => {
  const ws = makeWorkspace(t);
  const file = ws.writeConfig({
    reload: { watch: false },
    plugins: [{ package: '@mcp-host/clock' }],
    audit: { file: '/dev/full' },
  });
  const host = await startStdioHost(t, file);
  for (let i = 0; i < 3; i++) {
    t.match((await host.client.callTool({ name: 'clock.now', arguments: {} })).content, [{ type: 'text' }]);
    await host.until('the failed write logged', () => /audit log \/dev\/full: ENOSPC/.test(host.log()));
  }
  t.ok(alive(host.pid), 'the host still serves');
  // The records it could not write do not hold up its stop: it ends on its own, before the client's SIGTERM.
  await host.client.close();
  await host.until('the host to exit', () => !alive(host.pid));
  t.notMatch(host.log(), 'while stopping: stopping at once');
});

t.test('an audit file that cannot be rotated is logged, and the calls are served all the same', async (t) => {
  const ws = makeWorkspace(t);
  ws.writeFile('logs/audit.log.1/in-the-way', '');
  const file = ws.writeConfig({
    reload: { watch: false },
    plugins: [{ package: '@mcp-host/clock' }],
    audit: { file: './logs/audit.log', rotate: { size: 300, keep: 1 } },
  });
  const host = await startStdioHost(t, file);
  for (let i = 0; i < 4; i++) {
    t.match((await host.client.callTool({ name: 'clock.now', arguments: {} })).content, [{ type: 'text' }]);
  }
  await host.until('the failed rotation logged', () => /audit log .*audit\.log: could not rotate: /.test(host.log()));
});

/** A flat plugin with two tools, two resources and subscriptions. */
/** A workspace with the kit plugin below installed, and a config mounting it. */
function kitConfig(t: Test, config: Record<string, unknown>): string {
  const ws = makeWorkspace(t);
  ws.writePackage(
    'node_modules/@t/kit',
    { name: '@t/kit', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': { prefix: 'kit' } },
    { 'index.js': KIT },
  );
  return ws.writeConfig(config);
}

const KIT = `import { McpServer, fromJsonSchema } from '@modelcontextprotocol/server';
export default {
  create() {
    const server = new McpServer({ name: 'kit', version: '1.0.0' }, { capabilities: { resources: { subscribe: true } } });
    for (const name of ['open_tool', 'closed_tool']) {
      server.registerTool(name, {}, async () => ({ content: [{ type: 'text', text: name }] }));
    }
    for (const uri of ['docs://public/readme', 'docs://private/keys']) {
      server.registerResource(uri, uri, {}, async (u) => ({ contents: [{ uri: u.href, text: 'read ' + u.href }] }));
    }
    const subscribed = [];
    server.server.setRequestHandler('resources/subscribe', async (request) => {
      subscribed.push(request.params.uri);
      return {};
    });
    server.server.setRequestHandler('resources/unsubscribe', async () => ({}));
    server.registerTool('subscribed', {}, async () => ({ content: [{ type: 'text', text: subscribed.join(' ') }] }));
    server.registerTool(
      'routed',
      { inputSchema: fromJsonSchema({ type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } }) },
      async () => ({ content: [{ type: 'text', text: 'routed' }] }),
    );
    return server;
  },
};
`;

t.test(
  'a lone flat mount under access rules: unlisted names are not forwarded, denied subscriptions refused',
  async (t) => {
    const file = kitConfig(t, {
      reload: { watch: false },
      plugins: [{ package: '@t/kit', flat: true }],
      access: [{ who: { stdio: true }, tools: ['open_tool'], resources: ['docs://public/**'] }],
    });
    const { client } = await startStdioHost(t, file);
    t.same(
      (await client.listResources()).resources.map((resource) => resource.uri),
      ['docs://public/readme'],
    );
    const denied = await refusal(client.callTool({ name: 'closed_tool', arguments: {} }));
    const unknown = await refusal(client.callTool({ name: 'no_such_tool', arguments: {} }));
    t.same(denied, JSON.parse(JSON.stringify(unknown).replaceAll('no_such_tool', 'closed_tool')));
    t.match(unknown, {
      message: 'Unknown tool "no_such_tool": no mounted plugin serves it. Fix: use a name from tools/list.',
    });
    t.same(await client.subscribeResource({ uri: 'docs://public/readme' }), {});
    t.match(await refusal(client.subscribeResource({ uri: 'docs://private/keys' })), {
      code: -32602,
      message:
        'Cannot subscribe to "docs://private/keys": no mounted plugin that supports resource subscriptions serves it.',
    });
  },
);

t.test(
  'over HTTP: a plugin change reaches the sessions whose rules show it; a rules change reaches the listen streams it changes',
  async (t) => {
    const ws = makeWorkspace(t);
    const file = config(ws);
    const host = await startHttpHost(t, file, { env: { MCP_HOST_HTTP_TOKENS: undefined } });
    const watched = watchingNotificationStream();
    const alice = new Client({ name: 'access-test', version: '1.0.0' });
    let aliceTold = 0;
    alice.setNotificationHandler('notifications/resources/list_changed', () => void aliceTold++);
    await alice.connect(
      new StreamableHTTPClientTransport(new URL(host.url), {
        fetch: watched.fetch,
        requestInit: { headers: { authorization: `Bearer ${ALICE.slice('alice:'.length)}` } },
      }),
    );
    t.teardown(() => alice.close());
    await watched.opened;
    const ci = await connect(host.url, CI, 'modern');
    let ciTold = 0;
    ci.setNotificationHandler('notifications/tools/list_changed', () => void ciTold++);
    const stream = await ci.listen({ toolsListChanged: true });
    t.teardown(() => Promise.all([ci.close(), stream.close()]));

    // A new note is a new resource: alice, who sees note://**, is told.
    await alice.callTool({ name: 'notes.add_note', arguments: { title: 'one', body: 'first' } });
    await until('resources/list_changed to alice', () => aliceTold > 0);

    // A rules change that changes ci's view: its listen stream is told.
    writeFileSync(file, configText(ws, [RULES[0], { ...RULES[1], tools: ['clock.now'] }, RULES[2]]));
    await until('tools/list_changed on the listen stream', () => ciTold > 0);
    t.same(
      (await ci.listTools()).tools.map((tool) => tool.name),
      ['clock.now'],
    );
  },
);

t.test(
  'a 2026-07-28 call of a denied tool with x-mcp-header arguments is unknown, not refused for its headers',
  async (t) => {
    const file = kitConfig(t, {
      reload: { watch: false },
      http: { port: 0, auth: { tokens: [ALICE, CI] } },
      plugins: [{ package: '@t/kit' }],
      access: [
        { who: { token: 'alice' }, tools: ['kit.routed'] },
        { who: { token: 'ci' }, tools: ['kit.open_tool'] },
      ],
    });
    const host = await startHttpHost(t, file, { env: { MCP_HOST_HTTP_TOKENS: undefined } });
    const call = async (token: string, name: string) => {
      const response = await fetch(host.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${secretOf(token)}`,
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': name,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 9,
          method: 'tools/call',
          params: {
            name,
            arguments: { region: 'eu' },
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientCapabilities': {},
              'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
            },
          },
        }),
      });
      return { status: response.status, body: (await response.json()) as { error?: { message: string } } };
    };
    const allowed = await call(ALICE, 'kit.routed');
    t.match(
      allowed.body.error?.message,
      /Mcp-Param-Region header is absent/,
      'alice, who may use it, is told of the header',
    );
    const denied = await call(CI, 'kit.routed');
    const unknown = await call(CI, 'kit.no_such_tool');
    t.same(denied, JSON.parse(JSON.stringify(unknown).replaceAll('kit.no_such_tool', 'kit.routed')));
    t.match(denied.body.error?.message, /^Unknown tool "kit\.routed"/);
  },
);

t.test('a 2026-07-28 listen stream watches only the URIs its caller may read', async (t) => {
  const file = kitConfig(t, {
    reload: { watch: false },
    http: { port: 0, auth: { tokens: [CI] } },
    plugins: [{ package: '@t/kit' }],
    access: [{ who: { token: 'ci' }, tools: ['kit.subscribed'], resources: ['docs://public/**'] }],
  });
  const host = await startHttpHost(t, file, { env: { MCP_HOST_HTTP_TOKENS: undefined } });
  const ci = await connect(host.url, CI, 'modern');
  const stream = await ci.listen({ resourceSubscriptions: ['docs://private/keys', 'docs://public/readme'] });
  t.teardown(() => Promise.all([ci.close(), stream.close()]));
  const subscribed = async () =>
    ((await ci.callTool({ name: 'kit.subscribed', arguments: {} })).content as { text: string }[])[0]!.text;
  await eventually('the public URI watched', async () => (await subscribed()).includes('docs://public/readme'));
  // Asked first, the private URI would have reached the plugin first.
  t.equal(await subscribed(), 'docs://public/readme', 'the plugin was never asked to watch the denied URI');
});

t.test('a rule that gives a list empty allows nothing of that kind, not everything', async (t) => {
  const ws = makeWorkspace(t);
  // Each token is given one list empty and the others not: what an empty list allows shows against the rest.
  const file = ws.writeConfig(
    configText(ws, [
      { who: { token: 'alice' }, tools: [], prompts: ['clock.*'], resources: [] },
      { who: { token: 'ci' }, tools: ['clock.now'], prompts: [], resources: ['note://**'] },
    ]),
  );
  const host = await startHttpHost(t, file, { env: { MCP_HOST_HTTP_TOKENS: undefined } });
  const alice = await connect(host.url, ALICE, 'legacy');
  const ci = await connect(host.url, CI, 'modern');
  t.teardown(() => Promise.all([alice.close(), ci.close()]));

  t.same((await alice.listTools()).tools, [], 'tools: [] lists no tool');
  t.same((await alice.listResources()).resources, [], 'resources: [] lists no resource');
  t.same((await alice.listResourceTemplates()).resourceTemplates, [], 'nor any template');
  t.same(
    (await alice.listPrompts()).prompts.map((prompt) => prompt.name),
    ['clock.plan_meeting'],
    'the list the rule gives is served',
  );
  t.match(await refusal(alice.callTool({ name: 'clock.now', arguments: {} })), {
    code: -32602,
    message: /^Unknown tool "clock\.now": no mounted plugin serves it/,
  });
  t.match(await refusal(alice.readResource({ uri: 'clock://zones' })), {
    message: /^Resource not found: "clock:\/\/zones"/,
  });

  t.same((await ci.listPrompts()).prompts, [], 'prompts: [] lists no prompt');
  t.match(await refusal(ci.getPrompt({ name: 'clock.plan_meeting', arguments: {} })), {
    message: /^Unknown prompt "clock\.plan_meeting": no mounted plugin serves it/,
  });
  t.same(
    (await ci.listTools()).tools.map((tool) => tool.name),
    ['clock.now'],
  );
});

t.test("audit: a call's arguments stay out of its record unless recordArguments is true", async (t) => {
  const ws = makeWorkspace(t);
  const file = ws.writeConfig({
    reload: { watch: false },
    plugins: [{ package: '@mcp-host/clock' }],
    audit: { file: './logs/audit.log' },
  });
  const host = await startStdioHost(t, file);
  await host.client.callTool({ name: 'clock.now', arguments: { zone: 'Europe/Paris' } });
  await host.client.close();
  await host.until('the host to exit', () => !alive(host.pid));
  const text = readFileSync(join(ws.dir, 'logs/audit.log'), 'utf8');
  const [record, ...others] = text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  t.same(others, [], 'one record');
  t.match(record, { method: 'tools/call', target: 'clock.now', outcome: 'ok' });
  t.notOk('arguments' in record!, 'the record carries no arguments');
  t.notMatch(text, 'Europe/Paris', 'nor their values anywhere');
});

t.test('identities matched by different rules never share a view, whatever the rules’ indexes', async (t) => {
  const ws = makeWorkspace(t);
  // Views are cached by the indexes of the rules that matched: alice's 1 and 2 must not be taken for ci's 12.
  const nobody = { who: { token: 'nobody' }, tools: ['clock.list_time_zones'] };
  const rules = Array.from({ length: 13 }, () => nobody);
  rules[1] = { who: { token: 'alice' }, tools: ['notes.list_notes'] };
  rules[2] = { who: { token: 'alice' }, tools: ['notes.read_note'] };
  rules[12] = { who: { token: 'ci' }, tools: ['clock.now'] };
  const host = await startHttpHost(t, ws.writeConfig(configText(ws, rules)), {
    env: { MCP_HOST_HTTP_TOKENS: undefined },
  });
  const alice = await connect(host.url, ALICE, 'legacy');
  const ci = await connect(host.url, CI, 'legacy');
  t.teardown(() => Promise.all([alice.close(), ci.close()]));
  const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();
  t.same(await names(alice), ['notes.list_notes', 'notes.read_note']);
  t.same(await names(ci), ['clock.now'], 'ci sees what rule 12 allows, not what rules 1 and 2 allow');
});
