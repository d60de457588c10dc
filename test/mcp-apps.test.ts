// MCP Apps (SEP-1865, io.modelcontextprotocol/ui) through the host: a tool's
// `_meta.ui.resourceUri` names a `ui://` resource the client reads and renders.
// Every app server has its `ui://widget`; mounted under prefixes `a` and `b`,
// the two are served as `ui://a/widget` and `ui://b/widget`, consistently in
// the tools' metadata, in resources/list and in resources/read, and each is
// read from the mount that owns it. A flat mount's URIs are served as they are.
// Curation judges the plugin's own URI, access rules the served one. Over stdio
// (2025-11-25) and HTTP (2026-07-28), with real plugin packages.
import t, { type Test } from 'tap';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startHttpHost, startStdioHost } from './helpers/host.js';
import { makeWorkspace, type Workspace } from './helpers/packages.js';
import { firstText } from './helpers/results.js';

const APP_MIME = 'text/html;profile=mcp-app';

/**
 * An app server as SEP-1865 describes one: a tool naming its view in both
 * spellings of the metadata, the view as a `ui://` resource, a template of
 * views, and a tool telling whether its client said it renders apps.
 */
const appPlugin = (label: string) => `
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import { z } from 'zod';
export default {
  create() {
    const server = new McpServer({ name: 'app-${label}', version: '1.0.0' }, { capabilities: { resources: { subscribe: true } } });
    server.server.setRequestHandler('resources/subscribe', () => ({}));
    // SEP-1865 servers need not declare the extension; this one (c) does, with settings the host passes on.
    if ('${label}' === 'c') server.server.registerCapabilities({ extensions: { 'io.modelcontextprotocol/ui': { by: 'c' } } });
    server.registerTool(
      'show',
      { inputSchema: z.object({}), _meta: { ui: { resourceUri: 'ui://widget', visibility: ['model', 'app'] }, 'ui/resourceUri': 'ui://widget' } },
      () => ({ content: [{ type: 'text', text: 'shown by ${label}' }] }),
    );
    server.registerTool('client_extensions', { inputSchema: z.object({}) }, () => ({
      content: [{ type: 'text', text: JSON.stringify(server.server.getClientCapabilities()?.extensions ?? null) }],
    }));
    server.registerResource('widget', 'ui://widget', { mimeType: '${APP_MIME}' }, (uri) => ({
      contents: [{ uri: uri.href, mimeType: '${APP_MIME}', text: '<html>app ${label}</html>' }],
    }));
    server.registerResource(
      'view',
      new ResourceTemplate('ui://views/{name}', {
        list: undefined,
        complete: { name: (value) => ['chart-${label}', 'map-${label}'].filter((name) => name.startsWith(value)) },
      }),
      { mimeType: '${APP_MIME}' },
      (uri, { name }) => ({ contents: [{ uri: uri.href, mimeType: '${APP_MIME}', text: '<html>${label} view ' + name + '</html>' }] }),
    );
    return server;
  },
};
`;

function writeApps(ws: Workspace, labels: string[]): void {
  for (const label of labels) {
    ws.writePackage(
      `node_modules/@test/app-${label}`,
      { name: `@test/app-${label}`, version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': {} },
      { 'index.js': appPlugin(label) },
    );
  }
}

type Tool = { name: string; _meta?: Record<string, unknown> };

async function judgeApps(t: Test, client: Client): Promise<void> {
  const { tools } = (await client.listTools()) as { tools: Tool[] };
  const meta = (name: string) => tools.find((tool) => tool.name === name)?._meta;
  t.same(meta('a.show'), {
    ui: { resourceUri: 'ui://a/widget', visibility: ['model', 'app'] },
    'ui/resourceUri': 'ui://a/widget',
  });
  t.same(meta('b.show'), {
    ui: { resourceUri: 'ui://b/widget', visibility: ['model', 'app'] },
    'ui/resourceUri': 'ui://b/widget',
  });
  t.same(
    meta('show'),
    { ui: { resourceUri: 'ui://widget', visibility: ['model', 'app'] }, 'ui/resourceUri': 'ui://widget' },
    'a flat mount’s as it is',
  );

  const { resources } = await client.listResources();
  t.same(resources.map((r) => r.uri).sort(), ['ui://a/widget', 'ui://b/widget', 'ui://widget']);
  const { resourceTemplates } = await client.listResourceTemplates();
  t.same(resourceTemplates.map((r) => r.uriTemplate).sort(), [
    'ui://a/views/{name}',
    'ui://b/views/{name}',
    'ui://views/{name}',
  ]);

  // Each tool's view is read from its own mount, under the URI the tool named.
  for (const [tool, text] of [
    ['a.show', 'app a'],
    ['b.show', 'app b'],
    ['show', 'app c'],
  ] as const) {
    const uri = (meta(tool)?.ui as { resourceUri: string }).resourceUri;
    const read = await client.readResource({ uri });
    t.same(read.contents, [{ uri, mimeType: APP_MIME, text: `<html>${text}</html>` }], `${tool}'s view`);
  }
  // A completion for a template goes to the mount that serves it, asked by its own template.
  const completed = await client.complete({
    ref: { type: 'ref/resource', uri: 'ui://b/views/{name}' },
    argument: { name: 'name', value: 'ch' },
  });
  t.same(completed.completion.values, ['chart-b']);
  const view = await client.readResource({ uri: 'ui://b/views/chart' });
  t.same(view.contents, [{ uri: 'ui://b/views/chart', mimeType: APP_MIME, text: '<html>b view chart</html>' }]);

  // No mount serves these: not under a prefix that exists, or climbing out of one.
  for (const uri of ['ui://c/widget', 'ui://a/../b/widget', 'ui://a/%2e%2e/b/widget']) {
    await t.rejects(client.readResource({ uri }), /not found/i, `${uri} is not found`);
  }
  // A mount's own "not found" would name its own URI: the client is answered in the host's words, naming its own.
  await t.rejects(
    client.readResource({ uri: 'ui://a/missing' }),
    { message: /Resource not found: "ui:\/\/a\/missing": no mounted plugin serves it/ },
    'not found under a prefix',
  );

  // A subscription (2025-era) follows the mount's own URI: one served under a prefix is refused, saying so, and
  // never given to the flat mount in its owner's place.
  if (client.getNegotiatedProtocolVersion() !== '2026-07-28') {
    await client.subscribeResource({ uri: 'ui://widget' });
    await t.rejects(client.subscribeResource({ uri: 'ui://a/widget' }), /Cannot subscribe to "ui:\/\/a\/widget"/);
  }

  // The upstream is told that apps are rendered, so that it offers its UI tools: at 2025-11-25 by the host's own
  // client capabilities, at 2026-07-28 by the client's, which reach the upstream with each request.
  const declared = JSON.parse(firstText(await client.callTool({ name: 'a.client_extensions', arguments: {} })));
  t.same(declared?.['io.modelcontextprotocol/ui'], { mimeTypes: [APP_MIME] });
  t.same(
    client.getServerCapabilities()?.extensions?.['io.modelcontextprotocol/ui'],
    { by: 'c' },
    'offered as c declares it',
  );
}

t.test('one ui:// URI served by two prefixed mounts and a flat one: rewritten in tools, lists and reads', async (t) => {
  const ws = makeWorkspace(t);
  writeApps(ws, ['a', 'b', 'c']);
  const plugins = [
    { package: '@test/app-a', prefix: 'a' },
    { package: '@test/app-b', prefix: 'b' },
    { package: '@test/app-c', flat: true },
  ];
  const config = ws.writeConfig({ plugins, reload: { watch: false } });

  t.test('over stdio, at 2025-11-25', async (t) => {
    const { client } = await startStdioHost(t, config);
    await judgeApps(t, client);
  });
  t.test('over HTTP, at 2026-07-28', async (t) => {
    const { url } = await startHttpHost(t, config);
    // A 2026-07-28 client: its own capabilities reach the upstream with each request, here that it renders apps.
    const client = new Client(
      { name: 'apps-test', version: '1.0.0' },
      {
        versionNegotiation: { mode: { pin: '2026-07-28' } },
        capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [APP_MIME] } } },
      },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    t.teardown(() => client.close());
    await judgeApps(t, client);
  });
});

t.test('curation judges the plugin’s own ui:// URI, access rules the served one', async (t) => {
  const ws = makeWorkspace(t);
  writeApps(ws, ['a', 'b']);
  const config = ws.writeConfig({
    plugins: [
      { package: '@test/app-a', prefix: 'a' },
      { package: '@test/app-b', prefix: 'b', resources: { exclude: ['ui://widget'] } },
    ],
    access: [{ who: { stdio: true }, tools: ['**'], resources: ['ui://b/**', 'ui://a/views/**'] }],
    reload: { watch: false },
  });
  const { client } = await startStdioHost(t, config);
  t.same(
    client.getServerCapabilities()?.extensions,
    { 'io.modelcontextprotocol/ui': {} },
    'offered: its tools name apps',
  );
  const { resources } = await client.listResources();
  t.same(resources, [], "a's widget is denied, b's curated out");
  const { resourceTemplates } = await client.listResourceTemplates();
  t.same(resourceTemplates.map((r) => r.uriTemplate).sort(), ['ui://a/views/{name}', 'ui://b/views/{name}']);
  await t.rejects(client.readResource({ uri: 'ui://a/widget' }), /not found/i, 'denied by the access rules');
  await t.rejects(client.readResource({ uri: 'ui://b/widget' }), /not found/i, 'curated out of b');
  const view = await client.readResource({ uri: 'ui://a/views/map' });
  t.equal((view.contents[0] as { text: string }).text, '<html>a view map</html>');
});

t.test('two flat mounts serving one ui:// URI collide, and the fix names a prefix', async (t) => {
  const ws = makeWorkspace(t);
  writeApps(ws, ['a', 'b']);
  const config = ws.writeConfig({
    plugins: [
      { package: '@test/app-a', flat: true, tools: { include: ['show'] } },
      { package: '@test/app-b', flat: true, tools: { exclude: ['*'] } },
    ],
    reload: { watch: false },
  });
  await t.rejects(
    startStdioHost(t, config),
    /both expose the resource "ui:\/\/widget".*under a prefix.*ui:\/\/ and skill:\/\/ URIs are then served under the prefix/s,
  );
});

t.test(
  'pins cover the UI a tool names: another ui:// resource is drift, and under refuse the tool is withheld',
  async (t) => {
    const ws = makeWorkspace(t);
    writeApps(ws, ['a']);
    const config = ws.writeConfig({
      plugins: [{ package: '@test/app-a', prefix: 'a' }],
      pins: 'refuse',
      reload: { watch: false },
    });
    const pinned = await runCli(['pin', '--config', config]);
    t.equal(pinned.code, 0, pinned.stderr);
    const lock = JSON.parse(readFileSync(join(ws.dir, 'mcp-host.lock.json'), 'utf8'));
    t.equal(lock.mounts.a.tools['a.show'].definition.ui, 'ui://a/widget', 'the UI as clients see it');
    t.equal(lock.mounts.a.tools['a.client_extensions'].definition.ui, undefined, 'a tool without a UI pins none');

    // The same tool, the same schema and description: only the UI it names is another.
    const plugin = join(ws.dir, 'node_modules/@test/app-a/index.js');
    writeFileSync(
      plugin,
      readFileSync(plugin, 'utf8').replaceAll("resourceUri: 'ui://widget'", "resourceUri: 'ui://elsewhere'"),
    );
    const checked = await runCli(['check', '--config', config]);
    t.match(
      checked.stdout + checked.stderr,
      /tool "a\.show" changed since it was pinned in mcp-host\.lock\.json \(ui\)/,
    );
    const { client } = await startStdioHost(t, config);
    t.same(
      (await client.listTools()).tools.map((tool) => tool.name),
      ['a.client_extensions'],
      'withheld under pins: refuse',
    );
  },
);
