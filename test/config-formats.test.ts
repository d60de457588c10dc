// A config file loads whatever the project's module type (DESIGN.md, "The
// config file"): an ES module .js in a "type": "commonjs" project, .cjs,
// .mjs, YAML and .ts; and one that cannot load says why in Node's words,
// with the fix that is true for it.
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { CLI, runCli, startStdioHost } from './helpers/host.js';
import { traceLoadedModules } from './helpers/loaded-modules.js';
import { makeWorkspace } from './helpers/packages.js';
import { writePlugin } from './helpers/readme.js';

const run = promisify(execFile);

/**
 * The CLI run as a user runs it. tap puts its module hooks into every child's
 * NODE_OPTIONS, and with any hooks registered Node 20 loads a file's ES
 * module syntax by itself where it would otherwise refuse it: what the host
 * does about module formats is seen only without them.
 */
function runWithoutHooks(args: string[]): Promise<{ code: number; stdout: string }> {
  return run('env', ['-u', 'NODE_OPTIONS', process.execPath, CLI, ...args]).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => error,
  );
}

t.test(
  'an ESM mcp-host.config.js loads in a "type": "commonjs" project, and .cjs, .mjs, YAML and .ts load',
  async (t) => {
    const ws = makeWorkspace(t);
    ws.writeFile('package.json', JSON.stringify({ name: 'npm-init-project', version: '1.0.0', type: 'commonjs' }));
    writePlugin(ws, 'node_modules/hello', 'hello', { prefix: 'hello' }, ['greet']);
    const configs: Record<string, string> = {
      'mcp-host.config.js':
        "import { fileURLToPath } from 'node:url';\n// its own path, as Node gives it\nexport default { name: fileURLToPath(import.meta.url).endsWith('mcp-host.config.js') ? 'esm-in-cjs' : 'wrong', plugins: [{ package: 'hello' }] };\n",
      'mcp-host.config.cjs': "module.exports = { name: 'cjs', plugins: [{ package: 'hello' }] };\n",
      'mcp-host.config.mjs': "export default { name: 'mjs', plugins: [{ package: 'hello' }] };\n",
      '.mcp-hostrc.yaml': 'name: yaml\nplugins:\n  - package: hello\n',
      // Its types stripped by the host (jiti), whatever TypeScript the project has.
      'mcp-host.config.ts':
        "import type { HostConfig } from 'mcp-host';\nconst config: HostConfig = { plugins: [{ package: 'hello' }] };\nexport default config;\n",
    };
    for (const [name, source] of Object.entries(configs)) {
      const file = ws.writeFile(name, source);
      const listed = await runWithoutHooks(['list', '--json', '--config', file]);
      t.equal(listed.code, 0, name);
      t.same(
        (JSON.parse(listed.stdout) as { mounts: { tools: { name: string }[] }[] }).mounts[0]!.tools.map((x) => x.name),
        ['hello.greet'],
        name,
      );
    }
    // The ES module config in the CommonJS project serves, with its own import.meta.url.
    const host = await startStdioHost(t, join(ws.dir, 'mcp-host.config.js'));
    t.equal(host.client.getServerVersion()?.name, 'esm-in-cjs');
  },
);

t.test('a config in the wrong format for its extension says so in Node\u2019s words, with a true fix', async (t) => {
  const ws = makeWorkspace(t);
  const esmInCjs = ws.writeFile('mcp-host.config.cjs', 'export default { plugins: [] };\n');
  const wrongEsm = await runWithoutHooks(['check', '--config', esmInCjs]);
  t.equal(wrongEsm.code, 1);
  t.match(
    wrongEsm.stdout,
    `${esmInCjs}: the config cannot be loaded: Unexpected token 'export'. Fix: the file is an ES module, which Node loads only from .mjs (or .js in a "type": "module" package): rename it to mcp-host.config.mjs, or write module.exports = { … } in place of export default.`,
  );
  const cjsInEsm = ws.writeFile('mcp-host.config.js', 'module.exports = { plugins: [] };\n');
  const wrongCjs = await runCli(['check', '--config', cjsInEsm]);
  t.equal(wrongCjs.code, 1);
  t.match(wrongCjs.stdout, `${cjsInEsm}: the config cannot be loaded: module is not defined in ES module scope`);
  t.match(
    wrongCjs.stdout,
    'Fix: the file is CommonJS, which Node loads only from .cjs (or .js in a package that is not "type": "module"): rename it to mcp-host.config.cjs, or write export default { … } in place of module.exports.',
  );
  const importsMissing = ws.writeFile(
    'mcp-host.config.js',
    "import secrets from 'acme-secrets';\nexport default { plugins: [] };\n",
  );
  const missing = await runCli(['check', '--config', importsMissing]);
  t.equal(missing.code, 1);
  t.match(missing.stdout, `${importsMissing}: the config cannot be loaded: Cannot find package 'acme-secrets'`);
  t.match(
    missing.stdout,
    `Fix: install what it imports next to the config (npm install acme-secrets in ${ws.dir}), or correct the import.`,
  );
});

/**
 * Whether Node's module hooks thread runs in process `pid`: `module.register`
 * starts it, and every import after it crosses it.
 */
function hooksThreadRuns(pid: number): boolean {
  return readdirSync(`/proc/${pid}/task`).some(
    (task) => readFileSync(`/proc/${pid}/task/${task}/comm`, 'utf8').trim() === 'WorkerThread',
  );
}

t.test('an ES module config that imports nothing is loaded and reloaded without a module hook', async (t) => {
  for (const [imports, hooked] of [
    ['', false],
    // One that imports something needs the hook to reload what it imports afresh: this test sees the hook.
    ["import { sep } from 'node:path';\n", true],
  ] as const) {
    const ws = makeWorkspace(t);
    writePlugin(ws, 'node_modules/hello', 'hello', { prefix: 'hello' }, ['greet']);
    writePlugin(ws, 'node_modules/extra', 'extra', { prefix: 'extra' }, ['more']);
    const config = (plugins: string[]) =>
      `${imports}export default ${JSON.stringify({ plugins: plugins.map((name) => ({ package: name })), reload: { watch: false } })};\n`;
    const configFile = ws.writeConfig(config(['hello']));
    // Without tap's own hooks (NODE_OPTIONS), which start the thread in every child.
    const host = await startStdioHost(t, configFile, { env: { NODE_OPTIONS: '' } });
    ws.writeConfig(config(['hello', 'extra']));
    process.kill(host.pid, 'SIGHUP');
    await host.until('the reload to announce the new tools', () => host.notified.tools > 0);
    t.same((await host.client.listTools()).tools.map((tool) => tool.name).sort(), ['extra.more', 'hello.greet']);
    t.equal(hooksThreadRuns(host.pid), hooked, imports ? 'a config that imports: hooked' : 'no hook');
  }
});

t.test("a named config's cosmiconfig $import still merges the files it names", async (t) => {
  const ws = makeWorkspace(t);
  writePlugin(ws, 'node_modules/hello', 'hello', { prefix: 'hello' }, ['greet']);
  ws.writeFile('base.json', JSON.stringify({ plugins: [{ package: 'hello' }] }));
  const file = ws.writeConfig("export default { $import: './base.json', name: 'merged' };\n");
  const listed = await runCli(['list', '--json', '--config', file]);
  t.equal(listed.code, 0, listed.stderr);
  t.same(
    (JSON.parse(listed.stdout) as { mounts: { tools: { name: string }[] }[] }).mounts[0]!.tools.map((x) => x.name),
    ['hello.greet'],
  );
});

t.test(
  'a start with a JavaScript config named loads neither jiti nor cosmiconfig, nor what only HTTP, an audit log, a cluster, search or status need; one with a .ts config loads jiti',
  async (t) => {
    const ws = makeWorkspace(t);
    writePlugin(ws, 'node_modules/hello', 'hello', { prefix: 'hello' }, ['greet']);
    const trace = traceLoadedModules(ws);
    const packagesLoaded = async (configFile: string) => {
      trace.clear();
      const host = await startStdioHost(t, configFile, { env: trace.env });
      t.same(
        (await host.client.listTools()).tools.map((tool) => tool.name),
        ['hello.greet'],
      );
      return trace.loaded();
    };
    const config = { plugins: [{ package: 'hello' }], reload: { watch: false } };
    const js = await packagesLoaded(ws.writeConfig(config));
    t.notMatch(js, '/node_modules/jiti/', 'a .js config: no jiti');
    t.notMatch(js, '/node_modules/cosmiconfig/', 'a named .js config: no cosmiconfig');
    // Each loaded at its first use (performance.md, the seventh round), never by a stdio host that has none.
    for (const deferred of [
      '/host/serve/http-auth.js',
      '/host/serve/oauth-settings.js',
      '/host/audit/audit-log.js',
      '/host/cluster/cluster-options.js',
      '/host/catalogue/tool-search.js',
      '/node_modules/stemmer/',
      '/host/host-status.js',
      'node:perf_hooks',
    ]) {
      t.notMatch(js, deferred, `a stdio start without its feature: no ${deferred}`);
    }
    const ts = await packagesLoaded(
      ws.writeConfig(`export default ${JSON.stringify(config)};\n`, 'mcp-host.config.ts'),
    );
    t.match(ts, '/node_modules/jiti/', 'a .ts config: jiti');
  },
);
