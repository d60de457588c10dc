// Virtual servers (docs/virtual-servers.md): three plugins, three virtual
// servers. Clients of each, over HTTP in both eras and over stdio, list
// exactly its members (tools, prompts, resources, templates, completions),
// get "Unknown tool" for the rest, and are narrowed further by access rules
// (`access explain --server` says which decided); a reload that moves a tool
// from one server to another tells only those two servers' clients, and a
// client of a removed server is told so. The host runs as a child process,
// driven by the SDK's own Client; the plugins are the repository's examples.
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  postInitialize,
  runCli,
  startHttpHost,
  startStdioHost,
  until,
  watchingNotificationStream,
} from './helpers/host.js';
import { controlEnv, makeWorkspace, type Workspace } from './helpers/packages.js';
import { modernClient } from './helpers/cluster.js';
import { ALICE, CI, secretOf } from './helpers/named-tokens.js';

const NOTES_TOOLS = ['add_note', 'delete_note', 'export_notes', 'list_notes', 'read_note', 'search_notes'];
const CLOCK_TOOLS = ['convert_time', 'countdown', 'list_time_zones', 'now'];

const SERVERS = {
  dev: {
    tools: ['notes.*', 'conf.test_simple_text'],
    prompts: ['notes.*'],
    resources: ['notes://**'],
    resourceTemplates: ['note://**'],
    instructions: 'For writing notes.',
  },
  support: { tools: ['clock.*'], prompts: ['clock.*'], resourceTemplates: ['clock://**'], name: 'support-desk' },
  finder: { tools: ['clock.*', 'notes.*'], discovery: { mode: 'search', alwaysVisible: ['clock.now'] } },
};

/** alice may use everything, ci two tools, the stdio client everything. */
const ACCESS = [
  { who: { token: 'alice' }, tools: ['**'], prompts: ['**'], resources: ['**'] },
  { who: { token: 'ci' }, tools: ['notes.list_notes', 'clock.now'] },
  { who: { stdio: true }, tools: ['**'], prompts: ['**'], resources: ['**'] },
];

function configText(
  ws: Workspace,
  {
    servers = SERVERS,
    notesCuration = {},
    access = ACCESS,
  }: { servers?: object; notesCuration?: object; access?: object[] } = {},
): string {
  const config = {
    reload: { watch: true, debounceMs: 50 },
    http: { port: 0, auth: { tokens: [ALICE, CI] } },
    plugins: [
      { package: '@mcp-host/notes', options: { file: join(ws.dir, 'notes.json'), exportDelayMs: 0 }, ...notesCuration },
      { package: '@mcp-host/clock' },
      { package: '@mcp-host/conformance', prefix: 'conf' },
    ],
    servers,
    ...(access.length > 0 && { access }),
  };
  return `export default ${JSON.stringify(config, null, 2)};\n`;
}

async function connect(
  url: string,
  token: string,
  era: 'legacy' | 'modern' = 'legacy',
): Promise<{ client: Client; told: Record<'tools' | 'prompts' | 'resources', number>; opened: Promise<void> }> {
  const client = era === 'modern' ? modernClient() : new Client({ name: 'vs-test', version: '1.0.0' });
  const told = { tools: 0, prompts: 0, resources: 0 };
  for (const list of ['tools', 'prompts', 'resources'] as const) {
    client.setNotificationHandler(`notifications/${list}/list_changed`, () => void told[list]++);
  }
  const watched = watchingNotificationStream();
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      fetch: watched.fetch,
      requestInit: { headers: { authorization: `Bearer ${secretOf(token)}` } },
    }),
  );
  return { client, told, opened: watched.opened };
}

/** The error a request gets, as the client receives it. */
async function refusal(attempt: Promise<unknown>): Promise<{ code?: number; message: string }> {
  try {
    await attempt;
  } catch (error) {
    const { code, message } = error as { code?: number; message: string };
    return { code, message };
  }
  throw new Error('expected a refusal');
}

const toolNames = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();

/** Everything a client is listed, by kind, sorted. */
async function catalogue(client: Client) {
  const has = client.getServerCapabilities() ?? {};
  return {
    tools: has.tools ? await toolNames(client) : 'none',
    prompts: has.prompts ? (await client.listPrompts()).prompts.map((p) => p.name).sort() : 'none',
    resources: has.resources ? (await client.listResources()).resources.map((r) => r.uri).sort() : 'none',
    templates: has.resources
      ? (await client.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate).sort()
      : 'none',
  };
}

const DEV = {
  tools: ['conf.test_simple_text', ...NOTES_TOOLS.map((tool) => `notes.${tool}`)].sort(),
  prompts: ['notes.review_note'],
  resources: ['notes://index'],
  templates: ['note://{id}'],
};
const SUPPORT = {
  tools: CLOCK_TOOLS.map((tool) => `clock.${tool}`),
  prompts: ['clock.plan_meeting'],
  resources: [],
  templates: ['clock://time/{+zone}'],
};

/** What every client of dev or support is checked for: its members, calls outside them, completions. */
async function checkDevAndSupport(t: Test, dev: Client, support: Client, how: string): Promise<void> {
  t.same(await catalogue(dev), DEV, `${how}: dev lists exactly its members`);
  t.same(await catalogue(support), SUPPORT, `${how}: support lists exactly its members`);
  t.match(await refusal(dev.callTool({ name: 'clock.now', arguments: {} })), {
    code: -32602,
    message: /^Unknown tool "clock\.now": no mounted plugin serves it/,
  });
  t.match(await refusal(support.callTool({ name: 'notes.list_notes', arguments: {} })), {
    message: /^Unknown tool "notes\.list_notes"/,
  });
  t.match(await refusal(support.getPrompt({ name: 'notes.review_note', arguments: { id: 'x' } })), {
    message: /^Unknown prompt "notes\.review_note"/,
  });
  t.match(await refusal(dev.readResource({ uri: 'clock://zones' })), { message: /Resource not found/ });
  t.match((await dev.callTool({ name: 'conf.test_simple_text', arguments: {} })).content, [{ type: 'text' }]);
  t.match((await support.callTool({ name: 'clock.now', arguments: {} })).content, [{ type: 'text' }]);
  const zones = await support.complete({
    ref: { type: 'ref/prompt', name: 'clock.plan_meeting' },
    argument: { name: 'zones', value: 'par' },
  });
  t.ok(zones.completion.values.includes('Europe/Paris'), `${how}: support completes its prompt`);
  const focus = await dev.complete({
    ref: { type: 'ref/prompt', name: 'notes.review_note' },
    argument: { name: 'focus', value: 'cla' },
  });
  t.same(focus.completion.values, ['clarity'], `${how}: dev completes its prompt`);
  t.match(
    await refusal(
      dev.complete({
        ref: { type: 'ref/prompt', name: 'clock.plan_meeting' },
        argument: { name: 'zones', value: 'p' },
      }),
    ),
    { message: /^Unknown prompt "clock\.plan_meeting"/ },
  );
  t.match(
    await refusal(
      dev.complete({
        ref: { type: 'ref/resource', uri: 'clock://time/{+zone}' },
        argument: { name: 'zone', value: 'p' },
      }),
    ),
    { code: -32602 },
  );
}

t.test('over HTTP, in both eras, each server lists exactly its members; access rules narrow it further', async (t) => {
  const ws = makeWorkspace(t);
  // A control directory of the test's own, for `mcp-host status`.
  const env = { ...controlEnv(ws), MCP_HOST_HTTP_TOKENS: undefined };
  const host = await startHttpHost(t, ws.writeConfig(configText(ws)), { env });
  for (const era of ['legacy', 'modern'] as const) {
    const { client: dev } = await connect(`${host.url}/dev`, ALICE, era);
    const { client: support } = await connect(`${host.url}/support`, ALICE, era);
    const { client: whole } = await connect(host.url, ALICE, era);
    const { client: ciDev } = await connect(`${host.url}/dev`, CI, era);
    const { client: finder } = await connect(`${host.url}/finder`, ALICE, era);
    t.teardown(() => Promise.all([dev, support, whole, ciDev, finder].map((client) => client.close())));

    t.equal(dev.getServerVersion()?.name, 'mcp-host-dev', `${era}: a server's default name`);
    t.equal(support.getServerVersion()?.name, 'support-desk', `${era}: a server's own name`);
    t.equal(whole.getServerVersion()?.name, 'mcp-host', `${era}: /mcp is the host`);
    t.equal(dev.getInstructions(), 'For writing notes.');
    await checkDevAndSupport(t, dev, support, era);

    t.equal((await toolNames(whole)).length, 45, `${era}: /mcp serves the whole catalogue`);
    t.same(await toolNames(ciDev), ['notes.list_notes'], `${era}: ci at dev: its rules and dev's members, both`);

    // A server of tools alone announces nothing else, and lists them by search (its own discovery).
    const finderHas = finder.getServerCapabilities() ?? {};
    t.ok(finderHas.tools && !finderHas.prompts && !finderHas.resources && !finderHas.completions, `${era}: tools only`);
    t.same(await toolNames(finder), ['clock.now', 'search_tools'], `${era}: finder is served search`);
    const found = await finder.callTool({ name: 'search_tools', arguments: { query: 'simple text note', limit: 50 } });
    const foundNames = (found.structuredContent as { tools: { name: string }[] }).tools.map((tool) => tool.name);
    t.ok(
      foundNames.length > 0 && foundNames.every((name) => /^(notes|clock)\./.test(name)),
      'search finds members only',
    );
  }

  const nowhere = await postInitialize(`${host.url}/nowhere`, { token: secretOf(ALICE) });
  t.equal(nowhere.status, 404);
  t.match(await nowhere.json(), {
    error: 'not_found',
    message:
      'mcp-host serves no virtual server "nowhere" (not in the config\'s servers, or a reload removed it); it serves /mcp/dev, /mcp/support, /mcp/finder and the whole catalogue at /mcp',
  });
  // A session opened at one server's path is no session at another's.
  const opened = await postInitialize(`${host.url}/dev`, { token: secretOf(ALICE) });
  const session = opened.headers.get('mcp-session-id')!;
  const elsewhere = await fetch(`${host.url}/support`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${secretOf(ALICE)}`,
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
  t.equal(elsewhere.status, 404, 'another server path does not serve the session');

  const status = await runCli(['status', '--config', join(ws.dir, 'mcp-host.config.js')], { env });
  t.match(status.stdout, /virtual servers' sessions: dev [1-9]\d*, support [1-9]\d*, finder [1-9]\d*\n/);
});

t.test('over stdio, start --server serves one virtual server', async (t) => {
  const ws = makeWorkspace(t);
  const file = ws.writeConfig(configText(ws));
  const dev = await startStdioHost(t, file, { args: ['--server', 'dev'] });
  const support = await startStdioHost(t, file, { args: ['--server', 'support'] });
  t.equal(dev.client.getServerVersion()?.name, 'mcp-host-dev');
  await checkDevAndSupport(t, dev.client, support.client, 'stdio');

  const unknown = await runCli(['start', '--config', file, '--server', 'nope']);
  t.equal(unknown.code, 1);
  t.match(
    unknown.stderr,
    "servers: --server nope names no virtual server of the config (it has dev, support, finder). Fix: add servers: { nope: { tools: ['…'] } } to the config, or pass --server one of its servers.",
  );
  const overHttp = await runCli(['start', '--config', file, '--server', 'dev', '--http', '0']);
  t.equal(overHttp.code, 2);
  t.match(
    overHttp.stderr,
    "--server names the stdio client's virtual server; over HTTP a client picks one by its path",
  );
  const misplaced = await runCli(['list', '--config', file, '--server', 'dev']);
  t.match(misplaced.stderr, '--server goes with "start" (over stdio) or "access explain"');
});

t.test('access explain --server: what the server leaves out, and what the rules do', async (t) => {
  const ws = makeWorkspace(t);
  const file = ws.writeConfig(configText(ws));
  const ci = await runCli(['access', 'explain', '--config', file, '--token', 'ci', '--server', 'dev']);
  t.equal(ci.code, 0, ci.stderr);
  t.match(ci.stdout, /^identity: token "ci"\nvirtual server: dev \(it sees only the server's members\)\n/);
  t.match(ci.stdout, 'sees (1):\n  tool notes.list_notes  <- access[1] { token: "ci" }\n');
  t.match(ci.stdout, '  tool clock.now  <- not a member of virtual server dev\n');
  t.match(ci.stdout, '  tool notes.add_note  <- no rule for this identity lists it; listed by access[0]');
  const noRules = ws.writeConfig(configText(ws, { access: [] }), 'bare.config.js');
  const anyone = await runCli(['access', 'explain', '--config', noRules, '--server', 'support']);
  t.match(anyone.stdout, "the config sets no access rules: every client sees all of its server's members\nsees (6):\n");
  t.match(anyone.stdout, '  tool clock.now  <- member of virtual server support\n');
  const unknown = await runCli(['access', 'explain', '--config', file, '--server', 'nope']);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, '--server nope names no virtual server of the config (it has dev, support, finder)');
});

t.test("a reload that moves a tool between servers tells those two servers' clients alone", async (t) => {
  const ws = makeWorkspace(t);
  const file = ws.writeConfig(configText(ws));
  const host = await startHttpHost(t, file, { env: { MCP_HOST_HTTP_TOKENS: undefined } });
  const dev = await connect(`${host.url}/dev`, ALICE);
  const support = await connect(`${host.url}/support`, ALICE);
  const whole = await connect(host.url, ALICE);
  const finder = await connect(`${host.url}/finder`, ALICE);
  const stdioFinder = await startStdioHost(t, file, { args: ['--server', 'finder'] });
  const clients = [dev, support, whole, finder];
  t.teardown(() => Promise.all(clients.map(({ client }) => client.close())));
  await Promise.all(clients.map(({ opened }) => opened));

  // clock.now moves from support to dev: finder has both, /mcp everything, and neither list changes.
  const moved = {
    ...SERVERS,
    dev: { ...SERVERS.dev, tools: [...SERVERS.dev.tools, 'clock.now'] },
    support: { ...SERVERS.support, tools: ['clock.convert_time', 'clock.countdown', 'clock.list_time_zones'] },
  };
  writeFileSync(file, configText(ws, { servers: moved }));
  await until('dev and support told', () => dev.told.tools === 1 && support.told.tools === 1, undefined, host.log);
  t.ok((await toolNames(dev.client)).includes('clock.now'));
  t.notOk((await toolNames(support.client)).includes('clock.now'));
  t.match(await refusal(support.client.callTool({ name: 'clock.now', arguments: {} })), {
    message: /^Unknown tool "clock\.now"/,
  });

  // A second reload that /mcp sees (and finder, which then goes): told in order on the same stream, so
  // when /mcp hears it, it would have heard the first one before.
  const withoutFinder = { dev: moved.dev, support: moved.support };
  writeFileSync(
    file,
    configText(ws, { servers: withoutFinder, notesCuration: { tools: { exclude: ['delete_note'] } } }),
  );
  await until('/mcp told of the second reload', () => whole.told.tools === 1, undefined, host.log);
  t.equal(whole.told.tools, 1, '/mcp was not told of the move');
  t.same([whole.told.prompts, whole.told.resources], [0, 0]);
  await until('finder told it changed', () => finder.told.tools >= 1, undefined, host.log);
  // Over HTTP its path is gone: its session's next request is answered 404, saying why.
  t.match(await refusal(finder.client.listTools()), {
    message: /mcp-host serves no virtual server \\"finder\\" \(not in the config's servers, or a reload removed it\)/,
  });
  // Over stdio the client stays connected to the host: each request is answered with why.
  await stdioFinder.until('the stdio finder told', () => stdioFinder.notified.tools >= 1);
  const removed =
    'Virtual server "finder" was removed from the host\'s config by a reload: it serves nothing now. Fix: connect to one of /mcp/dev, /mcp/support or /mcp, or put servers.finder back in the config.';
  t.match(await refusal(stdioFinder.client.listTools()), { code: -32600, message: removed });
  t.match(await refusal(stdioFinder.client.callTool({ name: 'clock.now', arguments: {} })), { message: removed });
  const gone = await postInitialize(`${host.url}/finder`, { token: secretOf(ALICE) });
  t.equal(gone.status, 404, 'the removed server has no path');
  t.equal(support.told.tools, 1, 'support did not hear the second reload: its list did not change');
});
