// Resource URIs spelled as WHATWG URL parsing reads them (DESIGN.md,
// "Protocol extensions through the host"; host/catalogue/uri-spelling.ts):
// a plugin built on the SDK's McpServer reads a client's URI with
// `new URL()`, which deletes tab, LF and CR, strips leading C0 controls and
// spaces, reads `\` as `/` in `file:` and supplies the `//` of `file:x/y`.
// Each such spelling is refused (-32602, naming the character), never
// judged as spelled and forwarded to a plugin that reads another resource:
// access rules over HTTP with a bearer token and curation over stdio, in
// both protocol eras; reads, subscriptions, completions and curated lists.
// The host runs as a child process; the plugin is a real package on McpServer.
import t, { type Test } from 'tap';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { eventually, startHttpHost, startStdioHost } from './helpers/host.js';
import { makeWorkspace } from './helpers/packages.js';
import { modernClient } from './helpers/cluster.js';
import { firstText } from './helpers/results.js';
import { uriSpellingProblem } from '../host/catalogue/uri-spelling.js';

t.setTimeout(120_000);

const CI = 'ci:ci-token-0123456789abcdef';
const MODERN = '2026-07-28';

/**
 * Files and vault keys on the SDK's McpServer, which finds a resource by the
 * WHATWG href of the URI it is sent. Every read answers with the URI the
 * plugin read; `asked` tells what it was asked to subscribe to. It also lists
 * a URI spelled with a leading space, as a careless server might.
 */
const FILES = `import { McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
export default {
  create() {
    const asked = [];
    const server = new McpServer(
      { name: 'files', version: '1.0.0' },
      { capabilities: { resources: { subscribe: true } } },
    );
    const read = async (u) => ({ contents: [{ uri: u.href, text: 'read ' + u.href }] });
    const uris = ['file:///srv/public/readme', 'file:///srv/private/secret', 'vault://public/key', 'vault://secret/key', ' vault://secret/listed'];
    for (const uri of uris) server.registerResource(uri, uri, {}, read);
    for (const area of ['public', 'secret']) {
      const template = new ResourceTemplate('vault://' + area + '/{key}', { list: undefined, complete: { key: () => ['key'] } });
      server.registerResource(area, template, {}, read);
    }
    server.server.setRequestHandler('resources/subscribe', async ({ params }) => (asked.push('subscribe ' + params.uri), {}));
    server.server.setRequestHandler('resources/unsubscribe', async ({ params }) => (asked.push('unsubscribe ' + params.uri), {}));
    server.registerTool('asked', {}, async () => ({ content: [{ type: 'text', text: JSON.stringify(asked) }] }));
    return server;
  },
};
`;

/** A config mounting the plugin under `f`, with `extra` (curation, access, http) merged in. */
function config(t: Test, entry: Record<string, unknown>, extra: Record<string, unknown>): string {
  const ws = makeWorkspace(t);
  ws.writePackage(
    'node_modules/@t/files',
    { name: '@t/files', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': { prefix: 'f' } },
    { 'index.js': FILES },
  );
  return ws.writeConfig({ reload: { watch: false }, plugins: [{ package: '@t/files', ...entry }], ...extra });
}

/** The refusal a client gets for `uri`, whose problem (what is wrong with it) the message names. */
function refusal(uri: string, problem: string) {
  return {
    code: -32602,
    message: `Resource URI ${JSON.stringify(uri)} ${problem}: the host neither judges nor forwards a URI that a plugin would read as another. Fix: send the URI exactly as resources/list or resources/templates/list shows it.`,
  };
}

const reads = (read: string) => ` (URL parsing reads it as "${read}")`;

async function read(client: Client, uri: string): Promise<string> {
  const { contents } = await client.readResource({ uri });
  return (contents[0] as { text: string }).text;
}

async function asked(client: Client): Promise<string[]> {
  return JSON.parse(firstText(await client.callTool({ name: 'f.asked', arguments: {} }))) as string[];
}

/** Spellings that climb out of `file:///srv/public/**` to the plugin, each with what the refusal names. */
const OUT_OF_PUBLIC: [string, string][] = [
  [
    'file:///srv/public/.\t./private/secret',
    `contains a tab (U+0009) at character 21, which URL parsing deletes${reads('file:///srv/private/secret')}`,
  ],
  [
    'file:///srv/public/.\n./private/secret',
    `contains a line feed (U+000A) at character 21, which URL parsing deletes${reads('file:///srv/private/secret')}`,
  ],
  [
    'file:///srv/public/.\r./private/secret',
    `contains a carriage return (U+000D) at character 21, which URL parsing deletes${reads('file:///srv/private/secret')}`,
  ],
  [
    'file:///srv/public/..\\private\\secret',
    `contains a backslash (\\), which URL parsing reads as "/" in a file: URI${reads('file:///srv/private/secret')}`,
  ],
];

t.test('access rules over HTTP: no spelling reads a file outside the allowed tree, in either era', async (t) => {
  const file = config(
    t,
    {},
    {
      http: { port: 0, auth: { tokens: [CI] } },
      access: [{ who: { token: 'ci' }, tools: ['f.asked'], resources: ['file:///srv/public/**', 'vault://public/**'] }],
    },
  );
  const host = await startHttpHost(t, file, { env: { MCP_HOST_HTTP_TOKENS: undefined } });
  for (const era of ['legacy', 'modern'] as const) {
    const client = era === 'modern' ? modernClient() : new Client({ name: 'uri-spelling', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(host.url), {
        requestInit: { headers: { authorization: `Bearer ${CI.slice(3)}` } },
      }),
    );
    t.teardown(() => client.close());
    t.equal(await read(client, 'file:///srv/public/readme'), 'read file:///srv/public/readme', `${era}: allowed`);
    await t.rejects(read(client, 'file:///srv/private/secret'), { message: /^Resource not found/ }, `${era}: denied`);
    for (const [uri, problem] of OUT_OF_PUBLIC) {
      await t.rejects(read(client, uri), refusal(uri, problem), `${era}: ${JSON.stringify(uri)} is refused`);
    }
    // A completion's resource reference is judged the same way.
    const template = 'vault://public/{key}\n';
    await t.rejects(
      client.complete({ ref: { type: 'ref/resource', uri: template }, argument: { name: 'key', value: '' } }),
      refusal(
        template,
        `contains a line feed (U+000A) at character 21, which URL parsing deletes${reads('vault://public/%7Bkey%7D')}`,
      ),
      `${era}: a completion`,
    );
  }

  // Subscriptions, in both eras: refused, and the plugin is never asked.
  const [tabbed, problem] = OUT_OF_PUBLIC[0]!;
  const legacy = new Client({ name: 'uri-spelling', version: '1.0.0' });
  const modern = modernClient();
  for (const client of [legacy, modern]) {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(host.url), {
        requestInit: { headers: { authorization: `Bearer ${CI.slice(3)}` } },
      }),
    );
    t.teardown(() => client.close());
  }
  await t.rejects(legacy.subscribeResource({ uri: tabbed }), refusal(tabbed, problem), 'legacy: subscribe');
  await legacy.unsubscribeResource({ uri: tabbed });
  // A 2026-07-28 listen stream: the plugin is asked for the allowed file alone (it would be asked for the
  // tabbed URI first, on the same connection, so once the allowed one has arrived the other never will).
  const stream = await modern.listen({ resourceSubscriptions: [tabbed, 'file:///srv/public/readme'] });
  t.teardown(() => stream.close());
  let heard: string[] = [];
  await eventually('the plugin subscribed to the allowed file', async () =>
    (heard = await asked(modern)).includes('subscribe file:///srv/public/readme'),
  );
  t.same(heard, ['subscribe file:///srv/public/readme'], 'the plugin was never asked for the tabbed URI');
});

t.test('curation over stdio: no spelling reaches an excluded resource, in either era', async (t) => {
  const file = config(t, { resources: { exclude: ['vault://secret/**', 'file:///srv/private/**'] } }, {});
  const bypasses: [string, string][] = [
    [' vault://secret/key', `starts with a space (U+0020), which URL parsing strips${reads('vault://secret/key')}`],
    [
      '\x01vault://secret/key',
      `starts with a control character (U+0001), which URL parsing strips${reads('vault://secret/key')}`,
    ],
    [
      '\x1fvault://secret/key',
      `starts with a control character (U+001F), which URL parsing strips${reads('vault://secret/key')}`,
    ],
    [
      'vault://sec\tret/key',
      `contains a tab (U+0009) at character 12, which URL parsing deletes${reads('vault://secret/key')}`,
    ],
    [
      'vault://secret\r/key',
      `contains a carriage return (U+000D) at character 15, which URL parsing deletes${reads('vault://secret/key')}`,
    ],
    [
      'vault://secret/ot\nher',
      `contains a line feed (U+000A) at character 18, which URL parsing deletes${reads('vault://secret/other')}`,
    ],
    ['file:srv/private/secret', 'is read by URL parsing as "file:///srv/private/secret"'],
    [
      'file:///srv/private\\secret',
      `contains a backslash (\\), which URL parsing reads as "/" in a file: URI${reads('file:///srv/private/secret')}`,
    ],
    ...OUT_OF_PUBLIC,
  ];
  for (const era of ['legacy', 'modern'] as const) {
    const { client } = await startStdioHost(
      t,
      file,
      era === 'modern' ? { clientOptions: { versionNegotiation: { mode: { pin: MODERN } } } } : {},
    );
    t.same(
      (await client.listResources()).resources.map((resource) => resource.uri).sort(),
      ['file:///srv/public/readme', 'vault://public/key'],
      `${era}: a listed URI spelled with a leading space is curated out with the resources it reads as`,
    );
    for (const [uri, problem] of bypasses) {
      await t.rejects(read(client, uri), refusal(uri, problem), `${era}: ${JSON.stringify(uri)} is refused`);
    }
    await t.rejects(
      client.complete({
        ref: { type: 'ref/resource', uri: '\tvault://secret/{key}' },
        argument: { name: 'key', value: '' },
      }),
      refusal(
        '\tvault://secret/{key}',
        `contains a tab (U+0009) at character 1, which URL parsing deletes${reads('vault://secret/%7Bkey%7D')}`,
      ),
      `${era}: a completion`,
    );
    // A URI let through reaches the plugin as the client spelled it, not in the host's normal form.
    t.equal(await read(client, 'vault://public/%6Bey'), 'read vault://public/%6Bey', `${era}: forwarded as sent`);
    if (era === 'legacy') {
      const [uri, problem] = bypasses[0]!;
      await t.rejects(client.subscribeResource({ uri }), refusal(uri, problem), 'legacy: subscribe');
      await client.unsubscribeResource({ uri });
      t.same(await asked(client), [], 'the plugin was never asked to subscribe or unsubscribe');
    }
  }
});

t.test('a URI reads as spelled unless URL parsing changes which resource it names', (t) => {
  for (const uri of [
    'vault://SECRET/key',
    'https://example.com',
    'docs://x/a b/é',
    'file:////srv/x',
    'file://localhost/x',
    'FILE:/x',
    'file:///a/%2e%2E/b',
    'vault://x/%c3',
    'vault://secret/k?q=\\a',
    'github://repos/{owner}/{repo}{?q}',
    'not a url',
  ]) {
    t.equal(uriSpellingProblem(uri), undefined, `${JSON.stringify(uri)} reads as spelled`);
  }
  t.same(
    [
      'http:///secret/k',
      'http://0x7f.1/',
      'http://x:80/a',
      'http://ｓecret/',
      'file:///C:/../secret',
      'vault://secret/key ',
    ].map(uriSpellingProblem),
    [
      'is read by URL parsing as "http://secret/k"',
      'is read by URL parsing as "http://127.0.0.1/"',
      'is read by URL parsing as "http://x/a"',
      'is read by URL parsing as "http://secret/"',
      'is read by URL parsing as "file:///C:/secret"',
      `ends with a space (U+0020), which URL parsing strips${reads('vault://secret/key')}`,
    ],
  );
  t.equal(
    uriSpellingProblem('vault://sec ret\t/x'),
    'contains a tab (U+0009) at character 16, which URL parsing deletes',
    'a URI that is no URL to WHATWG still has its tab refused (other parsers delete it too)',
  );
  t.end();
});
