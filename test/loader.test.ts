// Plugin resolution and compatibility checks, with real packages written to
// a temporary workspace: resolution from the config's directory, every
// refusal made from package.json alone (exact messages), server packages and
// their bins, command and URL entries, fingerprints, and the definition
// check after a fresh import.
import { realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { loadConfig } from '../host/config/load.js';
import { formatProblem, problemsOf, type Problem } from '../host/errors.js';
import { loadDefinition } from '../host/loader/definition.js';
import { tagLoadedInPlace } from '../host/fresh-import.js';
import { readPackageJson } from '../host/loader/package-json-cache.js';
import { resolvePlugins } from '../host/loader/resolve-plugins.js';
import type { InProcessSpec, PluginSpec } from '../host/loader/types.js';
import { makeWorkspace, PACKAGE_VERSION, type Workspace } from './helpers/packages.js';

/** Every revision the host's SDK speaks, the 2024-10-07 draft included: a manifest accepting them all. */
const EVERY_REVISION = ['2024-10-07', '2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'];

/** A plugin entry module whose server reports `tag`, so a test can tell which code ran. */
const pluginSource = (tag: string) =>
  `export default { create: () => ({ tag: ${JSON.stringify(tag)}, connect: async () => {}, close: async () => {} }) };\n`;

/** A plugin package.json accepting every revision the host knows, with `manifest` merged into its "mcp-host" field. */
function pluginJson(name: string, manifest: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return {
    name,
    version: '1.4.0',
    type: 'module',
    exports: './index.js',
    peerDependencies: { 'mcp-host': `>=${PACKAGE_VERSION}` },
    'mcp-host': { protocolVersions: EVERY_REVISION, ...manifest },
    ...extra,
  };
}

/** Install a plugin under the workspace's node_modules, resolvable by name. */
function installPlugin(
  ws: Workspace,
  name: string,
  manifest?: Record<string, unknown>,
  extra?: Record<string, unknown>,
) {
  return ws.writePackage(join('node_modules', name), pluginJson(name, manifest, extra), {
    'index.js': pluginSource(name),
  });
}

async function resolveWith(ws: Workspace, config: Record<string, unknown>) {
  ws.writeConfig(config);
  return resolvePlugins(await loadConfig({ cwd: ws.dir }));
}

const messages = (problems: Problem[]) => problems.map(formatProblem);

/** What JSON.parse says about `text` on this Node version. */
function jsonError(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('valid JSON');
}

/** The one spec a config resolves to; throws (failing the test) on any problem. */
async function onlySpec(ws: Workspace, config: Record<string, unknown>): Promise<PluginSpec> {
  const { specs, problems } = await resolveWith(ws, config);
  if (problems.length > 0 || specs.length !== 1) {
    throw new Error(`expected one spec, got ${specs.length}:\n${messages(problems).join('\n')}`);
  }
  return specs[0]!;
}

t.test(
  'a plugin installed by name, whose exports map hides package.json, resolves to an in-process spec',
  async (t) => {
    const ws = makeWorkspace(t);
    const dir = ws.writePackage(
      'node_modules/@acme/mcp-weather',
      pluginJson(
        '@acme/mcp-weather',
        { prefix: 'weather' },
        { exports: { '.': { require: './cjs/index.cjs', import: './esm/index.js' } } },
      ),
      { 'esm/index.js': pluginSource('esm'), 'cjs/index.cjs': 'module.exports = {};\n' },
    );
    const spec = await onlySpec(ws, { plugins: [{ package: '@acme/mcp-weather', options: { units: 'metric' } }] });
    t.match(spec, {
      kind: 'in-process',
      index: 0,
      path: 'plugins[0]',
      label: '@acme/mcp-weather',
      prefix: 'weather',
      flat: false,
      timeoutMs: 60000,
      packageName: '@acme/mcp-weather',
      version: '1.4.0',
      packageDir: dir,
      entryFile: join(dir, 'esm/index.js'),
      manifest: { protocolVersions: EVERY_REVISION, prefix: 'weather' },
      options: { units: 'metric' },
    });
    t.match(spec.fingerprint, /^[0-9a-f]{64}$/);
  },
);

t.test('a local package path, mounted flat; the entry prefix overrides the manifest one', async (t) => {
  const ws = makeWorkspace(t);
  const clock = ws.writePackage(
    'plugins/clock',
    pluginJson('clock', { prefix: 'clock' }, { exports: undefined, main: 'lib/main' }),
    {
      'lib/main.js': pluginSource('clock'),
    },
  );
  const flat = await onlySpec(ws, { plugins: [{ package: './plugins/clock', flat: true, timeoutMs: 5 }] });
  t.match(flat, { kind: 'in-process', flat: true, timeoutMs: 5, entryFile: join(clock, 'lib/main.js') });
  t.notOk('prefix' in flat, 'a flat mount has no prefix, even when the manifest declares one');
  const prefixed = await onlySpec(ws, { plugins: [{ package: join(ws.dir, 'plugins/clock'), prefix: 'time' }] });
  t.match(prefixed, { prefix: 'time', flat: false });
});

t.test('a package that is not installed, or a local path that does not exist', async (t) => {
  const ws = makeWorkspace(t);
  ws.writePackage('plugins/empty', { name: 'empty' });
  writeFileSync(join(ws.dir, 'plugins/empty/package.json'), '{ nope');
  const { specs, problems } = await resolveWith(ws, {
    plugins: [
      { package: '@acme/mcp-nope', prefix: 'nope' },
      { package: './plugins/missing', prefix: 'missing' },
      { package: './plugins/empty', prefix: 'empty' },
    ],
  });
  t.same(specs, []);
  t.same(messages(problems), [
    `mcp-host.config.js: plugins[0].package: the package "@acme/mcp-nope" is not installed: no node_modules/@acme/mcp-nope in ${ws.dir} or the directories above it. Fix: run npm install @acme/mcp-nope in ${ws.dir}.`,
    `mcp-host.config.js: plugins[1].package: the local package "./plugins/missing" does not exist (${join(ws.dir, 'plugins/missing')}). Fix: check the path: a relative path starts from the config's directory, ${ws.dir}.`,
    `mcp-host.config.js: plugins[2].package: the package.json of "./plugins/empty" (${join(ws.dir, 'plugins/empty/package.json')}) is not valid JSON: ${jsonError('{ nope')}. Fix: correct it.`,
  ]);
});

t.test('a package whose entry is missing', async (t) => {
  const ws = makeWorkspace(t);
  ws.writePackage('node_modules/unbuilt', pluginJson('unbuilt', {}, { exports: './dist/index.js' }));
  ws.writePackage('node_modules/nothing', pluginJson('nothing', {}, { exports: undefined }));
  const { problems } = await resolveWith(ws, {
    plugins: [
      { package: 'unbuilt', prefix: 'a' },
      { package: 'nothing', prefix: 'b' },
    ],
  });
  t.same(messages(problems), [
    `plugin "unbuilt" (plugins[0]): "unbuilt" exports ./dist/index.js, which does not exist (${join(ws.dir, 'node_modules/unbuilt/dist/index.js')}). Fix: reinstall it: npm install unbuilt`,
    'plugin "nothing" (plugins[1]): "nothing" exports no module to import: its package.json has no "exports" entry for ".", no "main", and there is no index.js. Fix: reinstall it: npm install nothing',
  ]);
});

t.test('exports maps: conditions at the top, nested conditions, arrays of targets', async (t) => {
  const ws = makeWorkspace(t);
  const write = (name: string, exportsField: unknown) =>
    ws.writePackage(`node_modules/${name}`, pluginJson(name, {}, { exports: exportsField }), {
      'index.js': pluginSource(name),
      'node.js': pluginSource(name),
    });
  const conditions = write('conditions', {
    require: './missing.cjs',
    node: { import: './node.js' },
    default: './index.js',
  });
  const array = write('array', { '.': ['not-relative', { browser: './index.js' }, './node.js'], './x': './index.js' });
  const { specs, problems } = await resolveWith(ws, {
    plugins: [
      { package: 'conditions', prefix: 'a' },
      { package: 'array', prefix: 'b' },
    ],
  });
  t.same(messages(problems), []);
  t.same(
    specs.map((spec) => spec.kind === 'in-process' && spec.entryFile),
    [join(conditions, 'node.js'), join(array, 'node.js')],
  );
});

t.test('a package.json that is not an object, a bin that is missing or names nothing', async (t) => {
  const ws = makeWorkspace(t);
  ws.writePackage('node_modules/listed', { name: 'listed' });
  writeFileSync(join(ws.dir, 'node_modules/listed/package.json'), '[]');
  ws.writePackage('node_modules/gone', { name: 'gone', bin: 'cli.js' });
  ws.writePackage('node_modules/empty-bin', { name: 'empty-bin', bin: {} });
  const { problems } = await resolveWith(ws, {
    plugins: [
      { package: 'listed', prefix: 'a' },
      { package: 'gone', prefix: 'b' },
      { package: 'empty-bin', prefix: 'c' },
    ],
  });
  t.same(messages(problems), [
    `mcp-host.config.js: plugins[0].package: the package.json of "listed" (${join(ws.dir, 'node_modules/listed/package.json')}) is not a JSON object. Fix: reinstall the package: npm install listed`,
    `plugin "gone" (plugins[1]): package.json bin: its bin "gone" is cli.js, which does not exist (${join(ws.dir, 'node_modules/gone/cli.js')}). Fix: reinstall it: npm install gone`,
    'plugin "empty-bin" (plugins[2]): package.json bin: its "bin" field names no executable, got an object. Fix: install a working version of "empty-bin".',
  ]);
});

t.test('a plugin accepting fewer revisions than the host range is refused, naming them and the fix', async (t) => {
  const ws = makeWorkspace(t);
  installPlugin(ws, '@acme/mcp-weather', { protocolVersions: ['2025-06-18', '2025-11-25'] });
  const narrower = await resolveWith(ws, { plugins: [{ package: '@acme/mcp-weather', prefix: 'weather' }] });
  t.same(messages(narrower.problems), [
    'plugin "@acme/mcp-weather" (plugins[0]): package.json "mcp-host".protocolVersions: the plugin accepts "2025-06-18" and "2025-11-25", and lacks "2024-11-05", "2025-03-26" and "2026-07-28" of the host\'s protocolVersions. Fix: narrow the host\'s protocolVersions in mcp-host.config.js to ["2025-06-18", "2025-11-25"], or install a version of the plugin that accepts them all.',
  ]);

  const disjoint = await resolveWith(ws, {
    protocolVersions: ['2024-11-05'],
    plugins: [{ package: '@acme/mcp-weather', prefix: 'weather' }],
  });
  t.same(messages(disjoint.problems), [
    'plugin "@acme/mcp-weather" (plugins[0]): package.json "mcp-host".protocolVersions: the plugin accepts "2025-06-18" and "2025-11-25", and lacks "2024-11-05" of the host\'s protocolVersions. Fix: the plugin shares no revision with the host: set the host\'s protocolVersions in mcp-host.config.js to revisions it accepts, e.g. ["2025-06-18", "2025-11-25"], or install a version of the plugin that accepts the host\'s.',
  ]);

  const narrowed = await resolveWith(ws, {
    protocolVersions: ['2025-11-25'],
    plugins: [{ package: '@acme/mcp-weather', prefix: 'weather' }],
  });
  t.same(messages(narrowed.problems), [], "a host range within the plugin's is accepted");
});

t.test('an unknown revision or a malformed list in a manifest is an error', async (t) => {
  const ws = makeWorkspace(t);
  installPlugin(ws, 'a', { protocolVersions: ['2025-06-18', '2025-06-81'] });
  installPlugin(ws, 'b', { protocolVersions: [] });
  const { problems } = await resolveWith(ws, {
    plugins: [
      { package: 'a', prefix: 'a' },
      { package: 'b', prefix: 'b' },
    ],
  });
  t.same(messages(problems), [
    'plugin "a" (plugins[0]): package.json "mcp-host".protocolVersions[1]: "2025-06-81" is not an MCP revision mcp-host knows. Fix: did you mean "2025-06-18"?',
    'plugin "b" (plugins[1]): package.json "mcp-host".protocolVersions: expected a non-empty array of MCP revisions, got an array. Fix: list the revisions, e.g. ["2025-11-25","2026-07-28"], or leave it out: a host config then means every published revision, a plugin manifest every revision.',
  ]);
});

t.test('a manifest without protocolVersions accepts every revision', async (t) => {
  const ws = makeWorkspace(t);
  ws.writePackage(
    'node_modules/open',
    { name: 'open', type: 'module', 'mcp-host': {} },
    { 'index.js': pluginSource('open') },
  );
  const spec = await onlySpec(ws, { plugins: [{ package: 'open', prefix: 'open' }] });
  t.match(spec, { kind: 'in-process', version: '0.0.0', manifest: {} });
});

t.test('peerDependencies["mcp-host"] must include this host', async (t) => {
  const ws = makeWorkspace(t);
  installPlugin(ws, 'future', {}, { peerDependencies: { 'mcp-host': '^99.0.0' } });
  installPlugin(ws, 'garbled', {}, { peerDependencies: { 'mcp-host': 'banana' } });
  installPlugin(ws, 'unpinned', {}, { peerDependencies: undefined });
  const { specs, problems } = await resolveWith(ws, {
    plugins: [
      { package: 'future', prefix: 'a' },
      { package: 'garbled', prefix: 'b' },
      { package: 'unpinned', prefix: 'c' },
    ],
  });
  t.same(messages(problems), [
    `plugin "future" (plugins[0]): package.json peerDependencies["mcp-host"]: the plugin requires mcp-host ^99.0.0, but this host is ${PACKAGE_VERSION}. Fix: install a version of "future" made for mcp-host ${PACKAGE_VERSION}, or run an mcp-host version in ^99.0.0.`,
    'plugin "garbled" (plugins[1]): package.json peerDependencies["mcp-host"]: "banana" is not a semver range. Fix: the plugin\'s author must correct it; meanwhile install another version of "garbled".',
  ]);
  t.same(
    specs.map((spec) => spec.label),
    ['unpinned'],
    'a plugin without a peer range is accepted',
  );
});

t.test('dispatcher-level keys, unknown keys and a bad prefix in a manifest are refused', async (t) => {
  const ws = makeWorkspace(t);
  installPlugin(ws, '@acme/mcp-weather', { sessionStore: 'redis', pageSize: 10, prefx: 'w', prefix: 'we.ather' });
  installPlugin(ws, 'odd', {}, { 'mcp-host': ['weather'] });
  const { specs, problems } = await resolveWith(ws, {
    plugins: [
      { package: '@acme/mcp-weather', prefix: 'weather' },
      { package: 'odd', prefix: 'odd' },
    ],
  });
  t.same(specs, []);
  t.same(messages(problems), [
    'plugin "@acme/mcp-weather" (plugins[0]): package.json "mcp-host".sessionStore: "sessionStore" (the session store) is a dispatcher-level setting: there is one dispatcher, the host\'s, so the package.json of "@acme/mcp-weather" cannot set it. Fix: remove "sessionStore" from the package.json of "@acme/mcp-weather"; it belongs in the host config, and mcp-host does not offer "sessionStore" yet.',
    'plugin "@acme/mcp-weather" (plugins[0]): package.json "mcp-host".pageSize: "pageSize" (the page size of lists) is a dispatcher-level setting: there is one dispatcher, the host\'s, so the package.json of "@acme/mcp-weather" cannot set it. Fix: remove "pageSize" from the package.json of "@acme/mcp-weather"; set it at the top level of the host config, where it applies to every plugin.',
    'plugin "@acme/mcp-weather" (plugins[0]): package.json "mcp-host".prefx: unknown key "prefx". Fix: did you mean "prefix"?',
    'plugin "@acme/mcp-weather" (plugins[0]): package.json "mcp-host".prefix: "we.ather" contains the separator ".". Fix: use only letters, digits, "_" and "-", e.g. "weather".',
    'plugin "odd" (plugins[1]): package.json "mcp-host": expected an object, got an array. Fix: the plugin\'s author must correct it, e.g. "mcp-host": { "protocolVersions": [ … ], "prefix": "…" }.',
  ]);
});

t.test('an entry with neither prefix nor flat, and no manifest prefix, is refused', async (t) => {
  const ws = makeWorkspace(t);
  installPlugin(ws, '@acme/mcp-weather');
  const { problems } = await resolveWith(ws, {
    separator: '_',
    plugins: [{ package: '@acme/mcp-weather' }, { command: 'uvx', args: ['mcp-server-time'] }],
  });
  t.same(messages(problems), [
    'mcp-host.config.js: plugins[0]: "@acme/mcp-weather" is mounted neither under a prefix nor flat, and its package.json declares no prefix. Fix: add prefix: "weather" (its tools become weather_<tool>) or flat: true (names unchanged).',
    'mcp-host.config.js: plugins[1]: "uvx mcp-server-time" is mounted neither under a prefix nor flat. Fix: add prefix: "time" (its tools become time_<tool>) or flat: true (names unchanged).',
  ]);
});

t.test('a prefix used twice once manifest prefixes apply is refused', async (t) => {
  const ws = makeWorkspace(t);
  installPlugin(ws, '@acme/mcp-weather', { prefix: 'weather' });
  installPlugin(ws, '@other/mcp-weather', { prefix: 'weather' });
  const { specs, problems } = await resolveWith(ws, {
    plugins: [{ package: '@acme/mcp-weather' }, { package: '@other/mcp-weather' }],
  });
  t.same(
    specs.map((spec) => spec.label),
    ['@acme/mcp-weather'],
  );
  t.same(messages(problems), [
    'mcp-host.config.js: plugins[1]: the prefix "weather" (declared by its package.json) is already used by plugins[0] ("@acme/mcp-weather"). Fix: give one of the two another prefix (an entry\'s prefix overrides its package\'s), or mount one with flat: true.',
  ]);
});

t.test('three broken plugins in one config are all reported, and the good one still resolves', async (t) => {
  const ws = makeWorkspace(t);
  installPlugin(ws, 'good', { prefix: 'good' });
  installPlugin(ws, 'narrow', { protocolVersions: ['2025-11-25'] });
  installPlugin(ws, 'bossy', { tasks: true });
  const { specs, problems } = await resolveWith(ws, {
    plugins: [
      { package: 'missing-plugin', prefix: 'missing' },
      { package: 'narrow', prefix: 'narrow' },
      { package: 'good' },
      { package: 'bossy', prefix: 'bossy' },
    ],
  });
  t.same(
    specs.map((spec) => spec.label),
    ['good'],
  );
  t.same(
    problems.map((problem) => problem.where),
    [
      'mcp-host.config.js: plugins[0].package',
      'plugin "narrow" (plugins[1]): package.json "mcp-host".protocolVersions',
      'plugin "bossy" (plugins[3]): package.json "mcp-host".tasks',
    ],
  );
});

t.test('a package with a bin and no "mcp-host" field is run as a stdio server', async (t) => {
  const ws = makeWorkspace(t);
  const memory = ws.writePackage(
    'node_modules/@modelcontextprotocol/server-memory',
    { name: '@modelcontextprotocol/server-memory', version: '0.6.0', bin: { 'mcp-server-memory': 'dist/index.js' } },
    { 'dist/index.js': '#!/usr/bin/env node\n' },
  );
  const spec = await onlySpec(ws, {
    plugins: [
      {
        package: '@modelcontextprotocol/server-memory',
        prefix: 'memory',
        args: ['--verbose'],
        env: { MEMORY_FILE: 'm.json' },
      },
    ],
  });
  t.match(spec, {
    kind: 'stdio',
    label: '@modelcontextprotocol/server-memory',
    prefix: 'memory',
    command: process.execPath,
    args: [join(memory, 'dist/index.js'), '--verbose'],
    env: { MEMORY_FILE: 'm.json' },
    cwd: ws.dir,
    packageDir: memory,
    forwardHeaders: [],
  });

  // A child has no per-request headers, so an entry cannot ask for a client's.
  const { problems } = await resolveWith(ws, {
    plugins: [{ package: '@modelcontextprotocol/server-memory', prefix: 'memory', forwardHeaders: ['X-Tenant'] }],
  });
  t.same(messages(problems), [
    'mcp-host.config.js: plugins[0].forwardHeaders: "@modelcontextprotocol/server-memory" is an MCP server package, run as a stdio child, which gets no per-request headers: a client\'s headers cannot reach it. Fix: remove forwardHeaders and give the server its credentials in env.',
  ]);
});

t.test("bin selection: the entry's bin, the bin named like the package, the only bin, else an error", async (t) => {
  const ws = makeWorkspace(t);
  const bins = { a: 'a.js', b: 'b.js', 'mcp-tools': 'tools.js' };
  const files = { 'a.js': '', 'b.js': '', 'tools.js': '' };
  const tools = ws.writePackage('node_modules/@acme/mcp-tools', { name: '@acme/mcp-tools', bin: bins }, files);
  ws.writePackage('node_modules/several', { name: 'several', bin: { a: 'a.js', b: 'b.js' } }, files);
  const single = ws.writePackage('node_modules/single', { name: 'single', bin: { 'other-name': 'a.js' } }, files);
  const shell = ws.writePackage('node_modules/shell', { name: 'shell', bin: 'run' }, { run: '#!/bin/sh\necho\n' });
  const nodeScript = ws.writePackage(
    'node_modules/node-script',
    { name: 'node-script', bin: 'cli' },
    { cli: '#!/usr/bin/env node\n' },
  );

  const { specs, problems } = await resolveWith(ws, {
    plugins: [
      { package: '@acme/mcp-tools', prefix: 'p0' },
      { package: '@acme/mcp-tools', prefix: 'p1', bin: 'b' },
      { package: 'single', prefix: 'p2' },
      { package: 'shell', prefix: 'p3', args: ['x'] },
      { package: 'node-script', prefix: 'p4' },
      { package: 'several', prefix: 'p5' },
      { package: 'several', prefix: 'p6', bin: 'c' },
      { package: 'several', prefix: 'p7', options: { a: 1 } },
    ],
  });
  t.same(
    specs.map((spec) => (spec.kind === 'stdio' ? [spec.command, ...spec.args] : [])),
    [
      [process.execPath, join(tools, 'tools.js')],
      [process.execPath, join(tools, 'b.js')],
      [process.execPath, join(single, 'a.js')],
      [join(shell, 'run'), 'x'],
      [process.execPath, join(nodeScript, 'cli')],
    ],
  );
  t.same(messages(problems), [
    'plugin "several" (plugins[5]): "several" is an MCP server package with several bins ("a" and "b"), none named "several". Fix: choose one in plugins[5], e.g. bin: "a".',
    'mcp-host.config.js: plugins[6].bin: "c" is not a bin of "several", which has "a" and "b". Fix: use bin: "a" or "b".',
    'plugin "several" (plugins[7]): "several" is an MCP server package with several bins ("a" and "b"), none named "several". Fix: choose one in plugins[7], e.g. bin: "a".',
    'mcp-host.config.js: plugins[7].options: "options" is for mcp-host plugins, but "several" is an MCP server package run over stdio (its package.json has a "bin" and no "mcp-host" field). Fix: remove "options"; pass the server its settings with args or env.',
  ]);
});

t.test('server-only entry keys on a plugin, and a package that is neither, are refused', async (t) => {
  const ws = makeWorkspace(t);
  installPlugin(ws, 'plugin');
  ws.writePackage('node_modules/lodash-ish', { name: 'lodash-ish', main: 'index.js' }, { 'index.js': '' });
  const { problems } = await resolveWith(ws, {
    plugins: [
      { package: 'plugin', prefix: 'a', bin: 'x', env: { A: 'b' } },
      { package: 'lodash-ish', prefix: 'b' },
    ],
  });
  t.same(messages(problems), [
    'mcp-host.config.js: plugins[0].bin: "bin" is for MCP server packages run over stdio, but "plugin" is an mcp-host plugin (its package.json has an "mcp-host" field). Fix: remove "bin"; a plugin takes its settings from options.',
    'mcp-host.config.js: plugins[0].env: "env" is for MCP server packages run over stdio, but "plugin" is an mcp-host plugin (its package.json has an "mcp-host" field). Fix: remove "env"; a plugin takes its settings from options.',
    'plugin "lodash-ish" (plugins[1]): "lodash-ish" is neither an mcp-host plugin (its package.json has no "mcp-host" field) nor an MCP server package (it has no "bin"). Fix: check the package plugins[1] names; an mcp-host plugin\'s package.json declares "mcp-host": { "protocolVersions": [ … ] }.',
  ]);
});

t.test('command and url entries become stdio and remote specs', async (t) => {
  const ws = makeWorkspace(t);
  const { specs, problems } = await resolveWith(ws, {
    plugins: [
      { command: 'uvx', args: ['mcp-server-time'], prefix: 'time', env: { TZ: 'UTC' }, cwd: 'servers' },
      { command: 'my-server', flat: true },
      { url: 'http://127.0.0.1:4000/mcp', prefix: 'remote', headers: { Authorization: 'Bearer x' }, timeoutMs: 10 },
    ],
  });
  t.same(messages(problems), []);
  t.match(specs, [
    {
      kind: 'stdio',
      label: 'uvx mcp-server-time',
      command: 'uvx',
      args: ['mcp-server-time'],
      env: { TZ: 'UTC' },
      cwd: join(ws.dir, 'servers'),
      prefix: 'time',
    },
    { kind: 'stdio', label: 'my-server', command: 'my-server', args: [], env: {}, cwd: ws.dir, flat: true },
    {
      kind: 'remote',
      label: 'http://127.0.0.1:4000/mcp',
      url: 'http://127.0.0.1:4000/mcp',
      headers: { Authorization: 'Bearer x' },
      timeoutMs: 10,
    },
  ]);
  t.notOk('packageDir' in specs[0]!);
});

t.test('fingerprints: stable across key order, changed by an upgrade or an entry change', async (t) => {
  const ws = makeWorkspace(t);
  installPlugin(ws, 'p', { prefix: 'p' });
  const fingerprint = async (entry: Record<string, unknown>) => (await onlySpec(ws, { plugins: [entry] })).fingerprint;
  const first = await fingerprint({ package: 'p', options: { a: 1, b: 2 } });
  t.equal(await fingerprint({ options: { b: 2, a: 1 }, package: 'p' }), first, 'key order does not matter');
  t.not(await fingerprint({ package: 'p', options: { a: 1, b: 3 } }), first, 'options matter');
  installPlugin(ws, 'p', { prefix: 'p' }, { version: '1.5.0' });
  t.not(await fingerprint({ package: 'p', options: { a: 1, b: 2 } }), first, 'an upgrade matters');
});

/** Resolve a config with one in-process plugin and return its spec. */
async function inProcessSpec(ws: Workspace, name: string): Promise<InProcessSpec> {
  const spec = await onlySpec(ws, { plugins: [{ package: name, prefix: 'p' }] });
  if (spec.kind !== 'in-process') throw new Error(`${name} is not an in-process plugin`);
  return spec;
}

/** The message loading a definition fails with. */
async function definitionFailure(spec: InProcessSpec, tag: string): Promise<string[]> {
  try {
    await loadDefinition(spec, tag);
  } catch (error) {
    return messages(problemsOf(error, 'definition'));
  }
  throw new Error('the definition loaded');
}

/** What the definition `spec` loads under `tag` creates: the test plugins below report the code that ran. */
async function createdUnder(spec: InProcessSpec, tag: string): Promise<{ version: string; z?: unknown }> {
  const created = (await loadDefinition(spec, tag)).create({ options: {}, logger: undefined as never });
  return created as unknown as { version: string; z?: unknown };
}

t.test('a definition is imported fresh per tag: changed files really run, dependencies stay shared', async (t) => {
  const ws = makeWorkspace(t);
  const write = (version: string) =>
    ws.writePackage('node_modules/changing', pluginJson('changing'), {
      'index.js': [
        "import { z } from 'zod';",
        "import { VERSION } from './lib/version.js';",
        'export default { create: () => ({ version: VERSION, z, connect: async () => {}, close: async () => {} }) };',
      ].join('\n'),
      'lib/version.js': `export const VERSION = ${JSON.stringify(version)};\n`,
    });
  write('one');
  const spec = await inProcessSpec(ws, 'changing');
  const run = (tag: string) => createdUnder(spec, tag);
  const first = await run('g1');
  t.equal(first.version, 'one');
  write('two');
  const second = await run('g2');
  t.equal(second.version, 'two', 'a file the entry imports is fresh too');
  t.equal(second.z, first.z, 'a dependency outside the package keeps its one instance');
  t.equal((await run('g1')).version, 'one', 'the same tag reuses the code it loaded');
  t.equal(tagLoadedInPlace(realpathSync(spec.packageDir)), 'g1', 'the first load was a require() of its plain path');
});

/** An entry with top-level await, which counts its runs in `globalThis.awaitingRuns`. */
const awaitingSource = (version: string) => `globalThis.awaitingRuns = (globalThis.awaitingRuns ?? 0) + 1;
const version = await Promise.resolve(${JSON.stringify(version)});
export default { create: () => ({ version, connect: async () => {}, close: async () => {} }) };
`;

t.test('an ES module require() cannot load (top-level await) is imported, fresh per tag all the same', async (t) => {
  const ws = makeWorkspace(t);
  const write = (version: string) =>
    ws.writePackage('node_modules/awaiting', pluginJson('awaiting'), { 'index.js': awaitingSource(version) });
  write('one');
  const spec = await inProcessSpec(ws, 'awaiting');
  const version = async (tag: string) => (await createdUnder(spec, tag)).version;
  t.equal(await version('g1'), 'one');
  t.equal(tagLoadedInPlace(realpathSync(spec.packageDir)), undefined, 'not loaded in place');
  t.equal((globalThis as { awaitingRuns?: number }).awaitingRuns, 1, 'its code ran once: require() refused it unrun');
  write('two');
  t.equal(await version('g2'), 'two');
  t.equal(await version('g1'), 'one', 'the same tag reuses the code it loaded');
});

t.test('a CommonJS plugin and the files it requires are fresh per tag', async (t) => {
  const ws = makeWorkspace(t);
  const write = (version: string) =>
    ws.writePackage(
      'node_modules/cjs-plugin',
      { ...pluginJson('cjs-plugin'), type: 'commonjs', exports: './index.cjs' },
      {
        'index.cjs': "module.exports = { create: () => ({ version: require('./version.cjs') }) };\n",
        'version.cjs': `module.exports = ${JSON.stringify(version)};\n`,
      },
    );
  write('one');
  const spec = await inProcessSpec(ws, 'cjs-plugin');
  const version = async (tag: string) => (await createdUnder(spec, tag)).version;
  t.equal(await version('g1'), 'one');
  write('two');
  t.equal(await version('g2'), 'two');
});

t.test('a definition with the SDK v2 McpServer loads from a workspace package', async (t) => {
  const ws = makeWorkspace(t);
  ws.writePackage('node_modules/v2-plugin', pluginJson('v2-plugin'), {
    'index.js': [
      "import { McpServer } from '@modelcontextprotocol/server';",
      "export default { create: () => new McpServer({ name: 'v2', version: '1.0.0' }) };",
    ].join('\n'),
  });
  const definition = await loadDefinition(await inProcessSpec(ws, 'v2-plugin'), 'g1');
  const server = await definition.create({ options: {}, logger: undefined as never });
  t.equal(typeof server.connect, 'function');
});

t.test('definition refusals: dispatcher-level and unknown keys, create, the default export', async (t) => {
  const ws = makeWorkspace(t);
  const plugin = (name: string, source: string) => {
    ws.writePackage(`node_modules/${name}`, pluginJson(name), { 'index.js': source });
    return inProcessSpec(ws, name);
  };

  t.same(
    await definitionFailure(
      await plugin('bossy', 'export default { create() {}, tasks: {}, cache: true, crate: 1 };'),
      'g1',
    ),
    [
      'plugin "bossy" (plugins[0]): definition.tasks: "tasks" (task support) is a dispatcher-level setting: there is one dispatcher, the host\'s, so the definition of "bossy" cannot set it. Fix: remove "tasks" from the definition of "bossy"; it belongs in the host config, and mcp-host does not offer "tasks" yet.',
      'plugin "bossy" (plugins[0]): definition.cache: "cache" (the cache policy) is a dispatcher-level setting: there is one dispatcher, the host\'s, so the definition of "bossy" cannot set it. Fix: remove "cache" from the definition of "bossy"; it belongs in the host config, and mcp-host does not offer "cache" yet.',
      'plugin "bossy" (plugins[0]): definition.crate: unknown key "crate". Fix: did you mean "create"?',
    ],
  );
  t.same(await definitionFailure(await plugin('no-create', 'export default { make() {} };'), 'g1'), [
    'plugin "no-create" (plugins[0]): definition.make: unknown key "make". Fix: remove it; the keys allowed here are "create".',
    'plugin "no-create" (plugins[0]): definition.create: expected a function that returns an McpServer or Server, got undefined. Fix: export default definePlugin({ create({ options, logger }) { …; return server; } }).',
  ]);
  const noDefault = await plugin('no-default', 'export const create = () => {};');
  t.same(await definitionFailure(noDefault, 'g1'), [
    `plugin "no-default" (plugins[0]): its entry ${noDefault.entryFile} has no default export. Fix: export the plugin definition: export default definePlugin({ create({ options, logger }) { …; return server; } }).`,
  ]);
  t.same(await definitionFailure(await plugin('bare-function', 'export default function create() {}'), 'g1'), [
    'plugin "bare-function" (plugins[0]): default export: expected a plugin definition object with a create function, got a function. Fix: export default { create: yourFunction }, or use definePlugin({ create }).',
  ]);
  const throwing = await plugin('throwing', "throw new Error('no API key');");
  t.same(await definitionFailure(throwing, 'g1'), [
    `plugin "throwing" (plugins[0]): its entry ${throwing.entryFile} failed to load: no API key. Fix: fix or reinstall the plugin (npm install throwing); the error is in its code, not in the host config.`,
  ]);
});

t.test('package.json reads are kept across resolutions until the file changes, even to the same size', async (t) => {
  const ws = makeWorkspace(t);
  const file = join(ws.writePackage('pkg', { name: 'a', version: '1.0.0' }), 'package.json');
  const first = await readPackageJson(file);
  t.equal(await readPackageJson(file), first, 'an unchanged file is not read again');
  writeFileSync(file, JSON.stringify({ name: 'a', version: '1.0.1' }, null, 2));
  const upgraded = await readPackageJson(file);
  t.not(upgraded.hash, first.hash, 'a rewrite of the same length is read again');
  t.same(upgraded.parsed, { value: { name: 'a', version: '1.0.1' } });
  writeFileSync(file, '{ not json');
  t.ok('error' in (await readPackageJson(file)).parsed, 'a file that no longer parses says so');
});
