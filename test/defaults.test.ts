// Every default the configuration reference documents, asserted where the
// host resolves it: a plugin entry's limits as its resolved mount carries
// them, the HTTP endpoint's limits as the values it applies when the config
// leaves a key out. (The top-level keys' defaults: config.test.ts, "a
// minimal config gets every default".)
import t from 'tap';
import { loadConfig } from '../host/config/load.js';
import { resolvePlugins } from '../host/loader/resolve-plugins.js';
import { HTTP_LIMIT_DEFAULTS, SESSION_IDLE_TIMEOUT_MS } from '../host/serve/http.js';
import { makeWorkspace } from './helpers/packages.js';

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

t.test('a plugin entry’s limits, as its mount carries them', async (t) => {
  const ws = makeWorkspace(t);
  ws.writePackage(
    'node_modules/@test/mcp-plain',
    { name: '@test/mcp-plain', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': {} },
    { 'index.js': 'export default { create() {} };\n' },
  );
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
