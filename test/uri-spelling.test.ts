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
import { CI, secretOf } from './helpers/named-tokens.js';

t.setTimeout(120_000);

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

/** A client of `era` over HTTP, with ci's bearer token. */
async function connect(t: Test, url: string, era: 'legacy' | 'modern'): Promise<Client> {
  const client = era === 'modern' ? modernClient() : new Client({ name: 'uri-spelling', version: '1.0.0' });
  const authorization = `Bearer ${secretOf(CI)}`;
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization } } }),
  );
  t.teardown(() => client.close());
  return client;
}

/** A completion of the resource template `uri`'s `key`. */
function complete(client: Client, uri: string) {
  return client.complete({ ref: { type: 'ref/resource', uri }, argument: { name: 'key', value: '' } });
}

async function asked(client: Client): Promise<string[]> {
  return JSON.parse(firstText(await client.callTool({ name: 'f.asked', arguments: {} }))) as string[];
}

/** A spelling with `char` at `at`, which URL parsing deletes, reading `read`: the URI and what its refusal names. */
const deleting = (uri: string, char: string, at: number, read: string): [string, string] => [
  uri,
  `contains ${char} at character ${at}, which URL parsing deletes${reads(read)}`,
];
const stripping = (uri: string, char: string, read: string): [string, string] => [
  uri,
  `starts with ${char}, which URL parsing strips${reads(read)}`,
];
const backslashed = (uri: string, read: string): [string, string] => [
  uri,
  `contains a backslash (\\), which URL parsing reads as "/" in a file: URI${reads(read)}`,
];

/** Spellings that climb out of `file:///srv/public/**` to the plugin, each with what the refusal names. */
const PRIVATE = 'file:///srv/private/secret';
const OUT_OF_PUBLIC: [string, string][] = [
  deleting('file:///srv/public/.\t./private/secret', 'a tab (U+0009)', 21, PRIVATE),
  deleting('file:///srv/public/.\n./private/secret', 'a line feed (U+000A)', 21, PRIVATE),
  deleting('file:///srv/public/.\r./private/secret', 'a carriage return (U+000D)', 21, PRIVATE),
  backslashed('file:///srv/public/..\\private\\secret', PRIVATE),
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
    const client = await connect(t, host.url, era);
    t.equal(await read(client, 'file:///srv/public/readme'), 'read file:///srv/public/readme', `${era}: allowed`);
    await t.rejects(read(client, 'file:///srv/private/secret'), { message: /^Resource not found/ }, `${era}: denied`);
    for (const [uri, problem] of OUT_OF_PUBLIC) {
      await t.rejects(read(client, uri), refusal(uri, problem), `${era}: ${JSON.stringify(uri)} is refused`);
    }
    // A completion's resource reference is judged the same way.
    const [template, problem] = deleting(
      'vault://public/{key}\n',
      'a line feed (U+000A)',
      21,
      'vault://public/%7Bkey%7D',
    );
    await t.rejects(complete(client, template), refusal(template, problem), `${era}: a completion`);
  }

  // Subscriptions, in both eras: refused, and the plugin is never asked.
  const [tabbed, problem] = OUT_OF_PUBLIC[0]!;
  const legacy = await connect(t, host.url, 'legacy');
  const modern = await connect(t, host.url, 'modern');
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
    stripping(' vault://secret/key', 'a space (U+0020)', 'vault://secret/key'),
    stripping('\x01vault://secret/key', 'a control character (U+0001)', 'vault://secret/key'),
    stripping('\x1fvault://secret/key', 'a control character (U+001F)', 'vault://secret/key'),
    deleting('vault://sec\tret/key', 'a tab (U+0009)', 12, 'vault://secret/key'),
    deleting('vault://secret\r/key', 'a carriage return (U+000D)', 15, 'vault://secret/key'),
    deleting('vault://secret/ot\nher', 'a line feed (U+000A)', 18, 'vault://secret/other'),
    ['file:srv/private/secret', `is read by URL parsing as "${PRIVATE}"`],
    backslashed('file:///srv/private\\secret', PRIVATE),
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
    const [template, problem] = deleting('\tvault://secret/{key}', 'a tab (U+0009)', 1, 'vault://secret/%7Bkey%7D');
    await t.rejects(complete(client, template), refusal(template, problem), `${era}: a completion`);
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
    'VAULT://x/%c3',
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
