// Hot reload, end to end: the host runs as a child process (`mcp-host start`)
// with a real SDK client on its stdio, while the test edits the config and
// the installed plugins on disk, sends SIGHUP, and runs `mcp-host reload`.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  CLI,
  runCli,
  startHttpHost,
  startStdioHost,
  until,
  watchingNotificationStream,
  type CliRun,
  type Teardown,
} from './helpers/host.js';
import { makeWorkspace, type Workspace } from './helpers/packages.js';
import { firstText } from './helpers/results.js';

// Every test here starts a host (and most run `mcp-host reload` too): slower than tap's default allows.
t.setTimeout(300_000);

/** A workspace with the test plugins installed under node_modules and its own control directory. */
function workspace(t: Teardown): Workspace & { env: NodeJS.ProcessEnv } {
  const ws = makeWorkspace();
  t.teardown(ws.cleanup);
  const runtimeDir = join(ws.dir, 'run');
  mkdirSync(runtimeDir, { mode: 0o700 });
  writeCounter(ws);
  writeGreet(ws, '1.0.0', 'hello from v1');
  writeToolPlugin(ws, 'extra', ['alpha', 'beta']);
  writeToolPlugin(ws, 'flat-a', ['same']);
  writeToolPlugin(ws, 'flat-b', ['same']);
  ws.writePackage('node_modules/@t/slow', manifest('@t/slow', 'slow'), {
    'index.js': `import { writeFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
export default {
  create({ options }) {
    const server = new McpServer({ name: 'slow', version: '1.0.0' });
    server.registerTool('wait', { description: 'Wait, then answer.', inputSchema: z.object({ ms: z.number() }) },
      async ({ ms }) => {
        if (options.startedFile) writeFileSync(options.startedFile, '');
        await new Promise((r) => setTimeout(r, ms));
        return { content: [{ type: 'text', text: 'waited ' + ms + ' ms' }] };
      });
    return server;
  },
};
`,
  });
  writeGauge(ws, '1.0.0');
  ws.writePackage('node_modules/@t/broken', manifest('@t/broken', 'broken'), {
    'index.js': `export default { create() { throw new Error('missing API key: set options.key'); } };\n`,
  });
  return Object.assign(ws, { env: { ...process.env, XDG_RUNTIME_DIR: runtimeDir, MCP_HOST_LOG_LEVEL: 'debug' } });
}

function manifest(name: string, prefix: string, version = '1.0.0'): Record<string, unknown> {
  return { name, version, type: 'module', exports: './index.js', 'mcp-host': { prefix } };
}

/** A plugin whose tools answer their own name. */
function writeToolPlugin(ws: Workspace, name: string, tools: string[]): void {
  const register = tools
    .map(
      (tool) =>
        `server.registerTool('${tool}', { description: '${tool} of ${name}' }, async () => text('${name}.${tool}'));`,
    )
    .join('\n    ');
  ws.writePackage(`node_modules/@t/${name}`, manifest(`@t/${name}`, name), {
    'index.js': `import { McpServer } from '@modelcontextprotocol/server';
const text = (text) => ({ content: [{ type: 'text', text }] });
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

/** A plugin with state: its count survives a reload only if its instance does. */
function writeCounter(ws: Workspace): void {
  ws.writePackage('node_modules/@t/counter', manifest('@t/counter', 'counter'), {
    'index.js': `import { McpServer } from '@modelcontextprotocol/server';
export default {
  create() {
    let count = 0;
    const server = new McpServer({ name: 'counter', version: '1.0.0' });
    server.registerTool('increment', { description: 'Add one.' }, async () => ({ content: [{ type: 'text', text: String(++count) }] }));
    return server;
  },
};
`,
  });
}

/** A plugin with a resource clients can subscribe to; `watched` says what the host subscribed it to. */
function writeGauge(ws: Workspace, version: string): void {
  ws.writePackage('node_modules/@t/gauge', manifest('@t/gauge', 'gauge', version), {
    'index.js': `import { McpServer } from '@modelcontextprotocol/server';
const text = (text) => ({ content: [{ type: 'text', text }] });
export default {
  create() {
    const server = new McpServer({ name: 'gauge', version: '${version}' }, { capabilities: { resources: { subscribe: true } } });
    const watched = new Set();
    let level = 0;
    server.registerResource('level', 'gauge://level', { mimeType: 'text/plain' }, async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: String(level) }],
    }));
    server.server.setRequestHandler('resources/subscribe', async (request) => (watched.add(request.params.uri), {}));
    server.server.setRequestHandler('resources/unsubscribe', async (request) => (watched.delete(request.params.uri), {}));
    server.registerTool('bump', { description: 'Raise the level (${version}).' }, async () => {
      level += 1;
      if (watched.has('gauge://level')) await server.server.sendResourceUpdated({ uri: 'gauge://level' });
      return text(String(level));
    });
    server.registerTool('watched', { description: 'What the host subscribed to.' }, async () => text([...watched].join(',') || 'nothing'));
    return server;
  },
};
`,
  });
}

/** A plugin whose answer lives in a second file of the package, so an upgrade must reach past the entry. */
function writeGreet(ws: Workspace, version: string, greeting: string, relDir = 'node_modules/@t/greet'): string {
  return ws.writePackage(relDir, manifest('@t/greet', 'greet', version), {
    'index.js': `import { McpServer } from '@modelcontextprotocol/server';
import { greeting } from './lib.js';
export default {
  create() {
    const server = new McpServer({ name: 'greet', version: '${version}' });
    server.registerTool('hello', { description: 'Greet (${version}).' }, async () => ({ content: [{ type: 'text', text: greeting }] }));
    return server;
  },
};
`,
    'lib.js': `export const greeting = ${JSON.stringify(greeting)};\n`,
  });
}

/** Write the config mounting these test plugins (by name) with quick reload settings. */
function writeConfig(
  ws: Workspace,
  plugins: (string | Record<string, unknown>)[],
  extra: Record<string, unknown> = {},
  fileName?: string,
) {
  const entries = plugins.map((plugin) => (typeof plugin === 'string' ? { package: `@t/${plugin}` } : plugin));
  const { reload, ...rest } = extra;
  return ws.writeConfig({ plugins: entries, reload: { debounceMs: 50, ...(reload as object) }, ...rest }, fileName);
}

/** The slow plugin, telling the test (by a file) when a call has reached it. */
function slowEntry(ws: Workspace): Record<string, unknown> {
  return { package: '@t/slow', options: { startedFile: join(ws.dir, 'slow.started') } };
}

/** Until a call has reached the slow plugin: only then does a reload find it running. */
function untilStarted(ws: Workspace): Promise<void> {
  return until('the call to reach the plugin', () => existsSync(join(ws.dir, 'slow.started')));
}

/** `mcp-host reload` as an admin runs it. */
function runReload(ws: { env: NodeJS.ProcessEnv }, configFile: string): Promise<CliRun> {
  return runCli(['reload', '--config', configFile], { env: ws.env });
}

async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name).sort();
}

async function callText(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  return firstText(await client.callTool({ name, arguments: args }));
}

/** The number of times the host logged `text`. */
function count(log: string, text: string): number {
  return log.split(text).length - 1;
}

/** Long enough for a second, unwanted notification to arrive after the first. */
const SETTLE_MS = 400;

t.test(
  'adding a plugin: one tools/list_changed, the new tools listed, unchanged plugins keep their state',
  async (t) => {
    const ws = workspace(t);
    const config = writeConfig(ws, ['counter']);
    const host = await startStdioHost(t, config, { env: ws.env });
    t.equal(await callText(host.client, 'counter.increment'), '1');

    // Saved as vim does: a new file renamed over the old one.
    renameSync(writeConfig(ws, ['counter', 'extra'], {}, 'mcp-host.config.js.new'), config);
    await host.until('tools/list_changed', () => host.notified.tools === 1);
    t.same(await toolNames(host.client), ['counter.increment', 'extra.alpha', 'extra.beta']);
    t.equal(await callText(host.client, 'extra.alpha'), 'extra.alpha');
    t.equal(await callText(host.client, 'counter.increment'), '2', 'the counter is the same instance');
    await sleep(SETTLE_MS);
    t.same(host.notified, { tools: 1, prompts: 0, resources: 0 }, 'exactly one notification, for tools only');

    // The file that replaced the old one is watched too.
    writeConfig(ws, ['counter', 'extra', 'greet']);
    await host.until('the second tools/list_changed', () => host.notified.tools === 2);
    t.same(await toolNames(host.client), ['counter.increment', 'extra.alpha', 'extra.beta', 'greet.hello']);
  },
);

t.test('removing a plugin with mcp-host reload: its tools are gone and the command says what changed', async (t) => {
  const ws = workspace(t);
  const config = writeConfig(ws, ['counter', 'extra'], { reload: { watch: false } });
  const host = await startStdioHost(t, config, { env: ws.env });
  writeConfig(ws, ['counter'], { reload: { watch: false } });
  const { code, stdout } = await runReload(ws, config);
  t.equal(code, 0);
  t.match(stdout, /reloaded in [\d.]+ ms, generation \d+ is live/);
  t.match(stdout, '  plugins removed: extra\n');
  t.match(stdout, '  tools removed: extra.alpha, extra.beta\n');
  t.match(stdout, '  clients notified: tools\n');
  await host.until('tools/list_changed', () => host.notified.tools === 1);
  t.same(await toolNames(host.client), ['counter.increment']);
  await t.rejects(host.client.callTool({ name: 'extra.alpha', arguments: {} }), /extra\.alpha/);
});

t.test('an npm upgrade (the package directory replaced, new version) runs the new code, lib files too', async (t) => {
  const ws = workspace(t);
  const config = writeConfig(ws, ['counter', 'greet']);
  const host = await startStdioHost(t, config, { env: ws.env });
  t.equal(await callText(host.client, 'greet.hello'), 'hello from v1');
  t.equal(await callText(host.client, 'counter.increment'), '1');

  // As npm does it: the new version is extracted beside, the old directory moved away.
  const installed = join(ws.dir, 'node_modules/@t/greet');
  writeGreet(ws, '2.0.0', 'hello from v2', 'node_modules/@t/.greet-staged');
  renameSync(installed, join(ws.dir, 'node_modules/@t/.greet-retired'));
  renameSync(join(ws.dir, 'node_modules/@t/.greet-staged'), installed);
  rmSync(join(ws.dir, 'node_modules/@t/.greet-retired'), { recursive: true });

  await host.until('tools/list_changed', () => host.notified.tools === 1);
  t.equal(await callText(host.client, 'greet.hello'), 'hello from v2');
  t.equal(await callText(host.client, 'counter.increment'), '2', 'the unchanged plugin kept its state');
  const { stdout } = await runReload(ws, config);
  t.match(stdout, 'nothing changed', 'the watch already took the upgrade');

  // And again, in place this time: the re-armed watch sees the new directory.
  writeGreet(ws, '3.0.0', 'hello from v3');
  await host.until('the second upgrade', () => host.notified.tools === 2);
  t.equal(await callText(host.client, 'greet.hello'), 'hello from v3');
});

t.test('a replaced plugin is subscribed again to the resources clients follow', async (t) => {
  const ws = workspace(t);
  const config = writeConfig(ws, ['gauge']);
  const host = await startStdioHost(t, config, { env: ws.env });
  const updated: string[] = [];
  host.client.setNotificationHandler('notifications/resources/updated', (n) => void updated.push(n.params.uri));
  await host.client.subscribeResource({ uri: 'gauge://level' });
  t.equal(await callText(host.client, 'gauge.watched'), 'gauge://level');

  writeGauge(ws, '2.0.0');
  await host.until('tools/list_changed', () => host.notified.tools === 1);
  t.equal(await callText(host.client, 'gauge.watched'), 'gauge://level', 'the new instance was subscribed');
  t.equal(await callText(host.client, 'gauge.bump'), '1', 'it is the new instance');
  await host.until('resources/updated', () => updated.length === 1);
  t.same(updated, ['gauge://level']);
});

t.test('a whitespace-only edit reloads and notifies nobody', async (t) => {
  const ws = workspace(t);
  const config = writeConfig(ws, ['counter', 'extra']);
  const host = await startStdioHost(t, config, { env: ws.env });
  ws.writeConfig(`\n\n   export default {
    plugins: [ { package: '@t/counter' },   { package: '@t/extra' } ],
    reload: { debounceMs: 50 },
  };\n\n`);
  await host.until('the reload', () => host.log().includes('clients see no change'));
  await sleep(SETTLE_MS);
  t.same(host.notified, { tools: 0, prompts: 0, resources: 0 });
  const { code, stdout } = await runReload(ws, config);
  t.equal(code, 0);
  t.match(stdout, '  nothing changed: clients were not notified\n');
});

t.test('refused reloads keep the live catalogue serving and mcp-host reload exits 1 with the reason', async (t) => {
  const cases: [string, (ws: Workspace) => void, RegExp[]][] = [
    [
      'a syntax error in the config',
      (ws) => ws.writeConfig(`export default {\n  plugins: [ { package: '@t/counter' } ,, }\n};\n`),
      [/mcp-host\.config\.js:2: syntax error/, /Fix: correct line 2/],
    ],
    [
      'a plugin that throws in create',
      (ws) => writeConfig(ws, ['counter', 'broken']),
      [/plugin "@t\/broken"|broken/, /create\(\) threw: missing API key: set options\.key/],
    ],
    [
      'a collision between two flat plugins',
      (ws) => writeConfig(ws, ['counter', { package: '@t/flat-a', flat: true }, { package: '@t/flat-b', flat: true }]),
      [/same/, /@t\/flat-a/, /@t\/flat-b/],
    ],
  ];
  for (const [what, edit, reasons] of cases) {
    await t.test(what, async (t) => {
      const ws = workspace(t);
      const config = writeConfig(ws, ['counter']);
      const host = await startStdioHost(t, config, { env: ws.env });
      t.equal(await callText(host.client, 'counter.increment'), '1');
      edit(ws);
      await host.until('the refusal', () => host.log().includes('reload refused'));
      const { code, stdout, stderr } = await runReload(ws, config);
      t.equal(code, 1, 'mcp-host reload exits 1');
      t.equal(stdout, '');
      t.match(stderr, /reload refused \((a problem|\d problems)\); generation 1 keeps serving unchanged/);
      for (const reason of reasons) t.match(stderr, reason);
      t.same(await toolNames(host.client), ['counter.increment'], 'the old catalogue answers');
      t.equal(await callText(host.client, 'counter.increment'), '2', 'with the same instance');
      t.same(host.notified, { tools: 0, prompts: 0, resources: 0 }, 'nobody was told of a change');

      // Fixing the config is taken at once.
      writeConfig(ws, ['counter', 'extra']);
      await host.until('the fixed config', () => host.notified.tools === 1);
      t.same(await toolNames(host.client), ['counter.increment', 'extra.alpha', 'extra.beta']);
    });
  }
});

t.test('a call started before a reload that removes its plugin still returns its result', async (t) => {
  const ws = workspace(t);
  const config = writeConfig(ws, ['counter', slowEntry(ws)], { reload: { watch: false } });
  const host = await startStdioHost(t, config, { env: ws.env });
  const call = callText(host.client, 'slow.wait', { ms: 1500 });
  await untilStarted(ws);
  writeConfig(ws, ['counter'], { reload: { watch: false } });
  const { code, stdout } = await runReload(ws, config);
  t.equal(code, 0);
  t.match(stdout, 'plugins removed: slow');
  t.equal(host.notified.tools, 1, 'clients were told before the old call finished');
  t.same(await toolNames(host.client), ['counter.increment'], 'new calls see the new catalogue');
  t.equal(await call, 'waited 1500 ms');
});

t.test('a call still running at the drain timeout is cancelled with an error that says why', async (t) => {
  const ws = workspace(t);
  const settings = { reload: { watch: false, drainTimeoutMs: 300 } };
  const config = writeConfig(ws, ['counter', slowEntry(ws)], settings);
  const host = await startStdioHost(t, config, { env: ws.env });
  const call = callText(host.client, 'slow.wait', { ms: 10_000 });
  await untilStarted(ws);
  writeConfig(ws, ['counter'], settings);
  t.equal((await runReload(ws, config)).code, 0);
  const started = Date.now();
  await t.rejects(call, {
    code: -32001,
    message:
      'mcp-host cancelled tools/call on mount "slow": a reload removed or replaced this plugin, and the call was still running at the drain timeout (reload.drainTimeoutMs, 300 ms). Fix: raise reload.drainTimeoutMs in the host config.',
  });
  t.ok(Date.now() - started < 2000, 'the call ends at the drain timeout');
});

t.test('SIGHUP reloads; a burst of SIGHUPs coalesces', async (t) => {
  const ws = workspace(t);
  const config = writeConfig(ws, ['counter'], { reload: { watch: false } });
  const host = await startStdioHost(t, config, { env: ws.env });
  writeConfig(ws, ['counter', 'extra'], { reload: { watch: false } });
  await sleep(SETTLE_MS);
  t.equal(host.notified.tools, 0, 'the watch is off');
  process.kill(host.pid, 'SIGHUP');
  await host.until('tools/list_changed', () => host.notified.tools === 1);
  t.same(await toolNames(host.client), ['counter.increment', 'extra.alpha', 'extra.beta']);

  writeConfig(ws, ['counter', 'greet'], { reload: { watch: false } });
  for (let i = 0; i < 5; i++) process.kill(host.pid, 'SIGHUP');
  await host.until('the burst to settle', () => count(host.log(), 'reloaded (SIGHUP)') >= 2);
  await sleep(SETTLE_MS);
  t.ok(count(host.log(), 'reloading (SIGHUP)') <= 3, 'five signals made at most two reloads after the first');
  t.same(await toolNames(host.client), ['counter.increment', 'greet.hello']);
  t.equal(host.notified.tools, 2, 'one notification for the burst');
});

t.test('a burst of five saves ends at the latest config, with one notification', async (t) => {
  const ws = workspace(t);
  const config = writeConfig(ws, ['counter']);
  const host = await startStdioHost(t, config, { env: ws.env });
  const versions = [
    ['counter', 'greet'],
    ['counter', 'slow'],
    ['greet'],
    ['counter', 'greet', 'slow'],
    ['counter', 'extra'],
  ];
  for (const plugins of versions) {
    writeConfig(ws, plugins);
    await sleep(10);
  }
  await host.until('tools/list_changed', () => host.notified.tools >= 1);
  await sleep(SETTLE_MS);
  t.same(await toolNames(host.client), ['counter.increment', 'extra.alpha', 'extra.beta']);
  t.equal(host.notified.tools, 1);
  t.equal(count(host.log(), 'reloading (changed on disk'), 1, 'one reload for five saves');
});

t.test('a cursor from before a reload is refused with -32602', async (t) => {
  const ws = workspace(t);
  const config = writeConfig(ws, ['counter', 'extra'], { pageSize: 1 });
  const host = await startStdioHost(t, config, { env: ws.env });
  // One page, as a client paging by hand sees it (listTools() without a cursor would walk them all).
  const first = await host.client.request({ method: 'tools/list', params: {} });
  t.ok(first.nextCursor, 'the first page has a cursor');
  writeConfig(ws, ['counter', 'extra', 'greet'], { pageSize: 1 });
  await host.until('tools/list_changed', () => host.notified.tools === 1);
  await t.rejects(host.client.request({ method: 'tools/list', params: { cursor: first.nextCursor } }), {
    code: -32602,
    message: /Expired cursor: the catalogue was reloaded since this listing began/,
  });
});

t.test('mcp-host reload when no host runs the config says so and exits 1', async (t) => {
  const ws = workspace(t);
  const config = writeConfig(ws, ['counter']);
  let result = await runReload(ws, config);
  t.equal(result.code, 1);
  t.match(result.stderr, `mcp-host: ${config}: no running mcp-host serves this config.`);
  t.match(result.stderr, `Fix: start one (mcp-host start --config ${config})`);

  // A host killed outright leaves its socket behind; it is recognized as dead and removed.
  // (No client on it: the kill is the point, not a client's view of it.)
  const child = spawn(process.execPath, [CLI, 'start', '--config', config], {
    env: ws.env,
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let log = '';
  await new Promise<void>((resolve) =>
    child.stderr.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes('serving')) resolve();
    }),
  );
  const sockets = readdirSync(join(ws.dir, 'run/mcp-host'));
  t.equal(sockets.length, 1, 'the host listens on one socket');
  child.kill('SIGKILL');
  await once(child, 'exit');
  result = await runReload(ws, config);
  t.same(readdirSync(join(ws.dir, 'run/mcp-host')), [], 'the dead host\u2019s socket was removed');
  t.equal(result.code, 1);
  t.match(result.stderr, 'no running mcp-host serves this config');

  result = await runReload(ws, join(ws.dir, 'missing.config.js'));
  t.equal(result.code, 1);
  t.match(result.stderr, 'the config file does not exist, so no host can be running it');
});

t.test('the control directory must be private to the user', async (t) => {
  const ws = workspace(t);
  const config = writeConfig(ws, ['counter']);
  const shared = join(ws.dir, 'shared-run');
  mkdirSync(join(shared, 'mcp-host'), { recursive: true, mode: 0o755 });
  const result = await runReload({ env: { ...ws.env, XDG_RUNTIME_DIR: shared } }, config);
  t.equal(result.code, 1);
  t.match(result.stderr, `${join(shared, 'mcp-host')}: the control directory is not private to this user`);
  t.match(result.stderr, 'mode 755');
});

t.test('over HTTP, clients of both eras each hear one list_changed per reload that changes their tools', async (t) => {
  const ws = workspace(t);
  const config = writeConfig(ws, ['counter', 'greet']);
  const host = await startHttpHost(t, config, { env: ws.env });
  const heard = { legacyA: 0, legacyB: 0, modern: 0 };
  const connect = async (name: keyof typeof heard, modern: boolean) => {
    const client = new Client(
      { name, version: '1.0.0' },
      modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
    );
    client.setNotificationHandler('notifications/tools/list_changed', () => void heard[name]++);
    const stream = watchingNotificationStream();
    await client.connect(new StreamableHTTPClientTransport(new URL(host.url), { fetch: stream.fetch }));
    t.teardown(() => client.close());
    // A legacy session hears notifications on its GET stream, opened after connect.
    if (!modern) await stream.opened;
    return client;
  };
  const legacyA = await connect('legacyA', false);
  await connect('legacyB', false);
  const modern = await connect('modern', true);
  const listening = await modern.listen({ toolsListChanged: true });
  t.teardown(() => listening.close());
  const untilHeard = (what: string, check: () => boolean) =>
    until(what, check, 10_000, () => `heard ${JSON.stringify(heard)}\n${host.log()}`);
  const everyone = (n: number) => heard.legacyA === n && heard.legacyB === n && heard.modern === n;
  t.equal(await callText(legacyA, 'counter.increment'), '1');

  writeConfig(ws, ['counter', 'greet', 'extra']);
  await untilHeard('the added plugin', () => everyone(1));
  t.same(await toolNames(modern), ['counter.increment', 'extra.alpha', 'extra.beta', 'greet.hello']);
  t.equal(await callText(legacyA, 'counter.increment'), '2', 'the unchanged plugin kept its state');

  ws.writeConfig(`export default {
      plugins: [{ package: '@t/counter' }, { package: '@t/greet' }, { package: '@t/extra' }],
      reload: { debounceMs: 50 },
    };\n`);
  await untilHeard('the whitespace reload', () => count(host.log(), 'clients see no change') === 1);

  ws.writeConfig('export default { plugins: [ ;\n');
  await untilHeard('the refusal', () => host.log().includes('reload refused'));
  const refused = await runReload(ws, config);
  t.equal(refused.code, 1);
  t.match(refused.stderr, /syntax error/);
  t.equal(await callText(modern, 'extra.alpha'), 'extra.alpha', 'the old catalogue answers the modern client');
  t.equal(await callText(legacyA, 'greet.hello'), 'hello from v1', 'and the legacy ones');
  await sleep(SETTLE_MS);
  t.same(heard, { legacyA: 1, legacyB: 1, modern: 1 }, 'neither reload notified anyone');

  writeGreet(ws, '2.0.0', 'hello from v2');
  writeConfig(ws, ['counter', 'greet', 'extra']);
  await untilHeard('the upgrade', () => everyone(2));
  t.equal(await callText(modern, 'greet.hello'), 'hello from v2', 'the new code answers');

  writeConfig(ws, ['counter', 'greet']);
  await untilHeard('the removal', () => everyone(3));
  t.same(await toolNames(legacyA), ['counter.increment', 'greet.hello']);
  await sleep(SETTLE_MS);
  t.same(heard, { legacyA: 3, legacyB: 3, modern: 3 }, 'once each, per reload');
});
