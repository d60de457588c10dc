// The host's start keeps Node's module compile cache (host/compile-cache.ts)
// in the OS temp dir, and a temp dir where it cannot be kept, or a cache
// that is not V8's, changes nothing but that: the host starts and serves.
// Real parts: the host as a child process on stdio, a real plugin package.
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { startStdioHost, type StdioHost } from './helpers/host.js';
import { makeWorkspace, type Workspace } from './helpers/packages.js';
import { isAlive } from './helpers/processes.js';
import { writePlugin } from './helpers/readme.js';

function workspace(t: Test): { ws: Workspace; configFile: string } {
  const ws = makeWorkspace(t);
  writePlugin(ws, 'node_modules/hello', 'hello', { prefix: 'hello' }, ['greet']);
  return { ws, configFile: ws.writeConfig({ plugins: [{ package: 'hello' }], reload: { watch: false } }) };
}

/**
 * The host started with `tmp` as its OS temp dir. The suite collects V8
 * coverage from every host (NODE_V8_COVERAGE), under which the cache is
 * off; these hosts run without it. Their sockets for `mcp-host reload` go
 * to the workspace, whatever the temp dir is.
 */
async function startWithTmp(t: Test, ws: Workspace, configFile: string, tmp: string): Promise<StdioHost> {
  const host = await startStdioHost(t, configFile, {
    env: { TMPDIR: tmp, NODE_V8_COVERAGE: '', XDG_RUNTIME_DIR: ws.dir },
  });
  const { tools } = await host.client.listTools();
  t.same(
    tools.map((tool) => tool.name),
    ['hello.greet'],
    'the host serves',
  );
  return host;
}

/** Every file under `dir`. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((file) => join(dir, file))
    .filter((file) => statSync(file).isFile());
}

t.test('a start keeps the compile cache in the temp dir; the next starts from it, or from a broken one', async (t) => {
  const { ws, configFile } = workspace(t);
  const tmp = join(ws.dir, 'tmp');
  const cache = join(tmp, 'node-compile-cache');
  const first = await startWithTmp(t, ws, configFile, tmp);
  t.match(first.log(), `compile cache: ${cache}`);
  await first.client.close();
  // Written as the host exits.
  await first.until('the compile cache written', () => filesUnder(cache).length > 0);

  const second = await startWithTmp(t, ws, configFile, tmp);
  t.match(second.log(), `compile cache: ${cache}`);
  await second.client.close();

  // A cache file that is not what V8 wrote is compiled past, not trusted.
  for (const file of filesUnder(cache)) writeFileSync(file, 'not a code cache');
  const third = await startWithTmp(t, ws, configFile, tmp);
  t.match(third.log(), `compile cache: ${cache}`);
});

t.test('a temp dir where no cache can be made: the host starts and serves, and says why at debug', async (t) => {
  const { ws, configFile } = workspace(t);
  // A file where the directory would be: no user, root included, can make a directory under it.
  const tmp = ws.writeFile('not-a-directory', '');
  const host = await startWithTmp(t, ws, configFile, tmp);
  t.match(host.log(), /no compile cache \([^)]*not a directory\): every module is compiled from its source/);
});

t.test('NODE_DISABLE_COMPILE_CACHE turns it off', async (t) => {
  const { ws, configFile } = workspace(t);
  const tmp = join(ws.dir, 'tmp');
  const host = await startStdioHost(t, configFile, {
    env: { TMPDIR: tmp, NODE_V8_COVERAGE: '', NODE_DISABLE_COMPILE_CACHE: '1', XDG_RUNTIME_DIR: ws.dir },
  });
  await host.client.listTools();
  t.match(host.log(), 'no compile cache (NODE_DISABLE_COMPILE_CACHE is set)');
  await host.client.close();
  // The cache is written as the host exits: once it is gone, nothing was.
  await host.until('the host to exit', () => !isAlive(host.pid));
  t.same(filesUnder(tmp), [], 'nothing written');
});

t.test('under V8 coverage the cache is off, as Node advises', async (t) => {
  const { ws, configFile } = workspace(t);
  const host = await startStdioHost(t, configFile, {
    env: { NODE_V8_COVERAGE: join(ws.dir, 'coverage'), XDG_RUNTIME_DIR: ws.dir },
  });
  await host.client.listTools();
  t.match(host.log(), 'no compile cache (V8 coverage is being collected (NODE_V8_COVERAGE))');
});
