// mcp-host add, as a new operator runs it: add installs
// a local directory or an npm pack tarball, checks it as check does, and
// inserts its line keeping the file's comments; a refused package changes
// nothing. npm runs offline: local paths and tarballs only.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { runCli, startStdioHost } from './helpers/host.js';
import { makeWorkspace, type Workspace } from './helpers/packages.js';
import { writePlugin } from './helpers/readme.js';
import { firstText } from './helpers/results.js';

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

/**
 * A stdio MCP server package with two bins, as many on npm are: `exits-with-usage`
 * prints its usage and exits; `echo-args` serves one tool answering with the
 * arguments and environment it was started with, and, started with none, serves
 * nothing and says why on its stderr (as the filesystem server does).
 */
function writeServerPackage(ws: ReturnType<typeof makeWorkspace>): void {
  ws.writePackage(
    'vendor/srv',
    {
      name: 'srv',
      version: '1.0.0',
      type: 'module',
      bin: { 'exits-with-usage': './exits.js', 'echo-args': './echo.js' },
    },
    {
      'exits.js': "#!/usr/bin/env node\nconsole.error('Usage: exits-with-usage DIR');\nprocess.exit(1);\n",
      'echo.js': `#!/usr/bin/env node
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
const args = process.argv.slice(2);
const server = new McpServer({ name: 'srv', version: '1.0.0' });
if (args.length === 0) console.error('no directory given: serving nothing');
else server.tool('args', async () => ({ content: [{ type: 'text', text: JSON.stringify({ args, token: process.env.TOKEN, mode: process.env.MODE }) }] }));
await server.connect(new StdioServerTransport());
`,
    },
  );
}

t.test('add passes --arg, --env and --bin to a server package, and shows what a server said it needs', async (t) => {
  const ws = makeWorkspace(t);
  writeServerPackage(ws);
  const empty = 'export default {\n  plugins: [],\n};\n';
  const file = ws.writeConfig(empty);

  const exits = await runCli(['add', './vendor/srv', '--bin', 'exits-with-usage'], { cwd: ws.dir, env: OFFLINE });
  t.equal(exits.code, 1);
  t.match(
    exits.stderr,
    'mcp-host add: srv wrote on its stderr while it was checked:\n  Usage: exits-with-usage DIR\nIf it needs arguments (a directory, a key), give them: mcp-host add ./vendor/srv --arg VALUE (once per argument).\n',
  );
  t.equal(readFileSync(file, 'utf8'), empty, 'refused: the config is unchanged');

  const bare = await runCli(['add', './vendor/srv', '--bin', 'echo-args'], { cwd: ws.dir, env: OFFLINE });
  t.equal(bare.code, 0, bare.stderr);
  t.match(
    bare.stderr,
    `mcp-host add: srv wrote on its stderr while it was checked:\n  no directory given: serving nothing\nIf it needs arguments (a directory, a key), put them in its entry's args in ${file} (args: ['VALUE']).\n`,
  );

  ws.writeConfig(empty);
  const env = { ...OFFLINE, TOKEN: 'secret-from-the-environment' };
  const args = ['--bin', 'echo-args', '--prefix', 'e', '--arg', 'one', '--arg', 'two words', '--env', 'TOKEN'];
  const added = await runCli(['add', './vendor/srv', ...args, '--env', 'MODE=ro'], { cwd: ws.dir, env });
  t.equal(added.code, 0, added.stderr);
  t.notMatch(added.stderr, 'wrote on its stderr', 'a server that serves, without a usage line, is not quoted');
  t.equal(
    readFileSync(file, 'utf8'),
    "export default {\n  plugins: [{ package: 'srv', prefix: 'e', bin: 'echo-args', args: ['one', 'two words'], env: { TOKEN: process.env.TOKEN, MODE: 'ro' } }],\n};\n",
    'the secret stays in the environment; the value given is written',
  );
  t.match(
    added.stdout,
    `added {"package":"srv","prefix":"e","bin":"echo-args","args":["one","two words"],"env":{"TOKEN":"process.env.TOKEN","MODE":"ro"}} to ${file}`,
  );
  const host = await startStdioHost(t, file, { env });
  t.same(JSON.parse(firstText(await host.client.callTool({ name: 'e.args', arguments: {} }))), {
    args: ['one', 'two words'],
    token: 'secret-from-the-environment',
    mode: 'ro',
  });
});

t.test('add judges its flags before installing anything', async (t) => {
  const ws = makeWorkspace(t);
  writeServerPackage(ws);
  const original =
    "export default {\n  plugins: [{ package: './vendor/srv', prefix: 'taken', bin: 'echo-args', args: ['x'] }],\n};\n";
  const file = ws.writeConfig(original);
  const packageJson = readFileSync(join(ws.dir, 'package.json'), 'utf8');
  const refusals: [string[], string][] = [
    [
      ['--prefix', 'my.mem'],
      `mcp-host: mcp-host.config.js: plugins[1].prefix (--prefix): "my.mem" contains the separator ".". Fix: use only letters, digits, "_" and "-", e.g. "mymem".\n`,
    ],
    [
      ['--prefix', 'taken'],
      `mcp-host: mcp-host.config.js: plugins[1].prefix (--prefix): the prefix "taken" is already used by plugins[0]; a prefix is used once. Fix: choose another --prefix, e.g. "taken2".\n`,
    ],
    [
      ['--env', 'NOT_SET_ANYWHERE'],
      `mcp-host: --env NOT_SET_ANYWHERE: NOT_SET_ANYWHERE is not set in this environment, so the server would get nothing for it (${file} would read process.env.NOT_SET_ANYWHERE). Fix: set it for mcp-host add and for the host (export NOT_SET_ANYWHERE=…), or give the value: --env NOT_SET_ANYWHERE=VALUE.\n`,
    ],
    [
      ['--env', '1BAD=x'],
      `mcp-host: --env 1BAD=x: "1BAD" is not an environment variable name (letters, digits and "_", not first a digit). Fix: write --env NAME to pass the host's own NAME, or --env NAME=VALUE.\n`,
    ],
  ];
  for (const [flags, message] of refusals) {
    const refused = await runCli(['add', './vendor/srv', ...flags], { cwd: ws.dir, env: OFFLINE });
    t.equal(refused.code, 1, flags.join(' '));
    t.equal(refused.stderr, message, flags.join(' '));
  }
  const json = ws.writeConfig('{ "plugins": [] }\n', '.mcp-hostrc.json');
  const fromJson = await runCli(['add', './vendor/srv', '--env', 'HOME', '--config', json], {
    cwd: ws.dir,
    env: OFFLINE,
  });
  t.equal(
    fromJson.stderr,
    `mcp-host: --env HOME: ${json} is not JavaScript or TypeScript, so it cannot read HOME from the host's environment when it loads. Fix: give the value (--env HOME=VALUE; it is then written into the file), or use an mcp-host.config.js.\n`,
  );
  t.equal(readFileSync(file, 'utf8'), original, 'the config is unchanged');
  t.equal(readFileSync(join(ws.dir, 'package.json'), 'utf8'), packageJson, 'nothing was installed');
  t.notOk(existsSync(join(ws.dir, 'node_modules/srv')), 'nothing was installed');
  const misplaced = await runCli(['check', '--arg', 'x'], { cwd: ws.dir });
  t.equal(misplaced.code, 2);
  t.match(misplaced.stderr, '--prefix, --flat, --arg, --env, --bin and --allow-scripts go with "add"');
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
  t.match(usage.stderr, 'mcp-host: --prefix, --flat, --arg, --env, --bin and --allow-scripts go with "add"\n');
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
