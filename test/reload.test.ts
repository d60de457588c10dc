// Hot reload, end to end: the host runs as a child process (`mcp-host start`)
// with a real SDK client on its stdio, while the test edits the config and
// the installed plugins on disk, sends SIGHUP, and runs `mcp-host reload`.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  assertLogged,
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
import { EVENT_MS } from './helpers/timing.js';
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
    'index.js': `import { existsSync, writeFileSync } from 'node:fs';
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
    // Held until the test writes options.releaseFile: the call is surely running when the test acts.
    server.registerTool('hold', { description: 'Answer once released.' }, async () => {
      writeFileSync(options.startedFile, '');
      while (!existsSync(options.releaseFile)) await new Promise((r) => setTimeout(r, 10));
      return { content: [{ type: 'text', text: 'released' }] };
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

/** The slow plugin, telling the test (by a file) when a call has reached it, and holding `slow.hold` until released. */
function slowEntry(ws: Workspace): Record<string, unknown> {
  return {
    package: '@t/slow',
    options: { startedFile: join(ws.dir, 'slow.started'), releaseFile: join(ws.dir, 'slow.release') },
  };
}

/** Let a held `slow.hold` call answer. */
function release(ws: Workspace): void {
  writeFileSync(join(ws.dir, 'slow.release'), '');
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

    // The file that replaced the old one is watched too.
    writeConfig(ws, ['counter', 'extra', 'greet']);
    await host.until('the second tools/list_changed', () => host.notified.tools >= 2);
    t.same(await toolNames(host.client), ['counter.increment', 'extra.alpha', 'extra.beta', 'greet.hello']);
    // The second reload is the marker: anything the first one sent came before it.
    await host.client.ping();
    t.same(host.notified, { tools: 2, prompts: 0, resources: 0 }, 'exactly one notification each, for tools only');
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
  await host.client.ping(); // a round trip after the swap: anything it sent has arrived
  t.same(host.notified, { tools: 0, prompts: 0, resources: 0 });
  const { code, stdout } = await runReload(ws, config);
  t.equal(code, 0);
  t.match(stdout, '  nothing changed: clients were not notified\n');
});

t.test('refused reloads keep the live catalogue serving and mcp-host reload exits 1 with the reason', async (t) => {
  // Each case's reasons: every problem of the refusal, each asserted (a string is a part of the output).
  type Reasons = (string | RegExp)[];
  const cases: [string, (ws: Workspace) => void, Reasons | ((ws: Workspace) => Reasons)][] = [
    [
      'a syntax error in the config',
      (ws) => ws.writeConfig(`export default {\n  plugins: [ { package: '@t/counter' } ,, }\n};\n`),
      [/mcp-host\.config\.js:2: syntax error/, /Fix: correct line 2/],
    ],
    [
      'two plugins that are not installed',
      (ws) => writeConfig(ws, ['counter', 'nowhere', 'elsewhere']),
      (ws) => [
        'reload refused (2 problems)',
        `- mcp-host.config.js: plugins[1].package: the package "@t/nowhere" is not installed: no node_modules/@t/nowhere in ${ws.dir} or the directories above it. Fix: run npm install @t/nowhere in ${ws.dir}.`,
        `- mcp-host.config.js: plugins[2].package: the package "@t/elsewhere" is not installed: no node_modules/@t/elsewhere in ${ws.dir} or the directories above it. Fix: run npm install @t/elsewhere in ${ws.dir}.`,
      ],
    ],
    [
      'two plugins that throw in create',
      (ws) =>
        writeConfig(ws, ['counter', { package: '@t/broken', prefix: 'b1' }, { package: '@t/broken', prefix: 'b2' }]),
      [
        'reload refused (2 problems)',
        '- plugin "@t/broken" (plugins[1]): create() threw: missing API key: set options.key',
        '- plugin "@t/broken" (plugins[2]): create() threw: missing API key: set options.key',
      ],
    ],
    [
      'three config errors at once',
      (ws) =>
        writeConfig(
          ws,
          [
            { package: '@t/counter', prefix: 'a.b' },
            { package: '@t/extra', colour: 'red' },
          ],
          {
            separator: ':',
          },
        ),
      [
        'reload refused (3 problems)',
        '- mcp-host.config.js: plugins[0].prefix: "a.b" contains "."; a prefix is only letters, digits, "_" and "-". Fix: use e.g. "ab".',
        '- mcp-host.config.js: plugins[1].colour: unknown key "colour". Fix: remove it;',
        '- mcp-host.config.js: separator: expected ".", "_" or "__", got ":". Fix: e.g. separator: "_" (some clients reject ".").',
      ],
    ],
    [
      'a collision between two flat plugins',
      (ws) => writeConfig(ws, ['counter', { package: '@t/flat-a', flat: true }, { package: '@t/flat-b', flat: true }]),
      ['reload refused (a problem)', /"same"/, /@t\/flat-a/, /@t\/flat-b/],
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
      for (const reason of typeof reasons === 'function' ? reasons(ws) : reasons) t.match(stderr, reason);
      t.same(await toolNames(host.client), ['counter.increment'], 'the old catalogue answers');
      t.equal(await callText(host.client, 'counter.increment'), '2', 'with the same instance');
      t.same(host.notified, { tools: 0, prompts: 0, resources: 0 }, 'nobody was told of a change');

      // Fixing the config is taken at once.
      writeConfig(ws, ['counter', 'extra']);
      await host.until('the fixed config', () => host.notified.tools === 1);
      t.same(await toolNames(host.client), ['counter.increment', 'extra.alpha', 'extra.beta']);
      // Generations count what was served: the refused builds took no number.
      await assertLogged(t, host.log, 'generation 2 is live');
    });
  }
});

t.test('a call started before a reload that removes its plugin still returns its result', async (t) => {
  const ws = workspace(t);
  const config = writeConfig(ws, ['counter', slowEntry(ws)], { reload: { watch: false } });
  const host = await startStdioHost(t, config, { env: ws.env });
  let answered = false;
  const call = callText(host.client, 'slow.hold').finally(() => (answered = true));
  await untilStarted(ws);
  writeConfig(ws, ['counter'], { reload: { watch: false } });
  const { code, stdout } = await runReload(ws, config);
  t.equal(code, 0);
  t.match(stdout, 'plugins removed: slow');
  await host.until('tools/list_changed', () => host.notified.tools === 1);
  t.same(await toolNames(host.client), ['counter.increment'], 'new calls see the new catalogue');
  t.notOk(answered, 'the call was still running when the swap was seen');
  release(ws);
  t.equal(await call, 'released', 'and the removed plugin finished it');
});

t.test('a call still running at the drain timeout is cancelled with an error that says why', async (t) => {
  const ws = workspace(t);
  const settings = { reload: { watch: false, drainTimeoutMs: 300 } };
  const config = writeConfig(ws, ['counter', slowEntry(ws)], settings);
  const host = await startStdioHost(t, config, { env: ws.env });
  // Held until released, which the test does only at the end: only the drain timeout can end it.
  const call = callText(host.client, 'slow.hold');
  // Expected from now on: on a loaded machine it may be refused before mcp-host reload has even returned.
  const refused = t.rejects(call, {
    code: -32001,
    message:
      'mcp-host cancelled tools/call on mount "slow": a reload removed or replaced this plugin, and the call was still running at the drain timeout (reload.drainTimeoutMs, 300 ms). Fix: raise reload.drainTimeoutMs in the host config.',
  });
  await untilStarted(ws);
  writeConfig(ws, ['counter'], settings);
  t.equal((await runReload(ws, config)).code, 0);
  await refused;
  release(ws);
});

t.test('SIGHUP reloads; a burst of SIGHUPs coalesces', async (t) => {
  const ws = workspace(t);
  const config = writeConfig(ws, ['counter'], { reload: { watch: false } });
  const host = await startStdioHost(t, config, { env: ws.env });
  writeConfig(ws, ['counter', 'extra'], { reload: { watch: false } });
  process.kill(host.pid, 'SIGHUP');
  await host.until('tools/list_changed', () => host.notified.tools === 1);
  t.same(await toolNames(host.client), ['counter.increment', 'extra.alpha', 'extra.beta']);

  writeConfig(ws, ['counter', 'greet'], { reload: { watch: false } });
  for (let i = 0; i < 5; i++) process.kill(host.pid, 'SIGHUP');
  await host.until('the burst to settle', () => count(host.log(), 'reloaded (SIGHUP)') >= 2);
  // mcp-host reload queues behind whatever the burst still has running: once it answers, the burst is over.
  t.match((await runReload(ws, config)).stdout, 'nothing changed');
  await host.client.ping();
  t.ok(count(host.log(), 'reloading (SIGHUP)') <= 3, 'five signals made at most two reloads after the first');
  t.equal(count(host.log(), 'reloading (changed on disk'), 0, 'the watch is off');
  t.same(await toolNames(host.client), ['counter.increment', 'greet.hello']);
  t.equal(host.notified.tools, 2, 'one notification for the burst');
});

t.test('a burst of five saves ends at the latest config, with one notification', async (t) => {
  const ws = workspace(t);
  // A debounce far longer than five saves take, even on a loaded machine that pauses between two of them:
  // the saves take some 50 ms on a quiet one, and a pause over the debounce would make two reloads.
  const slowDebounce = { reload: { debounceMs: 5_000 } };
  const config = writeConfig(ws, ['counter'], slowDebounce);
  const host = await startStdioHost(t, config, { env: ws.env });
  const versions = [
    ['counter', 'greet'],
    ['counter', 'slow'],
    ['greet'],
    ['counter', 'greet', 'slow'],
    ['counter', 'extra'],
  ];
  for (const plugins of versions) {
    writeConfig(ws, plugins, slowDebounce);
    await sleep(10);
  }
  await host.until('tools/list_changed', () => host.notified.tools >= 1);
  // mcp-host reload queues behind a reload still running; it finds nothing left to change.
  t.match((await runReload(ws, config)).stdout, 'nothing changed');
  await host.client.ping();
  t.same(await toolNames(host.client), ['counter.increment', 'extra.alpha', 'extra.beta']);
  t.equal(host.notified.tools, 1);
  await host.until('the reload in the log', () => count(host.log(), 'reloading (changed on disk') >= 1);
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
  // The gauge is the marker: its resource update, sent after a reload on the same streams as list_changed.
  const config = writeConfig(ws, ['gauge', 'counter', 'greet']);
  const host = await startHttpHost(t, config, { env: ws.env });
  const heard = { legacyA: 0, legacyB: 0, modern: 0 };
  const markers = { legacyA: 0, legacyB: 0, modern: 0 };
  const connect = async (name: keyof typeof heard, modern: boolean) => {
    const client = new Client(
      { name, version: '1.0.0' },
      modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
    );
    client.setNotificationHandler('notifications/tools/list_changed', () => void heard[name]++);
    client.setNotificationHandler('notifications/resources/updated', () => void markers[name]++);
    const stream = watchingNotificationStream();
    await client.connect(new StreamableHTTPClientTransport(new URL(host.url), { fetch: stream.fetch }));
    t.teardown(() => client.close());
    // A legacy session hears notifications on its GET stream, opened after connect.
    if (!modern) {
      await stream.opened;
      await client.subscribeResource({ uri: 'gauge://level' });
    }
    return client;
  };
  const legacyA = await connect('legacyA', false);
  await connect('legacyB', false);
  const modern = await connect('modern', true);
  const listening = await modern.listen({ toolsListChanged: true, resourceSubscriptions: ['gauge://level'] });
  t.teardown(() => listening.close());
  const untilHeard = (what: string, check: () => boolean) =>
    until(what, check, EVENT_MS, () => `heard ${JSON.stringify(heard)}\n${host.log()}`);
  const everyone = (n: number) => heard.legacyA === n && heard.legacyB === n && heard.modern === n;
  /** Every client has heard a marker sent now, so whatever the host sent each one before has arrived. */
  const settled = async () => {
    const target = markers.modern + 1;
    await callText(legacyA, 'gauge.bump');
    await untilHeard('the marker', () => Object.values(markers).every((n) => n >= target));
  };
  const tools = ['counter.increment', 'gauge.bump', 'gauge.watched'];
  t.equal(await callText(legacyA, 'counter.increment'), '1');

  writeConfig(ws, ['gauge', 'counter', 'greet', 'extra']);
  await untilHeard('the added plugin', () => everyone(1));
  t.same(await toolNames(modern), [...tools, 'extra.alpha', 'extra.beta', 'greet.hello'].sort());
  t.equal(await callText(legacyA, 'counter.increment'), '2', 'the unchanged plugin kept its state');

  ws.writeConfig(`export default {
      plugins: [{ package: '@t/gauge' }, { package: '@t/counter' }, { package: '@t/greet' }, { package: '@t/extra' }],
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
  await settled();
  t.same(heard, { legacyA: 1, legacyB: 1, modern: 1 }, 'neither reload notified anyone');

  writeGreet(ws, '2.0.0', 'hello from v2');
  writeConfig(ws, ['gauge', 'counter', 'greet', 'extra']);
  await untilHeard('the upgrade', () => everyone(2));
  t.equal(await callText(modern, 'greet.hello'), 'hello from v2', 'the new code answers');

  writeConfig(ws, ['gauge', 'counter', 'greet']);
  await untilHeard('the removal', () => everyone(3));
  t.same(await toolNames(legacyA), [...tools, 'greet.hello']);
  await settled();
  t.same(heard, { legacyA: 3, legacyB: 3, modern: 3 }, 'once each, per reload');
});

/** A plugin with one prompt, described as `description`. */
function writePromptly(ws: Workspace, version: string, description: string): void {
  ws.writePackage('node_modules/@t/promptly', manifest('@t/promptly', 'promptly', version), {
    'index.js': `import { McpServer } from '@modelcontextprotocol/server';
export default {
  create() {
    const server = new McpServer({ name: 'promptly', version: '1.0.0' });
    server.registerPrompt('brief', { description: ${JSON.stringify(description)} }, () => ({
      messages: [{ role: 'user', content: { type: 'text', text: 'Be brief.' } }],
    }));
    return server;
  },
};
`,
  });
}

/** A plugin with a resource, and with `withTemplate` a resource template too. */
function writeDocs(ws: Workspace, version: string, withTemplate: boolean): void {
  ws.writePackage('node_modules/@t/docs', manifest('@t/docs', 'docs', version), {
    'index.js': `import { McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
export default {
  create() {
    const server = new McpServer({ name: 'docs', version: '1.0.0' });
    server.registerResource('readme', 'docs://readme', { mimeType: 'text/plain' }, async (uri) => ({
      contents: [{ uri: uri.href, text: 'read me' }],
    }));
    if (${withTemplate}) {
      server.registerResource('page', new ResourceTemplate('docs://pages/{name}', { list: undefined }), {}, async (uri) => ({
        contents: [{ uri: uri.href, text: 'a page' }],
      }));
    }
    return server;
  },
};
`,
  });
}

t.test('a reload tells each client exactly which lists changed: tools, prompts, resources', async (t) => {
  const ws = workspace(t);
  writePromptly(ws, '1.0.0', 'Ask for brevity.');
  writeDocs(ws, '1.0.0', false);
  const config = writeConfig(ws, ['counter', 'promptly', 'docs']);
  const host = await startStdioHost(t, config, { env: ws.env });
  /** After a reload's swap (seen in `what`), a round trip: what it sent has arrived; then exactly `expected`. */
  const heardExactly = async (what: string, check: () => boolean, expected: typeof host.notified) => {
    await host.until(what, check);
    await host.client.ping();
    t.same(host.notified, expected, what);
  };

  // Upgrades, as npm makes them: a new version's files.
  writeDocs(ws, '1.1.0', true);
  await heardExactly('a template added', () => host.notified.resources === 1, { tools: 0, prompts: 0, resources: 1 });
  t.same(
    (await host.client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate),
    ['docs://pages/{name}'],
  );

  writePromptly(ws, '1.1.0', 'Ask for brevity, politely.');
  await heardExactly('a prompt changed', () => host.notified.prompts === 1, { tools: 0, prompts: 1, resources: 1 });
  t.equal((await host.client.listPrompts()).prompts[0]?.description, 'Ask for brevity, politely.');

  writeConfig(ws, ['counter', 'docs']);
  await heardExactly('the prompts removed', () => host.notified.prompts === 2, { tools: 0, prompts: 2, resources: 1 });

  writeConfig(ws, ['counter', 'promptly']);
  await heardExactly('the resources removed, the prompts back', () => host.notified.resources === 2, {
    tools: 0,
    prompts: 3,
    resources: 2,
  });
});

/** `npm install ARGS…` in `dir`, offline: what the admin runs next to the config. */
function npmInstall(dir: string, ...args: string[]): Promise<CliRun> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', ...args],
      { cwd: dir },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr, ms: Date.now() - started }),
    );
  });
}

/** A packed plugin tarball, as a registry would serve it, in `<ws>/packed`. */
async function packed(t: Test, ws: Workspace, sourceDir: string): Promise<string> {
  const packedDir = join(ws.dir, 'packed');
  mkdirSync(packedDir, { recursive: true });
  const result = await new Promise<string>((resolve, reject) =>
    execFile('npm', ['pack', '--silent', '--pack-destination', packedDir], { cwd: sourceDir }, (error, stdout) =>
      error ? reject(error) : resolve(stdout.trim()),
    ),
  );
  t.ok(result.endsWith('.tgz'), `packed ${result}`);
  return join(packedDir, result);
}

/**
 * A reload after a real npm install: the host sees npm's many writes under
 * node_modules and re-imports the new package tree, on a machine still busy
 * with npm's own exit; a slower event than most, so twice the suite's bound.
 */
const NPM_RELOAD_MS = 2 * EVENT_MS;

t.test('a real npm install upgrades a mounted plugin, and installs one the config named', async (t) => {
  // Its own workspace: npm prunes what it did not install, so here npm installs everything.
  const ws = makeWorkspace(t);
  const runtimeDir = join(ws.dir, 'run');
  mkdirSync(runtimeDir, { mode: 0o700 });
  const env = { ...process.env, XDG_RUNTIME_DIR: runtimeDir, MCP_HOST_LOG_LEVEL: 'debug' };
  const v1 = await packed(t, ws, writeGreet(ws, '1.0.0', 'hello from v1', 'src/greet-1'));
  const v2 = await packed(t, ws, writeGreet(ws, '2.0.0', 'hello from v2', 'src/greet-2'));
  writeToolPlugin(ws, 'extra', ['alpha']);
  renameSync(join(ws.dir, 'node_modules/@t/extra'), join(ws.dir, 'src/extra'));
  const extra = await packed(t, ws, join(ws.dir, 'src/extra'));
  t.equal((await npmInstall(ws.dir, v1)).code, 0, 'npm installed v1');

  const config = writeConfig(ws, ['greet']);
  const host = await startStdioHost(t, config, { env });
  t.equal(await callText(host.client, 'greet.hello'), 'hello from v1');

  const upgrade = await npmInstall(ws.dir, v2);
  t.equal(upgrade.code, 0, `npm installed v2 in ${upgrade.ms} ms`);
  await host.until('the upgrade', () => host.notified.tools === 1, NPM_RELOAD_MS);
  t.equal(await callText(host.client, 'greet.hello'), 'hello from v2', 'the new version answers');

  writeConfig(ws, ['greet', 'extra']);
  await host.until('the reload that cannot find @t/extra', () => host.log().includes('@t/extra\\" is not installed'));
  t.equal((await npmInstall(ws.dir, extra)).code, 0, 'npm installed @t/extra');
  await host.until('the retried reload', () => host.notified.tools === 2, NPM_RELOAD_MS);
  t.same(await toolNames(host.client), ['extra.alpha', 'greet.hello']);
});

t.test('the control channel is private: its directory 0700, its socket 0600, as the host creates them', async (t) => {
  const ws = workspace(t);
  const runtimeDir = join(ws.dir, 'fresh-run');
  mkdirSync(runtimeDir); // the parent as a user's runtime dir might be; mcp-host/ inside is the host's to make
  const config = writeConfig(ws, ['counter']);
  const host = await startStdioHost(t, config, { env: { ...ws.env, XDG_RUNTIME_DIR: runtimeDir } });
  await host.until('the control channel', () => host.log().includes('mcp-host reload reaches this host'));
  const dir = join(runtimeDir, 'mcp-host');
  t.equal((statSync(dir).mode & 0o777).toString(8), '700', 'the directory is 0700');
  const sockets = readdirSync(dir);
  t.equal(sockets.length, 1, 'one socket');
  const socket = statSync(join(dir, sockets[0]!));
  t.ok(socket.isSocket(), 'a unix socket');
  t.equal((socket.mode & 0o777).toString(8), '600', 'the socket is 0600');
});
