// mcp-host add, as a new operator runs it: add installs
// a local directory or an npm pack tarball, checks it as check does, and
// inserts its line keeping the file's comments; a refused package changes
// nothing. npm runs offline: local paths and tarballs only.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { runCli } from './helpers/host.js';
import { makeWorkspace, type Workspace } from './helpers/packages.js';
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

/** A plugin whose postinstall script leaves `ran-<name>` in the workspace (npm runs it in the installed package). */
function writeScriptedPlugin(ws: Workspace, name: string, postinstall?: string): void {
  const dir = writePlugin(ws, `vendor/${name}`, name, { prefix: name }, ['x']);
  const packageJson = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
  const marker = `require('fs').writeFileSync(require('path').join(process.env.INIT_CWD, 'ran-${name}'), '')`;
  packageJson.scripts = { postinstall: postinstall ?? `node -e "${marker}"` };
  ws.writeFile(`vendor/${name}/package.json`, JSON.stringify(packageJson));
}

t.test('add installs with scripts off; they run only once the package passed its check, when allowed', async (t) => {
  const ws = makeWorkspace(t);
  ws.writeConfig('export default { plugins: [] };\n');
  const ran = (name: string) => existsSync(join(ws.dir, `ran-${name}`));

  writeScriptedPlugin(ws, 'scripted');
  const added = await runCli(['add', './vendor/scripted'], { cwd: ws.dir, env: OFFLINE });
  t.equal(added.code, 0, added.stderr);
  t.match(added.stderr, 'mcp-host add: npm install --ignore-scripts ./vendor/scripted');
  t.notOk(ran('scripted'), 'its postinstall did not run');
  t.match(
    added.stdout,
    `the install scripts of scripted were not run: if you trust them, run npm rebuild scripted in ${ws.dir}, or add with --allow-scripts.\n`,
  );

  // From a tarball, as from a registry: installed under node_modules, not linked.
  writeScriptedPlugin(ws, 'trusted');
  const packed = await run('npm', ['pack', '--pack-destination', ws.dir], {
    cwd: join(ws.dir, 'vendor/trusted'),
    env: OFFLINE,
  });
  const tarball = packed.stdout.trim().split('\n').at(-1)!;
  const allowed = await runCli(['add', tarball, '--allow-scripts'], { cwd: ws.dir, env: OFFLINE });
  t.equal(allowed.code, 0, allowed.stderr);
  t.match(allowed.stderr, 'mcp-host add: trusted passed its check; npm rebuild trusted runs the install scripts');
  t.match(allowed.stdout, 'ran the install scripts of trusted\n');
  t.ok(ran('trusted'), 'its postinstall ran, after the check');
  t.notOk(ran('scripted'), 'not the scripts of what an earlier add installed');

  writeScriptedPlugin(ws, 'failing', 'node -e "process.exit(3)"');
  const failing = await runCli(['add', './vendor/failing', '--allow-scripts'], { cwd: ws.dir, env: OFFLINE });
  t.equal(failing.code, 1);
  t.match(
    failing.stderr,
    `mcp-host: ${ws.dir}: npm rebuild failing, which runs their install scripts, failed (exit 3); npm's reason is above. The entry is added. Fix: correct what npm names and run npm rebuild failing in ${ws.dir} again.`,
  );

  const usage = await runCli(['check', '--allow-scripts'], { cwd: ws.dir });
  t.equal(usage.code, 2);
  t.match(usage.stderr, 'mcp-host: --prefix, --flat and --allow-scripts go with "add"\n');
});

t.test('a refused package’s install scripts never run; the refusal says how to run them', async (t) => {
  const ws = makeWorkspace(t);
  const original = 'export default { plugins: [] };\n';
  const file = ws.writeConfig(original);
  writeScriptedPlugin(ws, 'broken');
  ws.writeFile(
    'vendor/broken/index.js',
    'export default { create() { throw new Error("needs its native addon"); } };\n',
  );
  const added = await runCli(['add', './vendor/broken', '--allow-scripts'], { cwd: ws.dir, env: OFFLINE });
  t.equal(added.code, 1);
  t.notOk(existsSync(join(ws.dir, 'ran-broken')), 'its postinstall never ran');
  t.equal(readFileSync(file, 'utf8'), original);
  t.match(added.stderr, 'plugin "broken" (plugins[0]): create() threw: needs its native addon');
  t.match(
    added.stderr,
    `The install scripts of broken were not run (add runs none before the check): if the package needs them to load and you trust it, run npm rebuild broken in ${ws.dir}, then mcp-host check.\n`,
  );
});
