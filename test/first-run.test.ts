// The first five minutes of an operator, as the README leads them: its own
// examples mount under the default config; init writes a config that check
// accepts, and never overwrites one; check's one pass over config and
// package problems; and reload reporting the notifications it really sent.
// Real packages in temporary workspaces, the CLI as a child process.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { namedToken, tokenId } from '../host/config/token-names.js';
import { runCli, startStdioHost } from './helpers/host.js';
import { makeWorkspace, REPO_ROOT } from './helpers/packages.js';
import { readmeBlock, writePlugin, writeReadmeWeather } from './helpers/readme.js';
import { firstText } from './helpers/results.js';

const run = promisify(execFile);

t.test("the README's operator config mounts the README's plugin and the filesystem server", async (t) => {
  const ws = makeWorkspace(t);
  writeReadmeWeather(ws, 'node_modules/weather', 'README');
  mkdirSync(join(ws.dir, 'data'));
  ws.writeFile('data/hello.txt', 'hello');
  const config = readmeBlock('## Operators: first steps', 'js', 0);
  t.match(config, "{ package: 'weather' }", 'the block is the operator example');
  const file = ws.writeConfig(config);

  const checked = await runCli(['check', '--config', file]);
  t.equal(checked.code, 0, checked.stdout + checked.stderr);
  t.match(checked.stdout, 'tools: weather.forecast');
  t.match(checked.stdout, /tools: fs\.read_file/);

  const host = await startStdioHost(t, file);
  const result = await host.client.callTool({ name: 'weather.forecast', arguments: { city: 'Oslo' } });
  t.same(result.content, [{ type: 'text', text: 'Sunny in Oslo (metric)' }]);
  const listed = await host.client.callTool({ name: 'fs.list_directory', arguments: { path: join(ws.dir, 'data') } });
  t.match(firstText(listed), '[FILE] hello.txt', "--arg's directory is the one the server may use");
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
  // A host is dynamic: resources are offered before any plugin serves one, so a reload that adds some is announced.
  t.same(host.client.getServerCapabilities()?.resources, { listChanged: true }, 'resources offered, none served yet');
  ws.writeConfig({ plugins: [{ package: 'tools-only' }, { package: 'with-resources' }], reload: { watch: false } });
  const reloaded = await runCli(['reload', '--config', file], { env });
  t.equal(reloaded.code, 0, reloaded.stderr);
  t.match(reloaded.stdout, '  resources added: doc://one\n');
  t.match(reloaded.stdout, '  clients notified: tools, resources\n');
  await host.until('tools/list_changed', () => host.notified.tools === 1);
  await host.until('resources/list_changed', () => host.notified.resources === 1);
});

t.test('a misspelled package is answered with the installed one it resembles before any install command', async (t) => {
  const ws = makeWorkspace(t);
  writeReadmeWeather(ws, 'node_modules/weather', 'README');
  const checked = await runCli(['check', '--config', ws.writeConfig({ plugins: [{ package: 'wether' }] })]);
  t.equal(checked.code, 1);
  t.match(
    checked.stdout,
    `- mcp-host.config.js: plugins[0].package: the package "wether" is not installed: no node_modules/wether in ${ws.dir} or the directories above it. Fix: did you mean "weather" (installed)? If "wether" is the package you want, run npm install wether in ${ws.dir}.`,
  );
});

t.test('check in a plugin package without the "mcp-host" field says to add it', async (t) => {
  const ws = makeWorkspace(t);
  const dir = ws.writePackage(
    'greeter',
    {
      name: '@acme/mcp-greeter',
      type: 'module',
      exports: './index.js',
      dependencies: { zod: '^4.0.0', '@modelcontextprotocol/server': '^2.4.0' },
    },
    { 'index.js': 'export default { create() {} };\n' },
  );
  const checked = await runCli(['check'], { cwd: dir });
  t.equal(checked.code, 1);
  t.equal(
    checked.stderr,
    `mcp-host: ${join(dir, 'package.json')}: the package "@acme/mcp-greeter" has no "mcp-host" field, so check cannot tell that it is a plugin (and no host config is found here). Fix: add "mcp-host": { "prefix": "greeter" } to its package.json, then run mcp-host check again; to serve plugins from this directory instead, write a host config with mcp-host init.\n`,
  );
});

t.test('init where there is no package.json says so, and how to make one', async (t) => {
  // Outside the repository: no package.json above it either.
  const dir = mkdtempSync(join(tmpdir(), 'mcp-host-init-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const init = await runCli(['init'], { cwd: dir });
  t.equal(init.code, 0, init.stderr);
  t.equal(
    init.stdout,
    `wrote ${join(dir, 'mcp-host.config.js')} (CommonJS, as Node reads a .js file with no package.json)\n` +
      `there is no package.json in ${dir} or above it: run npm init -y here, so that mcp-host add installs packages beside this config\n` +
      'next: mcp-host add PACKAGE to mount a plugin or an MCP server from npm; mcp-host check to see the catalogue\n',
  );
});

t.test('init --plugin writes a plugin package whose own test and check pass as written', async (t) => {
  const ws = makeWorkspace(t);
  const init = await runCli(['init', '--plugin', '@acme/mcp-greeter'], { cwd: ws.dir });
  t.equal(init.code, 0, init.stderr);
  const dir = join(ws.dir, 'mcp-greeter');
  t.match(
    init.stdout,
    `wrote the plugin package @acme/mcp-greeter in ${dir}: package.json, index.js, test/greeter.test.js`,
  );
  const packageJson = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
  t.same(packageJson['mcp-host'], { prefix: 'greeter' });
  t.same(packageJson.peerDependencies, { 'mcp-host': '^1.0.0' });
  t.same(packageJson.devDependencies, { 'mcp-host': `file:${REPO_ROOT}` }, 'its tests use this host');
  // What its npm install links: this host, by name (the SDK and zod resolve from the repository's node_modules).
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(REPO_ROOT, join(dir, 'node_modules/mcp-host'), 'dir');
  const { stdout } = await run(process.execPath, ['--test', '--test-reporter=tap'], { cwd: dir });
  t.match(stdout, /# pass 1\n# fail 0/, 'npm test passes');
  const checked = await runCli(['check'], { cwd: dir });
  t.equal(checked.code, 0, checked.stdout + checked.stderr);
  t.match(checked.stdout, 'tools: greeter.greet\n  prompts: greeter.introduce\n  resources: about://plugin');

  const again = await runCli(['init', '--plugin', '@acme/mcp-greeter'], { cwd: ws.dir });
  t.equal(again.code, 1);
  t.equal(
    again.stderr,
    `mcp-host: ${dir}: the directory exists and is not empty; init never overwrites files. Fix: run mcp-host init --plugin @acme/mcp-greeter where there is no mcp-greeter/, or remove that directory first.\n`,
  );
  const badName = await runCli(['init', '--plugin', 'Greeter!'], { cwd: ws.dir });
  t.equal(badName.code, 1);
  t.match(badName.stderr, 'mcp-host init --plugin "Greeter!": NAME is not a name npm accepts for a new package.');
});

t.test('a token given without a name is written one way in the docs, as the host names it', async (t) => {
  const docs = ['README.md', ...readdirSync(join(REPO_ROOT, 'docs')).map((name) => `docs/${name}`)];
  for (const file of docs.filter((name) => name.endsWith('.md'))) {
    const text = readFileSync(join(REPO_ROOT, file), 'utf8');
    t.notMatch(text, /\btoken-(N|\d{1,3})\b/, `${file} names no token by its place in the list`);
  }
  const access = readFileSync(join(REPO_ROOT, 'docs/access.md'), 'utf8');
  const example = /named `token-` and the first 8 hex digits of its SHA-256 \(`(token-[0-9a-f]{8})`\)/.exec(access);
  t.ok(example, 'docs/access.md says how it is named');
  t.equal(tokenId('s3cret-token-for-the-docs-0123456789'), namedToken('s3cret-token-for-the-docs-0123456789').name);
  t.match(tokenId('x'), /^token-[0-9a-f]{8}$/);
});
