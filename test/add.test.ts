// mcp-host add, as a new operator runs it: add installs
// a local directory or an npm pack tarball, checks it as check does, and
// inserts its line keeping the file's comments; a refused package changes
// nothing. npm runs offline: local paths and tarballs only.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import t from 'tap';
import { runCli } from './helpers/host.js';
import { makeWorkspace } from './helpers/packages.js';
import { writePlugin } from './helpers/readme.js';

const run = promisify(execFile);
/** npm never reaches a registry in these tests. */
const OFFLINE = { ...process.env, npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' };

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
