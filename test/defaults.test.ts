// Every default the configuration reference documents, asserted where the
// host resolves it: a plugin entry's limits as its resolved mount carries
// them, the HTTP endpoint's limits as the values it applies when the config
// leaves a key out. (The top-level keys' defaults: config.test.ts, "a
// minimal config gets every default".)
import t from 'tap';
import { loadConfig } from '../host/config/load.js';
import { resolvePlugins } from '../host/loader/resolve-plugins.js';
import { HTTP_LIMIT_DEFAULTS, SESSION_IDLE_TIMEOUT_MS } from '../host/serve/http.js';
import { postInitialize } from './helpers/host.js';
import { serveInProcess } from './helpers/in-process-http.js';
import { makeWorkspace, type Workspace } from './helpers/packages.js';

const MIB = 1024 * 1024;

t.test('the HTTP endpoint’s limits, as documented', async (t) => {
  t.same(HTTP_LIMIT_DEFAULTS, {
    maxSessions: 1000,
    maxSessionsPerToken: 100,
    maxListenStreams: 1000,
    maxConnections: 2000,
    bodyTimeoutMs: 30_000,
    maxStreamQueueBytes: 16 * MIB,
    eventStoreBytes: MIB,
  });
  t.equal(SESSION_IDLE_TIMEOUT_MS, 30 * 60_000, 'http.sessionIdleTimeoutMs: 30 minutes');
});

/** A plugin package that mounts and serves nothing. */
function writePlain(ws: Workspace): void {
  ws.writePackage(
    'node_modules/@test/mcp-plain',
    { name: '@test/mcp-plain', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': {} },
    {
      'index.js': `import { McpServer } from '@modelcontextprotocol/server';
export default { create: () => new McpServer({ name: 'plain', version: '1.0.0' }) };
`,
    },
  );
}

t.test('with no http.maxSessionsPerToken, a token holds 100 sessions and the next is refused', async (t) => {
  const ws = makeWorkspace(t);
  writePlain(ws);
  const config = ws.writeConfig({ plugins: [{ package: '@test/mcp-plain', prefix: 'plain' }] });
  const token = 'a-token-for-the-default-0123456789';
  const { service } = await serveInProcess(t, config, ws.dir, { host: '127.0.0.1', port: 0, bearerTokens: [token] });
  const initialize = async () => {
    const response = await postInitialize(service.url, { token, clientName: 'counted' });
    return { status: response.status, body: await response.text() };
  };
  const opened: number[] = [];
  for (let i = 0; i < 100; i++) opened.push((await initialize()).status);
  t.same(new Set(opened), new Set([200]), '100 sessions open');
  const refused = await initialize();
  t.equal(refused.status, 429, 'the 101st is refused');
  t.match(refused.body, 'this bearer token holds 100 sessions open, its limit (http.maxSessionsPerToken)');
});

t.test('a plugin entry’s limits, as its mount carries them', async (t) => {
  const ws = makeWorkspace(t);
  writePlain(ws);
  ws.writeConfig({
    plugins: [
      { package: '@test/mcp-plain', prefix: 'shared' },
      { package: '@test/mcp-plain', prefix: 'isolated', isolation: 'worker' },
      { command: process.execPath, args: ['server.js'], prefix: 'child' },
      { url: 'http://127.0.0.1:9/mcp', prefix: 'remote' },
    ],
  });
  const { specs, problems } = await resolvePlugins(await loadConfig({ cwd: ws.dir }));
  t.same(problems, []);
  for (const spec of specs) {
    t.match(
      spec,
      { timeoutMs: 60_000, maxResultBytes: 8 * MIB, maxListPages: 1000 },
      `${spec.label}: timeoutMs 60 s, maxResultBytes 8 MiB, maxListPages 1000`,
    );
  }
  t.match(specs[0], { isolation: 'none', memoryLimitMb: 512 }, 'isolation follows the config’s (none)');
  t.match(specs[1], { isolation: 'worker', memoryLimitMb: 512 }, 'memoryLimitMb 512');
});
