// An in-process SDK v2 plugin naming 2026-07-28 with its own, separately
// installed copy of @modelcontextprotocol/server (what npm gives whenever
// versions or install layouts differ) is linked through that copy, and
// serves both eras: a legacy client (SDK v1, stdio) and a 2026-07-28 client
// (SDK v2, HTTP). A copy it cannot be linked through is refused with why
// and the fix, never "Internal server error".
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { CLI, runCli, startHttpHost } from './helpers/host.js';
import { REPO_ROOT, makeWorkspace, type Workspace } from './helpers/packages.js';
import { firstText } from './helpers/results.js';

const MODERN = '2026-07-28';
const PLUGIN_DIR = 'node_modules/@test/own-sdk';

/** A plugin whose server comes from `serverModule` (its own copy, unless told otherwise). */
function writePlugin(ws: Workspace, serverModule = '@modelcontextprotocol/server'): string {
  ws.writePackage(
    PLUGIN_DIR,
    {
      name: '@test/own-sdk',
      version: '1.0.0',
      type: 'module',
      exports: './index.js',
      'mcp-host': { protocolVersions: ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', MODERN] },
    },
    {
      'index.js': `
import { McpServer } from ${JSON.stringify(serverModule)};
export default {
  create() {
    const server = new McpServer({ name: 'own-sdk', version: '1.0.0' });
    server.registerTool('hello', { description: 'Greets.' }, async () => ({ content: [{ type: 'text', text: 'hello' }] }));
    return server;
  },
};
`,
    },
  );
  return ws.writeConfig({ reload: { watch: false }, plugins: [{ package: '@test/own-sdk', flat: true }] });
}

/** Install a separate copy of the host's SDK v2 server package (and its core) inside the plugin. */
function installOwnCopy(ws: Workspace): void {
  for (const name of ['server', 'core']) {
    cpSync(
      join(REPO_ROOT, 'node_modules/@modelcontextprotocol', name),
      join(ws.dir, PLUGIN_DIR, 'node_modules/@modelcontextprotocol', name),
      { recursive: true },
    );
  }
}

t.test('a plugin with its own copy of the SDK is linked through it, and serves both eras', async (t) => {
  const ws = makeWorkspace(t);
  const config = writePlugin(ws);
  installOwnCopy(ws);

  const check = await runCli(['check', '--config', config], { env: { ...process.env, MCP_HOST_LOG_LEVEL: 'debug' } });
  t.equal(check.code, 0, `check passes:\n${check.stderr}`);
  t.match(check.stderr, /speaks both eras: its 2025-era link serves legacy clients/, 'a link of each era');

  const legacy = new LegacyClient({ name: 'legacy-client', version: '1.0.0' });
  await legacy.connect(new LegacyStdio({ command: process.execPath, args: [CLI, 'start', '--config', config] }));
  t.teardown(() => legacy.close());
  t.equal(firstText((await legacy.callTool({ name: 'hello', arguments: {} })) as never), 'hello', 'legacy client');

  const host = await startHttpHost(t, config);
  const modern = new Client(
    { name: 'modern-client', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN } } },
  );
  await modern.connect(new StreamableHTTPClientTransport(new URL(host.url)));
  t.teardown(() => modern.close());
  t.equal(modern.getNegotiatedProtocolVersion(), MODERN);
  t.equal(firstText(await modern.callTool({ name: 'hello', arguments: {} })), 'hello', '2026-07-28 client');
});

t.test('a copy of the SDK that cannot serve the plugin is refused naming it, and the fix', async (t) => {
  const ws = makeWorkspace(t);
  // The server is made by the host's copy (as if re-exported by a dependency), while the plugin resolves a copy without the "./stdio" entry.
  const hostCopy = pathToFileURL(join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server/dist/index.mjs')).href;
  const config = writePlugin(ws, hostCopy);
  ws.writePackage(`${PLUGIN_DIR}/node_modules/@modelcontextprotocol/server`, {
    name: '@modelcontextprotocol/server',
    version: '2.0.0-trimmed',
    type: 'module',
    exports: { '.': './index.js' },
  });
  const check = await runCli(['check', '--config', config]);
  t.equal(check.code, 1);
  const said = check.stdout + check.stderr;
  t.match(
    said,
    /its server was made with its own copy of @modelcontextprotocol\/server 2\.0\.0-trimmed .* has no "\.\/stdio" entry .*cannot link it at 2026-07-28.*Fix: install a version of @modelcontextprotocol\/server that has the "\.\/stdio" entry/s,
  );
  t.notMatch(said, /Internal server error/);

  // A copy whose "./stdio" entry exports no serveStdio, and one whose entry fails to load.
  const copy = `${PLUGIN_DIR}/node_modules/@modelcontextprotocol/server`;
  const stdio = { '.': './index.js', './stdio': { import: { default: './stdio.js' } } };
  for (const [source, why] of [
    ['export const nothing = 1;', 'its "./stdio" entry exports no serveStdio'],
    ['export const = ;', 'its "./stdio" entry failed to load \\(Unexpected token'],
  ] as const) {
    ws.writePackage(
      copy,
      { name: '@modelcontextprotocol/server', version: '2.0.0-odd', type: 'module', exports: stdio },
      { 'stdio.js': source },
    );
    const odd = await runCli(['check', '--config', config]);
    t.equal(odd.code, 1);
    t.match(odd.stdout + odd.stderr, new RegExp(`@modelcontextprotocol/server 2\\.0\\.0-odd .*, and ${why}`), why);
  }
});
