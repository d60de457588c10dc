// Curation matches what will be served (DESIGN.md, "Curation"): a resource
// URI is judged in its normal form however a client spells it, and a name
// under a prefix is served only as listed, so a plugin that reads URIs or
// names loosely never serves what the entry leaves out. The host runs as a
// child process; the plugin is a real package that reads everything loosely.
import t from 'tap';
import { startStdioHost, type StdioHost, type Teardown } from './helpers/host.js';
import { makeWorkspace, type Workspace } from './helpers/packages.js';
import { firstText } from './helpers/results.js';

t.setTimeout(120_000);

/**
 * A server that reads URIs as a naive file server does (WHATWG URL, then the
 * path decoded and resolved) and names case-insensitively: whatever spelling
 * reaches it, it serves.
 */
const LOOSE = `import { posix } from 'node:path';
import { Server } from '@modelcontextprotocol/server';
let runs = 0;
const text = (text) => ({ content: [{ type: 'text', text }] });
export default {
  create() {
    const server = new Server({ name: 'loose', version: '1.0.0' }, { capabilities: { tools: {}, resources: {} } });
    server.setRequestHandler('tools/list', async () => ({
      tools: ['delete_all', 'runs'].map((name) => ({ name, inputSchema: { type: 'object' } })),
    }));
    server.setRequestHandler('tools/call', async ({ params }) => {
      const name = params.name.toLowerCase().replace(/^\\.+/, '');
      if (name === 'runs') return text(String(runs));
      runs++;
      return text('ran ' + name);
    });
    server.setRequestHandler('resources/list', async () => ({
      resources: ['file:///safe/y', 'file:///private/x', 'secret://keys'].map((uri) => ({ uri, name: uri })),
    }));
    server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: [] }));
    server.setRequestHandler('resources/read', async ({ params }) => {
      const url = new URL(params.uri);
      const where = url.protocol + posix.normalize(decodeURIComponent(url.host + url.pathname));
      return { contents: [{ uri: params.uri, text: 'served ' + where }] };
    });
    return server;
  },
};
`;

function workspace(t: Teardown): Workspace {
  const ws = makeWorkspace(t);
  ws.writePackage(
    'node_modules/@t/loose',
    { name: '@t/loose', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': { prefix: 'res' } },
    { 'index.js': LOOSE },
  );
  return ws;
}

async function host(t: Teardown, entry: Record<string, unknown>): Promise<StdioHost> {
  const ws = workspace(t);
  return startStdioHost(t, ws.writeConfig({ plugins: [{ package: '@t/loose', ...entry }], reload: { watch: false } }));
}

async function read(host: StdioHost, uri: string): Promise<string> {
  const { contents } = await host.client.readResource({ uri });
  return (contents[0] as { text: string }).text;
}

t.test('every spelling of an excluded URI is refused; the served one reads however it is spelled', async (t) => {
  // A glob that is no URI (`**/…`) is read as it is.
  const served = await host(t, { resources: { exclude: ['SECRET://*', 'file:///private/**', '**/*.key'] } });
  t.same(
    (await served.client.listResources()).resources.map((resource) => resource.uri),
    ['file:///safe/y'],
  );
  const bypasses = [
    'SECRET://keys',
    'secret://KEYS',
    'file:///safe/../private/x',
    'file:///%70rivate/x',
    'file://localhost/private/x',
    'FILE:///private/x',
    'file:////private/x',
    'file:///./private/x',
    'file:///private%2Fx',
    'file:/private/x',
    'file:///safe/..%2Fprivate/x',
    'file:///safe/x/../../private/%c3%a9',
    'file:///private/x/..',
    'file://LocalHost/private/x',
  ];
  for (const uri of bypasses) {
    await t.rejects(
      read(served, uri),
      { code: -32602, message: `Resource not found: "${uri}": no mounted plugin serves it.`, data: { uri } },
      `${uri} is refused by the host`,
    );
  }
  t.equal(await read(served, 'FILE://LOCALHOST/safe/%79'), 'served file:/safe/y', 'a served URI in any spelling');
});

t.test('an include judges the URI the plugin will read, not its spelling', async (t) => {
  const served = await host(t, { resources: { include: ['file:///safe/**'] } });
  await t.rejects(
    read(served, 'file:///safe/%2e%2e/private/x'),
    { code: -32602, message: /^Resource not found: "file:\/\/\/safe\/%2e%2e\/private\/x"/ },
    'dot segments spelled in percent-encoding do not climb out of the include',
  );
  t.equal(await read(served, 'file:///safe/./y'), 'served file:/safe/y');
});

t.test('a name under a prefix that no listed item has is refused by the host, never forwarded', async (t) => {
  const served = await host(t, { tools: { exclude: ['delete_all'] } });
  t.same(
    (await served.client.listTools()).tools.map((tool) => tool.name),
    ['res.runs'],
  );
  for (const name of ['res.delete_all', 'res.DELETE_ALL', 'res..delete_all', 'res.Runs', 'res.unlisted']) {
    await t.rejects(
      served.client.callTool({ name, arguments: {} }),
      {
        code: -32602,
        message: `Unknown tool "${name}": no mounted plugin serves it. Fix: use a name from tools/list.`,
      },
      `${name} is refused`,
    );
  }
  t.equal(firstText(await served.client.callTool({ name: 'res.runs', arguments: {} })), '0', 'the plugin ran nothing');
});
