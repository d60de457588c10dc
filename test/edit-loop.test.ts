// A plugin author's edit loop: a plugin linked into the operator's
// node_modules (as `mcp-host add ../weather` installs it: a symlink to its
// author's working copy) runs its new code once its author saves a file,
// whether the watch sees it or `mcp-host reload` is asked; and `mcp-host
// reload --plugin NAME` starts one mount afresh when nothing changed at all.
import { mkdirSync, symlinkSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { Client } from '@modelcontextprotocol/client';
import { assertLogged, runCli, startStdioHost } from './helpers/host.js';
import { controlEnv, makeWorkspace, type Workspace } from './helpers/packages.js';
import { firstText } from './helpers/results.js';

// Each test starts a host and runs the CLI beside it.
t.setTimeout(300_000);

/** Where a copy of the test plugin is written, and what it is called. */
interface Copy {
  dir: string;
  name: string;
  prefix: string;
}

/** The author's working copy of "weather", outside any node_modules (linked into it by the test). */
const WORKING_COPY: Copy = { dir: 'dev/weather', name: 'weather', prefix: 'weather' };

/**
 * A stateful plugin: `forecast` answers what its lib file says, `count`
 * what this instance counted, and `loads` how many times its module was
 * evaluated in the host (a fresh import evaluates it again).
 */
function writeWeather(ws: Workspace, forecast: string, { dir, name, prefix }: Copy = WORKING_COPY): string {
  return ws.writePackage(
    dir,
    { name, version: '0.1.0', type: 'module', exports: './index.js', 'mcp-host': { prefix } },
    {
      'index.js': `import { McpServer } from '@modelcontextprotocol/server';
import { forecast } from './lib.js';
const loads = 'loads of ${name}';
globalThis[loads] = (globalThis[loads] ?? 0) + 1;
const text = (text) => ({ content: [{ type: 'text', text }] });
export default {
  create() {
    let count = 0;
    const server = new McpServer({ name: '${prefix}', version: '0.1.0' });
    server.registerTool('forecast', { description: 'The forecast: ${forecast}.' }, async () => text(forecast));
    server.registerTool('count', { description: 'Count calls.' }, async () => text(String(++count)));
    server.registerTool('loads', { description: 'Module evaluations.' }, async () => text(String(globalThis[loads])));
    return server;
  },
};
`,
      'lib.js': `export const forecast = ${JSON.stringify(forecast)};\n`,
    },
  );
}

/** A workspace with "weather" linked into node_modules, and a copy of it installed there, "@t/counter". */
function linkedWorkspace(t: Parameters<typeof makeWorkspace>[0], reload: Record<string, unknown>) {
  const ws = makeWorkspace(t);
  const source = writeWeather(ws, 'sunny');
  mkdirSync(join(ws.dir, 'node_modules'), { recursive: true });
  symlinkSync('../dev/weather', join(ws.dir, 'node_modules/weather'));
  writeWeather(ws, 'cloudy', { dir: 'node_modules/@t/counter', name: '@t/counter', prefix: 'counter' });
  const config = ws.writeConfig({
    plugins: [{ package: 'weather' }, { package: '@t/counter' }],
    reload: { debounceMs: 50, ...reload },
  });
  return { ws, source, config, env: controlEnv(ws) };
}

async function call(client: Client, name: string): Promise<string> {
  return firstText(await client.callTool({ name, arguments: {} }));
}

t.test('a saved file of a linked plugin is loaded by the watch; the other plugins keep their instances', async (t) => {
  const { ws, config, env } = linkedWorkspace(t, {});
  const host = await startStdioHost(t, config, { env });
  t.equal(await call(host.client, 'weather.forecast'), 'sunny');
  t.equal(await call(host.client, 'counter.count'), '1');

  // The entry file, saved in the author's working copy (the real path behind the link).
  writeWeather(ws, 'light rain');
  await host.until('tools/list_changed', () => host.notified.tools === 1);
  t.equal(await call(host.client, 'weather.forecast'), 'light rain', 'the new code runs, its lib file too');
  t.equal(await call(host.client, 'counter.count'), '2', 'the unchanged plugin kept its instance');
  await assertLogged(t, host.log, /reloaded \(changed on disk: dev\/weather\/[^)]*\).*plugins replaced: weather/);

  // Only the lib file this time: a file the entry imports is the plugin's code as much.
  ws.writeFile('dev/weather/lib.js', 'export const forecast = "snow";\n');
  await host.until('the second reload', () => host.log().split('plugins replaced: weather').length > 2);
  t.equal(await call(host.client, 'weather.forecast'), 'snow');
  t.equal(await call(host.client, 'counter.count'), '3');
});

t.test('mcp-host reload loads an edited linked plugin, and a touched package.json makes a new instance', async (t) => {
  const { ws, source, config, env } = linkedWorkspace(t, { watch: false });
  const host = await startStdioHost(t, config, { env });
  t.equal(await call(host.client, 'weather.count'), '1');
  t.equal(await call(host.client, 'counter.count'), '1');

  writeWeather(ws, 'fog');
  let run = await runCli(['reload', '--config', config], { env });
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, '  plugins replaced: weather\n');
  t.match(run.stdout, '  tools changed: weather.forecast\n');
  t.equal(await call(host.client, 'weather.forecast'), 'fog');
  t.equal(await call(host.client, 'weather.count'), '1', 'a new instance');
  t.equal(await call(host.client, 'counter.count'), '2', 'the installed plugin kept its instance');

  // `touch package.json`: the author's way to say "reload me", nothing else changed.
  const later = new Date(Date.now() + 5_000);
  utimesSync(join(source, 'package.json'), later, later);
  run = await runCli(['reload', '--config', config], { env });
  t.match(run.stdout, '  plugins replaced: weather\n');
  t.equal(await call(host.client, 'weather.count'), '1', 'a new instance again');

  run = await runCli(['reload', '--config', config], { env });
  t.match(run.stdout, '  nothing changed: clients were not notified\n', 'nothing changed since: nothing replaced');
  t.equal(await call(host.client, 'weather.count'), '2');
  t.equal(await call(host.client, 'counter.count'), '3');
});

t.test('mcp-host reload --plugin NAME starts that one mount afresh, its code imported anew', async (t) => {
  const { config, env } = linkedWorkspace(t, { watch: false });
  const host = await startStdioHost(t, config, { env });
  t.equal(await call(host.client, 'weather.count'), '1');
  t.equal(await call(host.client, 'weather.loads'), '1');
  t.equal(await call(host.client, 'counter.count'), '1');

  let run = await runCli(['reload', '--plugin', 'weather', '--config', config], { env });
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, '  plugins replaced: weather\n');
  t.match(run.stdout, '  clients notified: none\n', 'its catalogue is as it was');
  t.equal(await call(host.client, 'weather.count'), '1', 'a new instance');
  t.equal(await call(host.client, 'weather.loads'), '2', 'of code evaluated anew, with nothing changed on disk');
  t.equal(await call(host.client, 'counter.count'), '2', 'the other plugin kept its instance');
  await assertLogged(
    t,
    host.log,
    /reloading \(mcp-host reload --plugin weather\): building generation \d+ beside generation \d+, restarting weather/,
  );

  // By package name, an installed plugin.
  run = await runCli(['reload', '--plugin', '@t/counter', '--config', config], { env });
  t.match(run.stdout, '  plugins replaced: counter\n');
  t.equal(await call(host.client, 'counter.count'), '1');
  t.equal(await call(host.client, 'weather.count'), '2');

  run = await runCli(['reload', '--plugin', 'wether', '--config', config], { env });
  t.equal(run.code, 1);
  t.match(
    run.stderr,
    'mcp-host reload --plugin wether: this host mounts no plugin named "wether"; it mounts "weather", "counter" (@t/counter). Fix: name a mount by its prefix or its package name, e.g. mcp-host reload --plugin weather.',
  );
  t.equal(await call(host.client, 'counter.count'), '2', 'a refused restart changes nothing');

  run = await runCli(['reload', '--plugin', 'weather', '--cluster', '--config', config], { env });
  t.equal(run.code, 2);
  t.match(run.stderr, '--plugin goes with "init" (a new plugin package) or "reload" (without --cluster)');
});
