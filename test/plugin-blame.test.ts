// Blame is exact (DESIGN.md, "Containment"): a fault is the plugin's whose
// async context it ran in, or who registered the callback it ran from; a
// stack text a plugin writes blames nobody else; the host's own files are
// never a plugin's; a plugin cannot set `check`'s exit status. The host runs
// as a child process; the plugins are real packages in a temporary workspace.
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { assertLogged, runCli, startStdioHost, type StdioHost } from './helpers/host.js';
import { makeWorkspace, REPO_ROOT, type Workspace } from './helpers/packages.js';
import { writePlugin } from './helpers/readme.js';
import { firstText } from './helpers/results.js';

t.setTimeout(120_000);

function manifest(name: string, prefix: string): Record<string, unknown> {
  return { name, version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': { prefix } };
}

/** A tool answering `text`, as a line of a plugin's create(). */
const STEADY = `import { McpServer } from '@modelcontextprotocol/server';
let instances = 0;
export default {
  create() {
    const instance = ++instances;
    const server = new McpServer({ name: 'steady', version: '1.0.0' });
    server.registerTool('instance', { description: 'Which instance answers.' }, async () => ({ content: [{ type: 'text', text: String(instance) }] }));
    return server;
  },
};
`;

/**
 * `@t/hostile`: each tool leaves behind a callback that faults outside any
 * request, in a way Node runs in no one's async context, throws what is no
 * Error nor JSON (a symbol), or forges a stack.
 */
function hostileSource(steadyDir: string): string {
  return `import { createServer, connect } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { McpServer } from '@modelcontextprotocol/server';
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
let instances = 0;
const text = (text) => ({ content: [{ type: 'text', text }] });
export default {
  create() {
    const instance = ++instances;
    // Registered while creating: Node calls it on a signal, from no request.
    process.on('SIGHUP', () => { throw 'a string from a SIGHUP listener'; });
    // One it takes back is gone, as if nothing stood between it and the process.
    const taken = () => { throw 'a listener taken back'; };
    process.once('SIGHUP', taken);
    process.off('SIGHUP', taken);
    if (process.listeners('SIGHUP').includes(taken)) throw new Error('process.off left the listener');
    const server = new McpServer({ name: 'hostile', version: '1.0.0' });
    server.registerTool('instance', { description: 'Which instance answers.' }, async () => text(String(instance)));
    server.registerTool('finalizer', { description: 'A finalizer that throws a string.' }, async () => {
      const registry = new FinalizationRegistry(() => { throw 'a string from a finalizer'; });
      (() => registry.register({}, 'held'))();
      setTimeout(() => gc(), 10);
      return text('registered');
    });
    server.registerTool('socket', { description: 'Throw from a socket its own server accepted.' }, async () => {
      const listening = createServer((socket) => {
        socket.on('data', () => { listening.close(); throw new Error('thrown on an accepted socket'); });
      }).listen(0, '127.0.0.1', () => {
        const client = connect(listening.address().port, '127.0.0.1', () => client.end('x'));
      });
      return text('listening');
    });
    server.registerTool('symbol', { description: 'Throw a symbol from a timer.' }, async () => {
      setTimeout(() => { throw Symbol('a symbol from a timer'); }, 5);
      return text('scheduled');
    });
    server.registerTool('forge', { description: 'Throw an error whose stack names another plugin.' }, async () => {
      setTimeout(() => {
        const error = new Error('a forged stack');
        error.stack = 'Error: a forged stack\\n    at x (${steadyDir}/index.js:1:1)';
        throw error;
      }, 5);
      return text('scheduled');
    });
    return server;
  },
};
`;
}

function workspace(t: Parameters<typeof makeWorkspace>[0]): Workspace {
  const ws = makeWorkspace(t);
  const steady = ws.writePackage('node_modules/@t/steady', manifest('@t/steady', 'steady'), { 'index.js': STEADY });
  ws.writePackage('node_modules/@t/hostile', manifest('@t/hostile', 'hostile'), { 'index.js': hostileSource(steady) });
  return ws;
}

/** `text` as it appears inside a log line's JSON string. */
const inLog = (text: string): string => JSON.stringify(text).slice(1, -1);

async function call(host: StdioHost, name: string): Promise<string> {
  return firstText(await host.client.callTool({ name, arguments: {} }));
}

t.test(
  'a callback Node runs in no context faults only the plugin that registered it; a forged stack blames no one else',
  async (t) => {
    const ws = workspace(t);
    const configFile = ws.writeConfig({
      plugins: [
        { package: '@t/steady' },
        { package: '@t/hostile' },
        { package: '@t/hostile', prefix: 'walled', isolation: 'worker' },
      ],
      upstreams: { reconnectDelayMs: 20, maxReconnectDelayMs: 100 },
      reload: { watch: false },
    });
    const host = await startStdioHost(t, configFile);
    let expected = 1;
    const faults: [string, () => Promise<unknown>, string][] = [
      [
        'SIGHUP',
        async () => process.kill(host.pid, 'SIGHUP'),
        'its process "SIGHUP" listener threw: a string from a SIGHUP listener.',
      ],
      [
        'finalizer',
        () => call(host, 'hostile.finalizer'),
        'its FinalizationRegistry cleanup callback threw: a string from a finalizer.',
      ],
      [
        'socket',
        () => call(host, 'hostile.socket'),
        'a listener on a socket its server accepted threw: thrown on an accepted socket.',
      ],
      [
        'symbol',
        () => call(host, 'hostile.symbol'),
        'an exception was thrown outside any request: Symbol(a symbol from a timer).',
      ],
      ['forge', () => call(host, 'hostile.forge'), 'an exception was thrown outside any request: a forged stack.'],
    ];
    for (const [what, act, cause] of faults) {
      const notified = host.notified.tools;
      await act();
      await assertLogged(
        t,
        host.log,
        inLog(`plugin "hostile" (@t/hostile) faulted: ${cause}`),
        `the ${what} fault is the plugin's`,
      );
      await host.until(`hostile back after ${what}`, () => host.notified.tools >= notified + 2);
      expected++;
      t.equal(await call(host, 'hostile.instance'), String(expected), `a fresh instance after ${what}`);
      t.equal(await call(host, 'steady.instance'), '1', `the other plugin is untouched by ${what}`);
    }
    t.notMatch(host.log(), /\(@t\/steady\)[^"]*faulted/, 'the plugin a forged stack named is never blamed');
    t.notMatch(host.log(), "the host's own fault");

    // In a worker the thread is the plugin's: its finalizer's fault ends only the worker.
    const notified = host.notified.tools;
    t.equal(await call(host, 'walled.finalizer'), 'registered');
    await assertLogged(
      t,
      host.log,
      'plugin code failed in its worker: plugin code threw outside any request, in its worker: a string from a finalizer',
    );
    await host.until('walled back', () => host.notified.tools >= notified + 2);
    t.equal(await call(host, 'walled.instance'), '1', 'its worker is a fresh one');
    t.equal(await call(host, 'steady.instance'), '1');
  },
);

t.test('check exits 1 however plugin code sets the exit status', async (t) => {
  const ws = makeWorkspace(t);
  ws.writePackage('node_modules/@t/status-setter', manifest('@t/status-setter', 'setter'), {
    'index.js': `process.on('exit', () => { process.exitCode = 0; });
process.once('exit', () => process.reallyExit(0));
export default { create() { throw new Error('no API key'); } };
`,
  });
  const checked = await runCli(['check', '--config', ws.writeConfig({ plugins: [{ package: '@t/status-setter' }] })]);
  t.equal(checked.code, 1, 'the host’s status, not the one its exit listeners set');
  t.match(checked.stdout, 'plugin "@t/status-setter" (plugins[0]): create() threw: no API key');
});

t.test('what a plugin logs at warn while check runs is a line of its report, in words', async (t) => {
  const ws = makeWorkspace(t);
  ws.writePackage('node_modules/@t/wary', manifest('@t/wary', 'wary'), {
    'index.js': `import { McpServer } from '@modelcontextprotocol/server';
export default {
  create({ logger }) {
    logger.warn('no cache directory: caching in memory');
    logger.info('started');
    return new McpServer({ name: 'wary', version: '1.0.0' });
  },
};
`,
  });
  const checked = await runCli(['check', '--config', ws.writeConfig({ plugins: [{ package: '@t/wary' }] })]);
  t.equal(checked.code, 0, checked.stdout);
  t.match(checked.stdout, /^warning: plugin "wary": no cache directory: caching in memory$/m);
  t.notMatch(checked.stdout, 'started', 'below warn, as the log of check was');
  t.notMatch(checked.stdout + checked.stderr, /^\s*\{/m, 'no JSON log line');
});

t.test('with mcp-host installed inside a plugin, check and mountForTest blame the plugin for nothing', async (t) => {
  const ws = makeWorkspace(t);
  const dir = writePlugin(ws, 'weather', 'weather', { prefix: 'weather' }, ['forecast']);
  // A real install, not a link: the host's own files lie inside the plugin's directory.
  const installed = join(dir, 'node_modules/mcp-host');
  mkdirSync(installed, { recursive: true });
  cpSync(join(REPO_ROOT, 'package.json'), join(installed, 'package.json'));
  for (const build of ['dist/host', 'dist/bundle'])
    cpSync(join(REPO_ROOT, build), join(installed, build), { recursive: true });
  const env = { ...process.env, MCP_HOST_LOG_LEVEL: 'info' };
  const checked = await runCli(['check'], { cwd: dir, env });
  t.equal(checked.code, 0, checked.stderr);
  t.notMatch(checked.stderr, 'faulted', 'check logs no fault');

  const { mountForTest } = (await import(
    join(installed, 'dist/host/testing.js')
  )) as typeof import('../host/testing.js');
  const mounted = await mountForTest(dir);
  const { tools } = await mounted.client.listTools();
  t.same(
    tools.map((tool) => tool.name),
    ['weather.forecast'],
  );
  await mounted.close();
  t.notMatch(mounted.log(), 'faulted', 'mountForTest logs no fault');
});
