/**
 * What a `'process'` or `'sandbox'` plugin may read of the packages it
 * depends on: those its package.json names with a valid npm name, found in
 * a node_modules directory, never the config's directory nor one of its
 * ancestors, and each by its link and its real path. A hostile plugin that
 * names the operator's project as a dependency (a name that is a path, or a
 * `file:` link installed from a tarball) reads neither the config nor a
 * tokens file beside it; a plugin installed by pnpm, or as an npm
 * workspace, whose dependencies are symlinks, serves at both levels. The
 * host runs as a child process; the plugins are real packages, installed by
 * the real pnpm and npm.
 */
import t, { type Test } from 'tap';
import { execFile } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { makeWorkspace, REPO_ROOT, type Workspace } from './helpers/packages.js';
import { assertLogged, startStdioHost } from './helpers/host.js';

const run = promisify(execFile);
const CONFIG_SECRET = 'CONFIG-of-the-operator';
const TOKENS_SECRET = 'TOKEN-of-the-operator';

/** Reads what its options name, each attempt's outcome in its answer. */
const READER = `
import { readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/server';
const attempt = (path) => { try { return readFileSync(path, 'utf8'); } catch (error) { return 'refused: ' + (error.code ?? error.message); } };
export default {
  create({ options }) {
    const server = new McpServer({ name: 'reader', version: '1.0.0' });
    server.registerTool('peek', {}, async () => ({
      content: [{ type: 'text', text: JSON.stringify({ config: attempt(options.config), tokens: attempt(options.tokens) }) }],
    }));
    server.registerTool('ok', {}, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
    return server;
  },
};
`;

/** Answers with what it imports from its dependency "helper". */
const USES_HELPER = `
import { McpServer } from '@modelcontextprotocol/server';
import { greeting } from 'helper';
export default {
  create() {
    const server = new McpServer({ name: 'uses-helper', version: '1.0.0' });
    server.registerTool('greet', {}, async () => ({ content: [{ type: 'text', text: greeting }] }));
    return server;
  },
};
`;

/** "helper", which imports its own dependency "leaf" (`leafSpec`), and "leaf": written under `dir`. */
function writeHelpers(ws: Workspace, dir: string, leafSpec: string): void {
  const pkg = (name: string, dependencies = {}) => ({
    name,
    version: '1.0.0',
    type: 'module',
    exports: './index.js',
    dependencies,
  });
  ws.writePackage(join(dir, 'helper'), pkg('helper', { leaf: leafSpec }), {
    'index.js': "import { name } from 'leaf';\nexport const greeting = 'hello from ' + name;",
  });
  ws.writePackage(join(dir, 'leaf'), pkg('leaf'), { 'index.js': "export const name = 'a linked helper';" });
}

/** A plugin package that imports "helper" and the SDK (which the host provides: a peer). */
const helperUser = (name: string, helperSpec: string) => ({
  name,
  version: '1.0.0',
  type: 'module',
  exports: './index.js',
  dependencies: { helper: helperSpec },
  peerDependencies: { '@modelcontextprotocol/server': '*' },
  'mcp-host': { prefix: name },
});

function textOf(result: unknown): string {
  return (result as { content: { text: string }[] }).content[0]?.text ?? '';
}

/** The package.json of a workspace that is a project root, with `fields` added. */
function projectRoot(ws: Workspace, fields: Record<string, unknown>): void {
  ws.writeFile('package.json', JSON.stringify({ name: 'project', private: true, type: 'module', ...fields }));
}

for (const configDir of ['.', 'ops']) {
  const what = configDir === '.' ? "the config's directory" : "an ancestor of the config's directory";
  t.test(`a dependency that is ${what} is not readable, by a path for a name or by a link`, async (t) => {
    const ws = makeWorkspace(t);
    // The project root: the config's directory, or its parent.
    const project = ws.dir;
    const config = join(project, configDir, 'mcp-host.config.js');
    const tokens = ws.writeFile(join(configDir, 'tokens'), `${TOKENS_SECRET}\n`);
    const reader = { version: '1.0.0', type: 'module', exports: './index.js' };
    // A plugin used from a local path: a "name" that is a path to the project root.
    ws.writePackage(
      'plugins/local',
      {
        ...reader,
        name: 'local',
        optionalDependencies: { '../..': '*', homelib: '*' },
        'mcp-host': { prefix: 'local' },
      },
      { 'index.js': READER },
    );
    // Found only in one of Node's global folders (~/.node_libraries), not in a node_modules directory.
    const home = join(project, 'home');
    ws.writePackage('home/.node_libraries/homelib', { name: 'homelib', version: '1.0.0' });
    // A plugin installed from a tarball with scripts off: npm links its file: dependency to the project root.
    const tarball = ws.writePackage(
      'node_modules/tarball',
      { ...reader, name: 'tarball', dependencies: { projroot: 'file:../..' }, 'mcp-host': { prefix: 'tarball' } },
      { 'index.js': READER },
    );
    mkdirSync(join(tarball, 'node_modules'));
    symlinkSync('../../..', join(tarball, 'node_modules', 'projroot'));
    const options = { config, tokens };
    const plugins = [
      { package: join(project, 'plugins/local'), isolation: 'process', options },
      { package: 'tarball', isolation: 'sandbox', options },
      { package: 'tarball', prefix: 'tarproc', isolation: 'process', options },
    ];
    ws.writeConfig(
      `// ${CONFIG_SECRET}\nexport default ${JSON.stringify({ plugins })};\n`,
      join(configDir, 'mcp-host.config.js'),
    );
    const host = await startStdioHost(t, config, { env: { HOME: home } });
    for (const prefix of ['local', 'tarball', 'tarproc']) {
      const found = textOf(await host.client.callTool({ name: `${prefix}.peek`, arguments: {} }));
      t.notOk(found.includes(CONFIG_SECRET), `${prefix}: the config was not read`);
      t.notOk(found.includes(TOKENS_SECRET), `${prefix}: the tokens file beside it was not read`);
      t.match(JSON.parse(found), { config: /^refused/, tokens: /^refused/ }, `${prefix}: both reads were refused`);
      t.equal(textOf(await host.client.callTool({ name: `${prefix}.ok`, arguments: {} })), 'ok', 'it serves on');
    }
    await assertLogged(
      t,
      host.log,
      /"plugin":"local"[^\n]*its process may not read dependency \\"\.\.\/\.\.\\" of \/[^\n]*: it is not an npm package name, so it could name any directory\. Fix: install it under its npm name into node_modules/,
      'the name that is a path is logged, naming the plugin and why',
    );
    await assertLogged(
      t,
      host.log,
      new RegExp(
        `"plugin":"tarball"[^\\n]*its process may not read dependency \\\\"projroot\\\\" of ${tarball}: it resolves to ${project}, which holds the config's directory \\(${dirname(config)}\\)`,
      ),
      'the link to the project is logged, naming the plugin, the dependency and why',
    );
    await assertLogged(
      t,
      host.log,
      new RegExp(
        `"plugin":"local"[^\\n]*its process may not read dependency \\\\"homelib\\\\" of [^:]*: it was found at ${home}/.node_libraries/homelib, outside any node_modules directory`,
      ),
      "a package in Node's global folders is logged, and not read",
    );
  });
}

/** Plugin `name`, installed in `ws`, at 'process' and 'sandbox': each answers with what its "helper" imported. */
async function servesAtBothLevels(t: Test, ws: Workspace, name: string, what: string): Promise<void> {
  const config = ws.writeConfig({
    plugins: [
      { package: name, prefix: 'proc', isolation: 'process' },
      { package: name, prefix: 'box', isolation: 'sandbox' },
    ],
  });
  const host = await startStdioHost(t, config);
  for (const prefix of ['proc', 'box']) {
    const greeting = textOf(await host.client.callTool({ name: `${prefix}.greet`, arguments: {} }));
    t.equal(greeting, 'hello from a linked helper', `${prefix}: ${what}`);
  }
}

t.test('a plugin installed by pnpm, its dependencies symlinks, serves at "process" and "sandbox"', async (t) => {
  const ws = makeWorkspace(t);
  projectRoot(ws, { dependencies: { linked: 'file:./src/linked' } });
  ws.writePackage('src/linked', helperUser('linked', 'file:../helper'), { 'index.js': USES_HELPER });
  writeHelpers(ws, 'src', 'file:../leaf');
  // The SDK is the host's (a peer the plugin does not install), so the install needs no registry.
  ws.writeFile('pnpm-workspace.yaml', 'autoInstallPeers: false\nstrictPeerDependencies: false\n');
  const pnpm = join(REPO_ROOT, 'node_modules/.bin/pnpm');
  const own = (dir: string) => join(ws.dir, dir);
  await run(
    pnpm,
    ['install', '--offline', '--ignore-scripts', '--store-dir', own('store'), '--cache-dir', own('cache')],
    {
      cwd: ws.dir,
    },
  );
  await servesAtBothLevels(t, ws, 'linked', 'it imported its symlinked dependency, and that one its own');
});

t.test(
  'a plugin of an npm workspace, its dependency a linked workspace, serves at "process" and "sandbox"',
  async (t) => {
    const ws = makeWorkspace(t);
    projectRoot(ws, { workspaces: ['packages/*'] });
    ws.writePackage('packages/member', helperUser('member', '*'), { 'index.js': USES_HELPER });
    writeHelpers(ws, 'packages', '*');
    await run('npm', ['install', '--offline', '--ignore-scripts', '--legacy-peer-deps', '--no-audit', '--no-fund'], {
      cwd: ws.dir,
    });
    await servesAtBothLevels(t, ws, 'member', 'it imported the workspace it depends on, and that one its own');
  },
);

/** Answers, for each path its options name, whether it could read it (or the error code). */
const PEEKER = `
import { readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/server';
const attempt = (path) => { try { readFileSync(path); return 'read'; } catch (error) { return 'refused: ' + (error.code ?? error.message); } };
export default {
  create({ options }) {
    const server = new McpServer({ name: 'peeker', version: '1.0.0' });
    server.registerTool('peek', {}, async () => ({
      content: [{ type: 'text', text: JSON.stringify(Object.fromEntries(options.paths.map((path) => [path, attempt(path)]))) }],
    }));
    return server;
  },
};
`;

t.test(
  "of the host's package, a plugin reads its code (the bin's bundle and tsc's build) and package.json, nothing else",
  async (t) => {
    // The bundle's modules share a few files in dist/bundle: a path found from a module's own location names another
    // folder there than in dist/host (code-location.ts), and "../.." from the isolation's code would be the package.
    const ws = makeWorkspace(t);
    ws.writePackage(
      'node_modules/peeker',
      { name: 'peeker', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': { prefix: 'peeker' } },
      { 'index.js': PEEKER },
    );
    const granted = ['dist/bundle/cli.js', 'dist/host/plugin.js', 'package.json'];
    const refused = ['README.md', 'package-lock.json', 'test/isolation-reads.test.ts', 'dist/test/helpers/host.js'];
    const paths = [...granted, ...refused].map((path) => join(REPO_ROOT, path));
    const config = ws.writeConfig({
      plugins: [
        { package: 'peeker', prefix: 'proc', isolation: 'process', options: { paths } },
        { package: 'peeker', prefix: 'box', isolation: 'sandbox', options: { paths } },
      ],
    });
    const host = await startStdioHost(t, config);
    for (const prefix of ['proc', 'box']) {
      const outcomes = JSON.parse(
        textOf(await host.client.callTool({ name: `${prefix}.peek`, arguments: {} })),
      ) as Record<string, string>;
      for (const path of granted) t.equal(outcomes[join(REPO_ROOT, path)], 'read', `${prefix}: ${path} read`);
      for (const path of refused) t.match(outcomes[join(REPO_ROOT, path)], /^refused/, `${prefix}: ${path} refused`);
    }
  },
);
