// Curation (DESIGN.md, "Curation"): what of a mount is served. The host runs
// as a child process with real plugin packages; curated-out items must not
// exist for clients on any path, and curation edits reload like any edit.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import t from 'tap';
import type { Client } from '@modelcontextprotocol/client';
import { assertLogged, runCli, startStdioHost, type Teardown } from './helpers/host.js';
import { controlEnv, makeWorkspace, type Workspace } from './helpers/packages.js';
import { firstText } from './helpers/results.js';

t.setTimeout(300_000);

/** A v2 plugin with tools worth curating, prompts, resources, templates, completions and subscriptions. */
const KIT = `
import { McpServer, ResourceTemplate, completable } from '@modelcontextprotocol/server';
import { z } from 'zod';

const text = (text) => ({ content: [{ type: 'text', text }] });
export default {
  create() {
    const server = new McpServer({ name: 'kit', version: '1.0.0' }, { capabilities: { resources: { subscribe: true } } });
    for (const name of ['issue_create', 'issue_delete', 'pr_list', 'search', 'admin_reset']) {
      server.registerTool(name, { description: name + ' of kit' }, async () => text('kit ran ' + name));
    }
    let count = 0;
    server.registerTool('count', { description: 'Count calls' }, async () => text(String(++count)));
    const topic = completable(z.string(), (v) => ['billing', 'bugs'].filter((n) => n.startsWith(v ?? '')));
    for (const name of ['summary', 'draft']) {
      server.registerPrompt(name, { argsSchema: z.object({ topic }) }, async ({ topic }) => ({
        messages: [{ role: 'user', content: { type: 'text', text: name + ' of ' + topic } }],
      }));
    }
    for (const uri of ['docs://public/readme', 'docs://private/keys']) {
      server.registerResource(uri, uri, {}, async (u) => ({ contents: [{ uri: u.href, text: 'read ' + u.href }] }));
    }
    for (const area of ['public', 'private']) {
      server.registerResource(
        area + '-page',
        new ResourceTemplate('docs://' + area + '/pages/{name}', { list: undefined, complete: { name: () => ['intro', 'faq'] } }),
        {},
        async (u) => ({ contents: [{ uri: u.href, text: 'page ' + u.href }] }),
      );
    }
    server.server.setRequestHandler('resources/subscribe', async () => ({}));
    server.server.setRequestHandler('resources/unsubscribe', async () => ({}));
    return server;
  },
};
`;

/** A plugin with one tool per name, each answering its plugin and name. */
function toolPlugin(ws: Workspace, name: string, tools: string[], prefix = name): void {
  const register = tools
    .map(
      (tool) =>
        `server.registerTool('${tool}', {}, async () => ({ content: [{ type: 'text', text: '${name} ${tool}' }] }));`,
    )
    .join('\n    ');
  ws.writePackage(`node_modules/@t/${name}`, manifest(`@t/${name}`, prefix), {
    'index.js': `import { McpServer } from '@modelcontextprotocol/server';
export default {
  create() {
    const server = new McpServer({ name: '${name}', version: '1.0.0' });
    ${register}
    return server;
  },
};
`,
  });
}

function manifest(name: string, prefix: string): Record<string, unknown> {
  return { name, version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': { prefix } };
}

function kitWorkspace(t: Teardown): Workspace {
  const ws = makeWorkspace(t);
  ws.writePackage('node_modules/@t/kit', manifest('@t/kit', 'kit'), { 'index.js': KIT });
  return ws;
}

/** The curation of DESIGN.md's example, on the kit. */
const KIT_CURATED = {
  package: '@t/kit',
  prefix: 'kit',
  tools: {
    include: ['issue_*', 'pr_*', 'search', 'count'],
    exclude: ['*_delete'],
    rename: { search: 'search_code' },
    describe: { search: 'Search code' },
  },
  prompts: { exclude: ['draft'], rename: { summary: 'summarize' } },
  resources: { include: ['docs://public/**'] },
};

async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name);
}

t.test('include, exclude, rename and describe on tools and prompts; URI globs on resources', async (t) => {
  const ws = kitWorkspace(t);
  const host = await startStdioHost(t, ws.writeConfig({ plugins: [KIT_CURATED] }));
  const { client } = host;

  const { tools } = await client.listTools();
  t.same(
    tools.map((tool) => tool.name),
    ['kit.issue_create', 'kit.pr_list', 'kit.search_code', 'kit.count'],
  );
  t.equal(tools.find((tool) => tool.name === 'kit.search_code')?.description, 'Search code', 'described');
  t.equal(tools.find((tool) => tool.name === 'kit.pr_list')?.description, 'pr_list of kit', 'others keep theirs');
  t.equal(firstText(await client.callTool({ name: 'kit.search_code', arguments: {} })), 'kit ran search');

  t.same(
    (await client.listPrompts()).prompts.map((prompt) => prompt.name),
    ['kit.summarize'],
  );
  const prompt = await client.getPrompt({ name: 'kit.summarize', arguments: { topic: 'bugs' } });
  t.same(prompt.messages[0]?.content, { type: 'text', text: 'summary of bugs' });

  t.same(
    (await client.listResources()).resources.map((resource) => resource.uri),
    ['docs://public/readme'],
  );
  t.same(
    (await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate),
    ['docs://public/pages/{name}'],
  );
  const page = await client.readResource({ uri: 'docs://public/pages/intro' });
  t.equal((page.contents[0] as { text: string }).text, 'page docs://public/pages/intro');
});

t.test('a curated-out item does not exist for clients, on every path', async (t) => {
  const ws = kitWorkspace(t);
  const { client } = await startStdioHost(t, ws.writeConfig({ plugins: [KIT_CURATED] }));

  for (const name of ['kit.issue_delete', 'kit.admin_reset', 'kit.search']) {
    await t.rejects(
      client.callTool({ name, arguments: {} }),
      {
        code: -32602,
        message: `Unknown tool "${name}": no mounted plugin serves it. Fix: use a name from tools/list.`,
      },
      `tools/call ${name}`,
    );
  }
  for (const name of ['kit.draft', 'kit.summary']) {
    await t.rejects(
      client.getPrompt({ name, arguments: { topic: 'x' } }),
      {
        code: -32602,
        message: new RegExp(`Unknown prompt "${name.replace('.', '\\.')}": no mounted plugin serves it`),
      },
      `prompts/get ${name}`,
    );
    await t.rejects(
      client.complete({ ref: { type: 'ref/prompt', name }, argument: { name: 'topic', value: 'b' } }),
      { code: -32602, message: /Unknown prompt/ },
      `completion/complete on ${name}`,
    );
  }
  const completed = await client.complete({
    ref: { type: 'ref/prompt', name: 'kit.summarize' },
    argument: { name: 'topic', value: 'b' },
  });
  t.same(completed.completion.values, ['billing', 'bugs'], 'a served prompt still completes');
  await t.rejects(
    client.complete({
      ref: { type: 'ref/resource', uri: 'docs://private/pages/{name}' },
      argument: { name: 'name', value: '' },
    }),
    { code: -32602, message: /Cannot complete for "docs:\/\/private\/pages\/\{name\}": no mounted plugin lists/ },
    'completion/complete on a curated-out template',
  );

  for (const uri of ['docs://private/keys', 'docs://private/pages/intro']) {
    await t.rejects(
      client.readResource({ uri }),
      // "Resource not found" (-32002): the SDK sends it to clients of every revision as -32602 with data.uri.
      { code: -32602, message: `Resource not found: "${uri}": no mounted plugin serves it.`, data: { uri } },
      `resources/read ${uri}`,
    );
  }
  await t.rejects(
    client.subscribeResource({ uri: 'docs://private/keys' }),
    { code: -32602, message: /Cannot subscribe to "docs:\/\/private\/keys": no mounted plugin/ },
    'resources/subscribe',
  );
  t.same(await client.subscribeResource({ uri: 'docs://public/readme' }), {}, 'a served resource subscribes');
});

/**
 * A stdio server with tools "search" and "other", as a child process: it
 * appends the name of each tool it runs to CALLS, and exits at once, as
 * a server that cannot start, while the file BROKEN exists.
 */
const RESTARTABLE = `
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const [calls, broken, pidFile] = process.argv.slice(2);
if (existsSync(broken)) process.exit(1);
writeFileSync(pidFile, String(process.pid));
const server = new McpServer({ name: 'restartable', version: '1.0.0' });
for (const name of ['search', 'other']) {
  server.registerTool(name, {}, async () => {
    appendFileSync(calls, name + '\\n');
    return { content: [{ type: 'text', text: 'ran ' + name }] };
  });
}
await server.connect(new StdioServerTransport());
`;

t.test("a renamed tool's old name is unknown, and stays unknown while its mount is down", async (t) => {
  const ws = makeWorkspace(t);
  const [calls, broken, pidFile] = ['calls.txt', 'broken', 'server.pid'].map((name) => `${ws.dir}/${name}`) as [
    string,
    string,
    string,
  ];
  const script = ws.writeFile('server/index.js', RESTARTABLE);
  const config = ws.writeConfig({
    reload: { watch: false },
    upstreams: { reconnectDelayMs: 100, maxReconnectDelayMs: 400 },
    plugins: [
      {
        command: process.execPath,
        args: [script, calls, broken, pidFile],
        prefix: 'kit',
        tools: { rename: { search: 'search_code' } },
      },
    ],
  });
  const host = await startStdioHost(t, config);
  const { client } = host;
  const unknown = {
    code: -32602,
    message: 'Unknown tool "kit.search": no mounted plugin serves it. Fix: use a name from tools/list.',
  };
  t.same(await toolNames(client), ['kit.search_code', 'kit.other']);
  t.equal(firstText(await client.callTool({ name: 'kit.search_code', arguments: {} })), 'ran search');
  await t.rejects(client.callTool({ name: 'kit.search', arguments: {} }), unknown, 'up: the old name is unknown');

  // Down, and kept down: its restarts exit at once.
  writeFileSync(broken, '');
  process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
  await host.until('the tools withdrawn', () => host.notified.tools === 1);
  await t.rejects(
    client.callTool({ name: 'kit.search_code', arguments: {} }),
    { message: /plugin "kit" \(.*\): is down: / },
    'down: the new name is refused naming the mount and its state',
  );
  await t.rejects(client.callTool({ name: 'kit.search', arguments: {} }), unknown, 'down: the old name is unknown');

  rmSync(broken);
  await host.until('the tools back', () => host.notified.tools === 2);
  await t.rejects(client.callTool({ name: 'kit.search', arguments: {} }), unknown, 'back up: still unknown');
  t.equal(readFileSync(calls, 'utf8'), 'search\n', 'the plugin ran search once: for its new name');
});

t.test('a flat collision is fixed by excluding one side; a glob that matches nothing warns', async (t) => {
  const ws = makeWorkspace(t);
  toolPlugin(ws, 'one', ['same', 'only_one']);
  toolPlugin(ws, 'two', ['same', 'only_two']);
  const colliding = ws.writeConfig({
    plugins: [
      { package: '@t/one', flat: true },
      { package: '@t/two', flat: true },
    ],
  });
  const refused = await runCli(['check', '--config', colliding]);
  t.equal(refused.code, 1);
  t.match(
    refused.stdout,
    'plugin "@t/one" and plugin "@t/two": both expose the tool "same", and a client could not tell them apart. Fix: mount plugin "@t/one" under a prefix (set "prefix" instead of "flat: true" in its config entry), or leave the tool out of one entry (tools.exclude) or rename it there (tools.rename).',
  );

  const fixed = ws.writeConfig({
    plugins: [
      { package: '@t/one', flat: true, tools: { exclude: ['same', 'gone_*'] } },
      { package: '@t/two', flat: true, tools: { describe: { gone: 'Gone' } } },
    ],
  });
  const checked = await runCli(['check', '--config', fixed]);
  t.equal(checked.code, 0, checked.stdout);
  t.match(
    checked.stdout,
    'warning: mcp-host.config.js: plugins[0].tools.exclude: the glob "gone_*" matches no tool name the plugin serves. Fix: correct or remove it (the plugin serves: "same", "only_one").',
  );
  t.match(
    checked.stdout,
    'warning: mcp-host.config.js: plugins[1].tools.describe: "gone" is not a tool name the plugin serves, so this describe does nothing. Fix: use one of the plugin\'s own names, before prefixing (it serves: "same", "only_two").',
  );
  t.match(checked.stdout, 'OK: 3 tools');
  const { client, log } = await startStdioHost(t, fixed);
  t.same(await toolNames(client), ['only_one', 'same', 'only_two']);
  t.equal(firstText(await client.callTool({ name: 'same', arguments: {} })), 'two same');
  // The host's stderr reaches this process when the pipe delivers it: wait for the line, bounded.
  await assertLogged(t, log, 'the glob \\"gone_*\\" matches no tool name', 'the warning is logged too');
});

t.test('a rename onto a name the plugin uses, or onto a bad name, is refused naming both', async (t) => {
  const ws = kitWorkspace(t);
  const config = ws.writeConfig({
    plugins: [
      { package: '@t/kit', prefix: 'kit', tools: { rename: { issue_create: 'pr_list', search: 'find code' } } },
    ],
  });
  const { code, stdout } = await runCli(['check', '--config', config]);
  t.equal(code, 1);
  t.match(
    stdout,
    'plugin "kit" (@t/kit): its tools "issue_create" and "pr_list" would both be served as "kit.pr_list" (by tools.rename), and a client could not tell them apart. Fix: rename one of them to a name the plugin does not use, or exclude one (tools.exclude).',
  );
  t.match(
    stdout,
    `plugin "kit" (@t/kit): tool "search" is exposed as "kit.find code", which has characters outside the spec's tool-name set [A-Za-z0-9_.-]. Fix: change its rename in the entry's tools.rename using only letters, digits, "_", "-" and ".".`,
  );
});

t.test('curation keys are validated like every other key', async (t) => {
  const ws = kitWorkspace(t);
  const config = ws.writeConfig({
    plugins: [
      {
        package: '@t/kit',
        prefix: 'kit',
        tools: { include: 'issue_*', rename: { search: 3 } },
        resources: { rename: { a: 'b' } },
      },
    ],
    pins: 'strict',
    shortenNames: 'yes',
  });
  const { code, stdout } = await runCli(['check', '--config', config]);
  t.equal(code, 1);
  t.match(
    stdout,
    'mcp-host.config.js: plugins[0].tools.include: expected an array of non-empty strings, got "issue_*". Fix: e.g. include: ["issue_*", "search"].',
  );
  t.match(
    stdout,
    'mcp-host.config.js: plugins[0].tools.rename: expected an object whose values are strings, got an object. Fix: e.g. rename: { search: "search_code" }.',
  );
  t.match(stdout, 'mcp-host.config.js: plugins[0].resources.rename: unknown key "rename".');
  t.match(stdout, `mcp-host.config.js: pins: expected "warn" or "refuse", got "strict".`);
  t.match(stdout, 'mcp-host.config.js: shortenNames: expected true or false, got "yes".');
});

t.test('a curation edit reloads with exactly one tools/list_changed and keeps the plugin instance', async (t) => {
  const ws = kitWorkspace(t);
  const entry = { package: '@t/kit', prefix: 'kit', tools: { include: ['count', 'pr_list', 'search'] } };
  const config = ws.writeConfig({ reload: { watch: false }, plugins: [entry] });
  const env = controlEnv(ws);
  const host = await startStdioHost(t, config, { env });
  t.equal(firstText(await host.client.callTool({ name: 'kit.count', arguments: {} })), '1');

  ws.writeConfig({
    reload: { watch: false },
    plugins: [{ ...entry, tools: { ...entry.tools, exclude: ['pr_list'], describe: { search: 'Find' } } }],
  });
  const reload = await runCli(['reload', '--config', config], { env });
  t.equal(reload.code, 0, reload.stderr);
  t.match(reload.stdout, '  tools removed: kit.pr_list\n');
  t.match(reload.stdout, '  tools changed: kit.search\n');
  t.notMatch(reload.stdout, 'plugins replaced', 'curation re-creates no plugin');
  // The host wrote its notifications before answering the reload; a round trip after it has them all.
  t.same(await toolNames(host.client), ['kit.search', 'kit.count']);
  t.same(host.notified, { tools: 1, prompts: 0, resources: 0 }, 'exactly one notification, for tools only');
  t.equal(firstText(await host.client.callTool({ name: 'kit.count', arguments: {} })), '2', 'the same instance');
});

t.test('shortenNames: long names are shortened the same way at every start, and route back', async (t) => {
  const ws = makeWorkspace(t);
  const long = 'summarize_the_quarterly_revenue_report';
  toolPlugin(ws, 'finance', [long, 'short'], 'finance_department');
  const config = ws.writeConfig({
    maxNameLength: 32,
    shortenNames: true,
    plugins: [{ package: '@t/finance' }],
  });
  const names: string[][] = [];
  for (let start = 0; start < 2; start++) {
    const { client } = await startStdioHost(t, config);
    const listed = await toolNames(client);
    names.push(listed);
    const shortened = listed[0]!;
    t.equal(shortened.length, 32);
    t.match(shortened, /^finance_department\.summ_[0-9a-f]{8}$/, 'a readable head and a hash');
    t.equal(firstText(await client.callTool({ name: shortened, arguments: {} })), `finance ${long}`);
    await client.close();
  }
  t.same(names[0], names[1], 'the same names at both starts');
  t.equal(names[0]![1], 'finance_department.short', 'a name that fits is left alone');
  const list = await runCli(['list', '--config', config]);
  t.match(list.stdout, `tools: ${names[0]![0]}, finance_department.short`);
});

t.test('a glob that matches nothing warns for every kind, a stdio server\u2019s resources too', async (t) => {
  const ws = makeWorkspace(t);
  const config = ws.writeConfig({
    plugins: [
      {
        package: '@modelcontextprotocol/server-memory',
        prefix: 'memory',
        // `*` stops at "/": memory://knowledge-graph is matched by `**` or `memory://*`, never by `*`.
        resources: { include: ['*'] },
        prompts: { exclude: ['draft_*'] },
      },
    ],
  });
  const checked = await runCli(['check', '--config', config]);
  t.equal(checked.code, 0, checked.stdout);
  t.match(
    checked.stdout,
    'warning: mcp-host.config.js: plugins[0].resources.include: the glob "*" matches no resource or template URI the plugin serves. Fix: correct or remove it (the plugin serves: "memory://knowledge-graph").',
  );
  t.match(
    checked.stdout,
    'warning: mcp-host.config.js: plugins[0].prompts.exclude: the glob "draft_*" matches no prompt name the plugin serves. Fix: correct or remove it (the plugin serves: none).',
  );
  t.match(checked.stdout, 'OK: 9 tools, 0 prompts, 0 resources, 0 templates from 1 plugin');
});
