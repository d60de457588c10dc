// Access rules on 2026-07-28 `subscriptions/listen` streams: each stream is
// told only of the list changes and resource updates its opener's rules let
// it see (host/serve/listen-streams.ts), over HTTP and over stdio.
import { writeFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import { pino } from 'pino';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { eventually, startHttpHost, startStdioHost, until } from './helpers/host.js';
import { makeWorkspace } from './helpers/packages.js';
import { modernClient } from './helpers/cluster.js';
import { serveInProcess } from './helpers/in-process-http.js';
import { ListenStreams } from '../host/serve/listen-streams.js';
import { ALICE, CI, secretOf } from './helpers/named-tokens.js';

const MODERN = '2026-07-28';

/** A plugin whose tools add tools (a `tools/list_changed`) and announce a resource update. */
const WATCH = `import { McpServer, fromJsonSchema } from '@modelcontextprotocol/server';
export default {
  create({ options }) {
    // With holdSubscribe, a resources/subscribe is answered only once release_subscribe is called.
    let release = () => {};
    const held = new Promise((resolve) => (release = resolve));
    let unsubscribed = 0;
    const input = (key) => ({ inputSchema: fromJsonSchema({ type: 'object', properties: { [key]: { type: 'string' } } }) });
    const server = new McpServer({ name: 'watch', version: '1.0.0' }, { capabilities: { resources: { subscribe: true } } });
    const text = (text) => ({ content: [{ type: 'text', text }] });
    server.registerTool('add_tool', input('name'), async ({ name }) => {
      server.registerTool(name, {}, async () => text(name));
      return text('added ' + name);
    });
    server.registerTool('touch', input('uri'), async ({ uri }) => {
      await server.server.sendResourceUpdated({ uri });
      return text('touched ' + uri);
    });
    for (const uri of ['docs://public/readme', 'docs://private/keys']) {
      server.registerResource(uri, uri, {}, async (u) => ({ contents: [{ uri: u.href, text: 'read ' + u.href }] }));
    }
    server.server.setRequestHandler('resources/subscribe', async (request) => {
      if (request.params.uri.startsWith('docs://refused/')) throw new Error('no such document to watch');
      if (options.holdSubscribe) await held;
      return {};
    });
    server.server.setRequestHandler('resources/unsubscribe', async () => {
      unsubscribed += 1;
      return {};
    });
    server.registerTool('release_subscribe', {}, async () => (release(), text('released')));
    server.registerTool('unsubscribed', {}, async () => text(String(unsubscribed)));
    return server;
  },
};
`;

function watchConfig(
  t: Test,
  http: boolean,
  options: Record<string, unknown> = {},
): { write: (access?: unknown[]) => void; file: string; dir: string } {
  const ws = makeWorkspace(t);
  ws.writePackage(
    'node_modules/@t/watch',
    {
      name: '@t/watch',
      version: '1.0.0',
      type: 'module',
      exports: './index.js',
      'mcp-host': { prefix: 'w' },
    },
    { 'index.js': WATCH },
  );
  const text = (access?: unknown[]) =>
    `export default ${JSON.stringify({
      reload: { watch: true, debounceMs: 50 },
      ...(http && { http: { port: 0, auth: { tokens: [ALICE, CI] } } }),
      plugins: [{ package: '@t/watch', options }],
      ...(access && { access }),
    })};\n`;
  const file = ws.writeConfig(text());
  return { file, dir: ws.dir, write: (access) => writeFileSync(file, text(access)) };
}

/** What a listen stream was told, in order: `tools`, `resources`, or `updated <uri>`. */
async function listening(client: Client, t: Test): Promise<string[]> {
  const heard: string[] = [];
  client.setNotificationHandler('notifications/tools/list_changed', () => void heard.push('tools'));
  client.setNotificationHandler('notifications/resources/list_changed', () => void heard.push('resources'));
  client.setNotificationHandler('notifications/resources/updated', (n) => void heard.push(`updated ${n.params.uri}`));
  const stream = await client.listen({
    toolsListChanged: true,
    resourcesListChanged: true,
    resourceSubscriptions: ['docs://private/keys', 'docs://public/readme'],
  });
  t.teardown(() => stream.close());
  return heard;
}

async function connect(url: string, token: string, t: Test): Promise<Client> {
  const client = modernClient();
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${secretOf(token)}` } },
    }),
  );
  t.teardown(() => client.close());
  return client;
}

const ALICE_RULE = { who: { token: 'alice' }, tools: ['w.*'], resources: ['docs://**'] };
const CI_RULE = { who: { token: 'ci' }, tools: ['w.ci_*'], resources: ['docs://public/**'] };

t.test("over HTTP each listen stream hears only its identity's list changes and the updates it may read", async (t) => {
  const { file, write } = watchConfig(t, true);
  write([ALICE_RULE, CI_RULE]);
  const host = await startHttpHost(t, file, { env: { MCP_HOST_HTTP_TOKENS: undefined } });
  const alice = await connect(host.url, ALICE, t);
  const ci = await connect(host.url, CI, t);
  const aliceHeard = await listening(alice, t);
  const ciHeard = await listening(ci, t);
  const call = (name: string, args: Record<string, unknown>) => alice.callTool({ name: `w.${name}`, arguments: args });

  // A plugin's change to tools ci sees none of: alice hears it, ci nothing.
  await call('add_tool', { name: 'alice_only' });
  await until('alice told of w.alice_only', () => aliceHeard.length === 1);
  // One ci sees: both hear it. What ci heard before it would be ahead of it on its stream.
  await call('add_tool', { name: 'ci_extra' });
  await until('ci told of w.ci_extra', () => ciHeard.length === 1);
  t.same(ciHeard, ['tools'], 'ci was never told of w.alice_only');

  // An update of a URI ci may not read reaches alice alone; one ci may read reaches both.
  await call('touch', { uri: 'docs://private/keys' });
  await call('touch', { uri: 'docs://public/readme' });
  await until('ci told of the public update', () => ciHeard.length === 2);
  await until('alice told of both updates', () => aliceHeard.length === 4);
  t.same(aliceHeard, ['tools', 'tools', 'updated docs://private/keys', 'updated docs://public/readme']);
  t.same(ciHeard, ['tools', 'updated docs://public/readme'], 'ci never heard of docs://private/keys');

  // A reload that changes only alice's view tells alice; then one that changes only ci's tells ci.
  write([{ ...ALICE_RULE, tools: ['w.touch', 'w.add_tool'] }, CI_RULE]);
  await until('alice told of her new rules', () => aliceHeard.length === 5);
  write([
    { ...ALICE_RULE, tools: ['w.touch', 'w.add_tool'] },
    { ...CI_RULE, tools: [] },
  ]);
  await until('ci told of its new rules', () => ciHeard.length === 3);
  t.same(ciHeard, ['tools', 'updated docs://public/readme', 'tools'], "ci was not told of alice's new rules");
  t.same(
    (await ci.listTools()).tools.map((tool) => tool.name),
    [],
  );
  // ci's rules no longer show tools; a change to them tells it nothing, while alice still hears.
  await call('add_tool', { name: 'ci_more' });
  await call('touch', { uri: 'docs://public/readme' });
  await until('alice and ci told of the update', () => aliceHeard.length === 7 && ciHeard.length === 4);
  t.same(ciHeard.slice(3), ['updated docs://public/readme']);
  t.same(aliceHeard.slice(5), ['tools', 'updated docs://public/readme']);
});

t.test("over stdio a listen stream is told of a reload only when the stdio client's view changed", async (t) => {
  const { file, write } = watchConfig(t, false);
  const rules = (stdioTools: string[]) => [
    { who: { token: 'ci' }, tools: ['w.touch'] },
    { who: { stdio: true }, tools: stdioTools, resources: ['docs://public/**'] },
  ];
  write(rules(['w.add_tool']));
  const host = await startStdioHost(t, file, { clientOptions: { versionNegotiation: { mode: { pin: MODERN } } } });
  const { client } = host;
  const heard = await listening(client, t);
  // Someone else's rules change: nothing for the stdio client. Then its own.
  write([{ ...rules(['w.add_tool'])[0], tools: [] }, rules(['w.add_tool'])[1]]);
  await host.until('the first reload', () => /generation 2 is live/.test(host.log()));
  write(rules(['w.add_tool', 'w.touch']));
  await until('stdio told of its new rules', () => heard.length === 1);
  t.same(heard, ['tools']);
  t.same((await client.listTools()).tools.map((tool) => tool.name).sort(), ['w.add_tool', 'w.touch']);
});

t.test('a listen stream is a runtime session while open; a subscription it outlives is dropped', async (t) => {
  const { file, dir } = watchConfig(t, false, { holdSubscribe: true });
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
  const { runtime, service } = await serveInProcess(t, file, dir, { host: '127.0.0.1', port: 0 }, logger);
  const client = modernClient();
  await client.connect(new StreamableHTTPClientTransport(new URL(service.url)));
  t.teardown(() => client.close());
  const text = async (name: string) =>
    ((await client.callTool({ name: `w.${name}`, arguments: {} })).content as { text: string }[])[0]!.text;

  // A stream that asks for nothing the host can send closes at once: it never joins.
  const nothing = await client.listen({});
  await nothing.close();
  t.equal(runtime.sessions.size, 0);

  // A URI the plugin refuses to watch: the stream stays open, and the host log says why.
  const unserved = await client.listen({ resourceSubscriptions: ['docs://refused/here'] });
  await until('the refusal logged', () =>
    lines.some((line) => line.includes('a listen stream asked for docs://refused/here, which cannot be subscribed to')),
  );
  t.equal(runtime.sessions.size, 1, 'the stream is open all the same');
  await unserved.close();
  await until('the unserved stream to leave', () => runtime.sessions.size === 0);

  // The plugin is still being asked to watch the URI when the stream ends.
  const stream = await client.listen({ resourceSubscriptions: ['docs://public/readme'] });
  t.equal(runtime.sessions.size, 1, 'the open stream is one notifier');
  await stream.close();
  await until('the stream to leave', () => runtime.sessions.size === 0);
  t.equal(await text('release_subscribe'), 'released');
  await eventually('the late subscription dropped', async () => (await text('unsubscribed')) === '1');
});

t.test('nothing is published to every listen stream alike', (t) => {
  const streams = new ListenStreams(undefined as never);
  t.throws(() => streams.publish({ kind: 'tools_list_changed' }), {
    message: 'mcp-host tells each listen stream through its own notifier, not tools_list_changed to all of them',
  });
  t.end();
});
