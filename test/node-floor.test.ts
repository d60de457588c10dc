// The host runs on the oldest Node.js its package.json admits (engines: 22.12
// and later), not only on the Node 24 the suite runs on: a host that starts
// on 22 but cannot answer over HTTP there is a broken promise, and it was one
// (Node 22's `end()` on a corked response never sent the stream's events, so
// every SSE answer stopped after its opening comment; node-exchange.ts).
// Real parts: Node 22 installed from the npm registry by the project's own
// scripts/project-node.mjs (the route CI takes for 24), the host as its child
// process over Streamable HTTP and stdio, the SDK's Client, a real plugin package.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import t from 'tap';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startHttpHost, startStdioHost } from './helpers/host.js';
import { makeWorkspace, REPO_ROOT } from './helpers/packages.js';
import { writePlugin } from './helpers/readme.js';

/** The Node 22 binary (installed on first use, then cached; the test's own node when it is a 22 already). */
const node22 = execFileSync(
  process.execPath,
  [join(REPO_ROOT, 'scripts/project-node.mjs'), 'node', '-p', 'process.execPath'],
  { env: { ...process.env, MCP_HOST_NODE: '22' }, encoding: 'utf8' },
).trim();
const version = execFileSync(node22, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();

t.test(`the host serves on Node ${version}, the oldest major its engines admit`, async (t) => {
  const [major, minor] = version.split('.').map(Number);
  t.equal(major, 22, 'the floor is Node 22');
  t.ok(minor! >= 12, `a 22 at or above engines' 22.12 (${version})`);

  const ws = makeWorkspace(t);
  writePlugin(ws, 'node_modules/hello', 'hello', { prefix: 'hello' }, ['greet']);
  const configFile = ws.writeConfig({ plugins: [{ package: 'hello' }], reload: { watch: false } });

  t.test('over Streamable HTTP: initialize and the call are answered on their SSE streams', async (t) => {
    const host = await startHttpHost(t, configFile, { node: node22 });
    const client = new Client({ name: 'node-floor', version: '1.0.0' });
    t.teardown(() => client.close());
    await client.connect(new StreamableHTTPClientTransport(new URL(host.url)));
    t.same(
      (await client.listTools()).tools.map((tool) => tool.name),
      ['hello.greet'],
    );
    t.same((await client.callTool({ name: 'hello.greet', arguments: {} })).content, [{ type: 'text', text: 'greet' }]);
  });

  t.test('over stdio', async (t) => {
    const host = await startStdioHost(t, configFile, { node: node22 });
    t.same((await host.client.callTool({ name: 'hello.greet', arguments: {} })).content, [
      { type: 'text', text: 'greet' },
    ]);
  });
});
