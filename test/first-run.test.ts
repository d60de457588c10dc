// The first five minutes, as a new operator or plugin author lives them:
// the README's own examples mount under the default config; a config loads
// whatever the project's module type; init, then check; add from a local
// directory and from a tarball, and a refused add that changes nothing;
// check's one pass over config and package problems; check in a plugin's
// own directory; an author's test through mcp-host/testing; and reload
// reporting the notifications it really sent. Real packages in temporary
// workspaces, the CLI as a child process; npm runs offline (local paths and
// tarballs only).
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { CLI, runCli, startStdioHost } from './helpers/host.js';
import { makeWorkspace, REPO_ROOT, type Workspace } from './helpers/packages.js';

const run = promisify(execFile);
/** npm never reaches a registry in these tests. */
const OFFLINE = { ...process.env, npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' };

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

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');

/** The `index`th fenced block of `language` after `heading` in the README. */
function readmeBlock(heading: string, language: string, index = 0): string {
  const from = README.indexOf(`\n${heading}\n`);
  if (from === -1) throw new Error(`no "${heading}" in the README`);
  const blocks = [...README.slice(from).matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))];
  const block = blocks[index]?.[1];
  if (block === undefined) throw new Error(`no ${language} block #${index} after "${heading}"`);
  return block;
}

/** A plugin in the README's shape (SDK v2, tools only): `tools` each answer with their own name. */
function writePlugin(ws: Workspace, relDir: string, name: string, manifest: Record<string, unknown>, tools: string[]) {
  return ws.writePackage(
    relDir,
    {
      name,
      version: '1.0.0',
      type: 'module',
      exports: './index.js',
      peerDependencies: { 'mcp-host': '^1.0.0' },
      peerDependenciesMeta: { 'mcp-host': { optional: true } },
      'mcp-host': manifest,
    },
    {
      'index.js': `import { McpServer } from '@modelcontextprotocol/server';
export default {
  create({ options }) {
    const server = new McpServer({ name: ${JSON.stringify(name)}, version: '1.0.0' });
    for (const tool of ${JSON.stringify(tools)}) {
      server.registerTool(tool, { description: tool }, async () => ({ content: [{ type: 'text', text: options.reply ?? tool }] }));
    }
    return server;
  },
};
`,
    },
  );
}

/** The README's plugin-author example, package.json and index.js exactly as printed, at `relDir`. */
function writeReadmeWeather(ws: Workspace, relDir: string): string {
  const dir = join(ws.dir, relDir);
  ws.writeFile(join(relDir, 'package.json'), readmeBlock('## Plugin authors', 'json'));
  ws.writeFile(join(relDir, 'index.js'), readmeBlock('## Plugin authors', 'js'));
  return dir;
}

t.test("the README's operator config mounts the README's plugin, under the default range", async (t) => {
  const ws = makeWorkspace(t);
  writeReadmeWeather(ws, 'node_modules/@acme/mcp-weather');
  // The operator example's other two entries, mirrored: a flat plugin with read_note, and a local package.
  writePlugin(ws, 'node_modules/@acme/mcp-notes', '@acme/mcp-notes', {}, ['read_note']);
  cpSync(join(REPO_ROOT, 'plugins/clock'), join(ws.dir, 'plugins/clock'), { recursive: true });
  const config = readmeBlock('## Operators', 'js', 0);
  t.match(config, "{ package: '@acme/mcp-weather', prefix: 'weather'", 'the block is the operator example');
  const file = ws.writeConfig(config);

  const checked = await runCli(['check', '--config', file]);
  t.equal(checked.code, 0, checked.stdout + checked.stderr);
  t.match(checked.stdout, 'tools: weather.forecast');
  t.match(checked.stdout, 'tools: read_note');
  t.match(checked.stdout, /tools: clock\.\w+/);

  const host = await startStdioHost(t, file);
  const result = await host.client.callTool({ name: 'weather.forecast', arguments: { city: 'Oslo' } });
  t.same(result.content, [{ type: 'text', text: 'Sunny in Oslo (metric)' }], 'the options reach the plugin');
});

t.test('a plugin listing all five published revisions mounts; one lacking some is refused naming them', async (t) => {
  const ws = makeWorkspace(t);
  const published = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'];
  writePlugin(ws, 'node_modules/all', 'all', { protocolVersions: published, prefix: 'all' }, ['one']);
  writePlugin(ws, 'node_modules/some', 'some', { protocolVersions: ['2025-06-18', '2025-11-25'] }, ['two']);
  const ok = await runCli(['check', '--config', ws.writeConfig({ plugins: [{ package: 'all' }] })]);
  t.equal(ok.code, 0, ok.stdout);
  const refused = await runCli(['check', '--config', ws.writeConfig({ plugins: [{ package: 'some', prefix: 's' }] })]);
  t.equal(refused.code, 1);
  t.match(
    refused.stdout,
    'plugin "some" (plugins[0]): package.json "mcp-host".protocolVersions: the plugin accepts "2025-06-18" and "2025-11-25", and lacks "2024-11-05", "2025-03-26" and "2026-07-28" of the host\'s protocolVersions. Fix: narrow the host\'s protocolVersions in mcp-host.config.js to ["2025-06-18", "2025-11-25"]',
  );
});

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
      // Compiled with the project's own TypeScript (here the repository's).
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

t.test('init writes a config check accepts, as the project\u2019s module type, and never overwrites', async (t) => {
  for (const type of ['module', 'commonjs']) {
    const ws = makeWorkspace(t);
    ws.writeFile('package.json', JSON.stringify({ name: 'fresh', version: '1.0.0', type }));
    const init = await runCli(['init'], { cwd: ws.dir });
    t.equal(init.code, 0, init.stderr);
    const file = join(ws.dir, 'mcp-host.config.js');
    const written = readFileSync(file, 'utf8');
    t.match(written, type === 'module' ? /^export default \{$/m : /^module\.exports = \{$/m, type);
    const check = await runCli(['check'], { cwd: ws.dir });
    t.equal(check.code, 0, check.stdout);
    t.match(check.stdout, 'OK: 0 tools');

    const again = await runCli(['init'], { cwd: ws.dir });
    t.equal(again.code, 1);
    t.equal(
      again.stderr,
      `mcp-host: ${file}: a config already exists here; init never overwrites one. Fix: edit it, add plugins with mcp-host add PACKAGE, or remove it and run mcp-host init again.\n`,
    );
    t.equal(readFileSync(file, 'utf8'), written, 'unchanged');
  }
});

t.test('add a local package: installed, checked, its line added with the comments kept; list shows it', async (t) => {
  const ws = makeWorkspace(t);
  writePlugin(ws, 'vendor/hello', '@acme/mcp-hello', { prefix: 'hello' }, ['greet', 'wave']);
  const file = ws.writeConfig(
    "// my host\nexport default {\n  name: 'mine', // shown to clients\n  plugins: [\n    // none yet\n  ],\n};\n",
  );
  const added = await runCli(['add', './vendor/hello'], { cwd: ws.dir, env: OFFLINE });
  t.equal(added.code, 0, added.stderr);
  t.match(added.stdout, `added {"package":"@acme/mcp-hello"} to ${file}`);
  t.equal(
    readFileSync(file, 'utf8'),
    "// my host\nexport default {\n  name: 'mine', // shown to clients\n  plugins: [\n    // none yet\n    { package: '@acme/mcp-hello' },\n  ],\n};\n",
  );
  const listed = await runCli(['list'], { cwd: ws.dir });
  t.match(listed.stdout, 'tools: hello.greet, hello.wave');
});

t.test('add an npm pack tarball to a CommonJS config, under --prefix', async (t) => {
  const ws = makeWorkspace(t);
  ws.writeFile('package.json', JSON.stringify({ name: 'cjs-project', version: '1.0.0', type: 'commonjs' }));
  const source = writePlugin(ws, 'src/tools', 'tarred-tools', { prefix: 'tarred' }, ['pack']);
  const { stdout } = await run('npm', ['pack', '--pack-destination', ws.dir], { cwd: source, env: OFFLINE });
  const tarball = stdout.trim().split('\n').at(-1)!;
  const file = ws.writeConfig('module.exports = {\n  plugins: [],\n};\n', 'mcp-host.config.cjs');
  const added = await runCli(['add', tarball, '--prefix', 't', '--config', file], { cwd: ws.dir, env: OFFLINE });
  t.equal(added.code, 0, added.stderr);
  t.equal(
    readFileSync(file, 'utf8'),
    "module.exports = {\n  plugins: [{ package: 'tarred-tools', prefix: 't' }],\n};\n",
  );
  t.match(added.stdout, 'tools: t.pack');
});

t.test('add of a refused package leaves the config byte-identical, says why, offers the uninstall', async (t) => {
  const ws = makeWorkspace(t);
  writePlugin(ws, 'vendor/narrow', 'narrow', { protocolVersions: ['2025-11-25'], prefix: 'narrow' }, ['x']);
  const original = 'export default {\n  plugins: [], // nothing yet\n};\n';
  const file = ws.writeConfig(original);
  const added = await runCli(['add', './vendor/narrow'], { cwd: ws.dir, env: OFFLINE });
  t.equal(added.code, 1);
  t.equal(readFileSync(file, 'utf8'), original, 'the config is byte-identical');
  t.match(
    added.stderr,
    `mcp-host add: narrow refused; ${file} is unchanged. To undo the install: npm uninstall narrow (in ${ws.dir}).`,
  );
  t.match(
    added.stderr,
    '- plugin "narrow" (plugins[0]): package.json "mcp-host".protocolVersions: the plugin accepts "2025-11-25"',
  );

  const usage = await runCli(['add', './vendor/narrow', '--prefix', 'n', '--flat'], { cwd: ws.dir, env: OFFLINE });
  t.equal(usage.code, 2);
  t.match(usage.stderr, 'mcp-host: --prefix and --flat exclude each other\n');

  const missing = await runCli(['add', './vendor/nothing-here'], { cwd: ws.dir, env: OFFLINE });
  t.equal(missing.code, 1);
  t.match(
    missing.stderr,
    /npm install .*vendor\/nothing-here failed \(exit \d+\); npm's reason is above\. The config is unchanged\./,
  );
  t.equal(readFileSync(file, 'utf8'), original);
});

t.test('check lists a config problem and a missing package in one run', async (t) => {
  const ws = makeWorkspace(t);
  const file = ws.writeConfig({
    separater: '_',
    plugins: [{ package: '@acme/mcp-missing', prefix: 'm' }, { package: 7 }],
  });
  const checked = await runCli(['check', '--config', file]);
  t.equal(checked.code, 1);
  t.match(checked.stdout, `mcp-host check: 3 problems in ${file}`);
  t.match(checked.stdout, '- mcp-host.config.js: separater: unknown key "separater". Fix: did you mean "separator"?');
  t.match(checked.stdout, '- mcp-host.config.js: plugins[1].package: expected a non-empty string, got 7.');
  t.match(
    checked.stdout,
    `- mcp-host.config.js: plugins[0].package: the package "@acme/mcp-missing" is not installed: no node_modules/@acme/mcp-missing in ${ws.dir} or the directories above it. Fix: run npm install @acme/mcp-missing in ${ws.dir}.`,
  );
});

t.test('check in a plugin\u2019s own directory checks it as a plugin, a dry create with --options', async (t) => {
  const ws = makeWorkspace(t);
  const dir = writeReadmeWeather(ws, 'weather');
  const checked = await runCli(['check', '--options', '{"units":"imperial"}'], { cwd: dir });
  t.equal(checked.code, 0, checked.stdout + checked.stderr);
  t.match(
    checked.stdout,
    `checking ${dir} as an mcp-host plugin (no host config here): mounted under its own prefix "weather"`,
  );
  t.match(checked.stdout, 'tools: weather.forecast');

  const broken = ws.writePackage(
    'broken',
    { name: 'broken', type: 'module', exports: './index.js', 'mcp-host': { pageSize: 5 } },
    {
      'index.js': 'export default { create() { throw new Error("no API key"); } };\n',
    },
  );
  const refused = await runCli(['check'], { cwd: broken });
  t.equal(refused.code, 1);
  t.match(refused.stdout, 'mcp-host check: 1 problem in the plugin broken');
  t.match(refused.stdout, '"pageSize"');
});

t.test('an author\u2019s test through mcp-host/testing passes, as the README prints it', async (t) => {
  const ws = makeWorkspace(t);
  const dir = writeReadmeWeather(ws, 'weather');
  // What `npm install --save-dev mcp-host` gives the author: the host, resolvable by name.
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(REPO_ROOT, join(dir, 'node_modules/mcp-host'), 'dir');
  ws.writeFile('weather/test/forecast.test.js', readmeBlock('## Plugin authors', 'js', 1));
  const { stdout } = await run(process.execPath, ['--test', 'test/'], { cwd: dir });
  t.match(stdout, /# pass 1\n# fail 0/);

  const { mountForTest } = (await import(
    join(REPO_ROOT, 'dist/host/testing.js')
  )) as typeof import('../host/testing.js');
  const refused = writePlugin(ws, 'narrow', 'narrow', { protocolVersions: ['2025-11-25'], prefix: 'n' }, ['x']);
  await t.rejects(mountForTest(refused), /the host did not mount .*narrow:\n[\s\S]*lacks "2024-11-05"/);
});

t.test('reload names only the notifications a client was sent', async (t) => {
  const ws = makeWorkspace(t);
  const runtimeDir = join(ws.dir, 'run');
  mkdirSync(runtimeDir, { mode: 0o700 });
  const env = { ...process.env, XDG_RUNTIME_DIR: runtimeDir };
  writePlugin(ws, 'node_modules/tools-only', 'tools-only', { prefix: 'a' }, ['one']);
  ws.writePackage(
    'node_modules/with-resources',
    { name: 'with-resources', type: 'module', exports: './index.js', 'mcp-host': { prefix: 'b' } },
    {
      'index.js': `import { McpServer } from '@modelcontextprotocol/server';
export default { create() {
  const server = new McpServer({ name: 'r', version: '1.0.0' });
  server.registerTool('two', { description: 'two' }, async () => ({ content: [] }));
  server.registerResource('doc', 'doc://one', {}, async (uri) => ({ contents: [{ uri: uri.href, text: 'one' }] }));
  return server;
} };
`,
    },
  );
  const file = ws.writeConfig({ plugins: [{ package: 'tools-only' }], reload: { watch: false } });
  const host = await startStdioHost(t, file, { env });
  t.notOk(host.client.getServerCapabilities()?.resources, 'the session was offered no resources');
  ws.writeConfig({ plugins: [{ package: 'tools-only' }, { package: 'with-resources' }], reload: { watch: false } });
  const reloaded = await runCli(['reload', '--config', file], { env });
  t.equal(reloaded.code, 0, reloaded.stderr);
  t.match(reloaded.stdout, '  resources added: doc://one\n');
  t.match(reloaded.stdout, '  clients notified: tools\n');
  await host.until('tools/list_changed', () => host.notified.tools === 1);
});
