// Discovery (host/proxy/tool-discovery.ts) in-process: who is served search
// rather than every tool (per identity, on the tools it may use), the tools
// list of a client served search, and what search_tools finds: only tools
// the identity may call, its arguments checked with the fix. test/discovery.test.ts
// and test/discovery-attacks.test.ts search through hosts; this file is quick
// enough for `npm run mutation`.
import t from 'tap';
import type { Generation } from '../../host/catalogue/generation.js';
import { SurfacedTools } from '../../host/proxy/surfaced-tools.js';
import {
  maySearch,
  searchModeTools,
  searchServed,
  searchToolDefinition,
  searchTools,
} from '../../host/proxy/tool-discovery.js';
import { STDIO_IDENTITY, type Identity } from '../../host/vocabulary/identity.js';
import type { ListItem } from '../../host/vocabulary/list-kinds.js';
import { inProcessGeneration } from '../helpers/in-process-generation.js';

const tool = (name: string, description: string): ListItem => ({
  name,
  description,
  inputSchema: { type: 'object' },
});
const MOUNTS = [
  {
    prefix: 'notes',
    tools: [
      tool('read', 'Read a note by its id'),
      tool('write', 'Write a note'),
      tool('delete', 'Delete a note forever'),
    ],
  },
  { prefix: 'mail', tools: [tool('send', 'Send an email message'), tool('inbox', 'List the email inbox messages')] },
];
const READER: Identity = { kind: 'token', name: 'reader', tokenName: 'reader', claims: {}, scopes: [] };
const ACCESS = [
  { who: { stdio: true }, tools: ['*'] },
  { who: { token: 'reader' }, tools: ['notes.read', 'mail.inbox'] },
];

function generationWith(discovery: Record<string, unknown>, more: Record<string, unknown> = {}): Generation {
  return inProcessGeneration({ discovery, access: ACCESS, ...more }, MOUNTS).generation;
}

const names = (items: ListItem[]) => items.map((item) => item.name);

type Search = Awaited<ReturnType<typeof searchTools>>;
const found = ({ result }: Search) => names((result.structuredContent as { tools: ListItem[] }).tools);
const text = ({ result }: Search) => (result.content as { text: string }[])[0]!.text;

t.test('searchServed: search mode always, auto above its threshold of tools the identity may use', async (t) => {
  const search = generationWith({ mode: 'search' });
  t.match(searchServed(search, READER), { mode: 'search', results: 5, maxSurfaced: 32, alwaysVisible: [] });
  t.equal(searchServed(generationWith({ mode: 'all' }), STDIO_IDENTITY), undefined, "'all' never");
  t.equal(searchServed(inProcessGeneration({}, MOUNTS).generation, STDIO_IDENTITY), undefined, 'no discovery: never');
  const auto = generationWith({ mode: 'auto', threshold: 2 });
  t.match(searchServed(auto, STDIO_IDENTITY), { mode: 'auto', threshold: 2 }, 'five tools: above 2');
  t.equal(searchServed(auto, READER), undefined, 'the reader may use two: not above 2');
  t.match(searchServed(generationWith({ mode: 'auto', threshold: 1 }), READER), { mode: 'auto' }, 'two above 1');
  const servers = generationWith(
    { mode: 'all' },
    { servers: { mailroom: { tools: ['mail.*'], discovery: { mode: 'search', results: 3 } } } },
  );
  t.equal(searchServed(servers, STDIO_IDENTITY), undefined, "the host's discovery for its own clients");
  t.match(
    searchServed(servers, { ...STDIO_IDENTITY, server: 'mailroom' }),
    { mode: 'search', results: 3 },
    "a virtual server's client: the server's",
  );
});

t.test('maySearch: a tools/call may be the search tool only where some client is served search', async (t) => {
  const search = generationWith({ mode: 'search' });
  t.ok(maySearch(search, { name: 'search_tools' }));
  t.notOk(maySearch(search, { name: 'notes.read' }));
  t.notOk(maySearch(search, ['search_tools']), 'params that are no object');
  t.notOk(maySearch(search, undefined));
  t.notOk(maySearch(generationWith({ mode: 'all' }), { name: 'search_tools' }), "under 'all' it is any tool's name");
  t.ok(maySearch(generationWith({ mode: 'auto' }), { name: 'search_tools' }));
});

t.test(
  'searchModeTools: the search tool, and of alwaysVisible and surfaced only what the identity may use',
  async (t) => {
    const generation = generationWith({ mode: 'search', alwaysVisible: ['notes.*'] });
    const discovery = searchServed(generation, READER)!;
    t.same(searchModeTools(generation, READER, discovery, undefined), [
      searchToolDefinition(2),
      { name: 'notes.read', description: 'Read a note by its id', inputSchema: { type: 'object' } },
    ]);
    t.same(
      names(searchModeTools(generation, STDIO_IDENTITY, discovery, undefined)),
      ['search_tools', 'notes.read', 'notes.write', 'notes.delete'],
      'the operator may use every notes tool',
    );
    const surfaced = new SurfacedTools();
    surfaced.surface(['mail.send', 'mail.inbox', 'notes.read', 'gone.tool'], 32);
    t.same(
      names(searchModeTools(generation, READER, discovery, undefined, surfaced)),
      ['search_tools', 'notes.read', 'mail.inbox'],
      'surfaced: what it may use and is not listed yet',
    );
    const none = generationWith({ mode: 'search' });
    t.same(
      names(searchModeTools(none, READER, searchServed(none, READER)!, undefined)),
      ['search_tools'],
      'no alwaysVisible: the search tool alone',
    );
    t.throws(() => searchModeTools(generation, READER, discovery, 'page-2'), {
      code: -32602,
      message:
        "Invalid cursor: this host serves tools by search (discovery.mode 'search'), and its tools/list is one page. Fix: call tools/list without a cursor.",
    });
    t.throws(() => searchModeTools(generation, READER, discovery, ''), { code: -32602 }, 'any cursor');
  },
);

t.test('searchToolDefinition: counts the tools, takes a query, a limit up to 50 and a mount', async (t) => {
  const definition = searchToolDefinition(7);
  t.equal(definition.name, 'search_tools');
  t.equal(definition.title, 'Search tools');
  t.equal(
    definition.description,
    "Find the right tool among the 7 this server offers: search with the user's own words for what " +
      'they want done (e.g. "will it rain in Paris tomorrow"); if no result fits, search again naming the kind of ' +
      'tool or the thing it acts on (e.g. "weather forecast"). ' +
      'Returns the best-matching tools with their full definitions (name, description, input schema), best first; ' +
      'call a found tool by its name, with arguments that fit its input schema.',
  );
  t.same(definition.inputSchema, {
    type: 'object',
    properties: {
      query: {
        type: 'string',
        description: 'What the user wants done, in their own words (e.g. "open a pull request").',
      },
      limit: { type: 'integer', minimum: 1, maximum: 50, description: 'How many tools to return at most.' },
      mount: { type: 'string', description: 'Only tools of the mount with this prefix (e.g. "github").' },
    },
    required: ['query'],
  });
  t.same(definition.outputSchema, {
    type: 'object',
    properties: { tools: { type: 'array', items: { type: 'object' } } },
    required: ['tools'],
  });
  t.same(definition.annotations, { readOnlyHint: true, openWorldHint: false });
});

t.test('searchTools finds only the tools the identity may call', async (t) => {
  const generation = generationWith({ mode: 'search' });
  const discovery = searchServed(generation, READER)!;
  const ask = (identity: Identity, args: unknown) =>
    searchTools(generation, identity, discovery, { name: 'search_tools', arguments: args });
  t.same(found(await ask(STDIO_IDENTITY, { query: 'delete a note' }))[0], 'notes.delete');
  const reader = await ask(READER, { query: 'delete a note' });
  t.notOk(found(reader).includes('notes.delete'), 'a tool it may not call is not found');
  t.same(found(reader), ['notes.read'], 'what it may call is');
  t.same(
    reader.result.content,
    [{ type: 'text', text: JSON.stringify(reader.result.structuredContent) }],
    'as JSON text too',
  );
  t.same(
    (reader.result.structuredContent as { tools: ListItem[] }).tools[0],
    { ...MOUNTS[0]!.tools[0], name: 'notes.read' },
    'whole, by its served name',
  );
  t.equal(reader.result.isError, undefined);
  t.equal(reader.surfacedChanged, false, 'no session to surface to');
  const mail = await ask(READER, { query: 'send an email message' });
  t.same(found(mail), ['mail.inbox'], 'not mail.send');
  t.notOk(found(await ask(READER, { query: 'send' })).includes('mail.send'), 'not even by its own word');
  const nothing = await ask(READER, { query: 'xylophone' });
  t.same(found(nothing), []);
  t.equal(
    text(nothing),
    'No tool matches "xylophone". Try other words: what the tool does, or the thing it acts on.',
    'nothing found: said so',
  );
  t.equal((nothing.result.content as { type: string }[])[0]!.type, 'text');
});

t.test('searchTools: limit (default discovery.results) and mount narrow what is found', async (t) => {
  const generation = generationWith({ mode: 'search', results: 2 });
  const discovery = searchServed(generation, STDIO_IDENTITY)!;
  const ask = (args: unknown) =>
    searchTools(generation, STDIO_IDENTITY, discovery, { name: 'search_tools', arguments: args });
  t.equal(found(await ask({ query: 'note email message' })).length, 2, 'the default results');
  t.equal(found(await ask({ query: 'note email message', limit: 3 })).length, 3);
  t.equal(found(await ask({ query: 'note email message', limit: 1 })).length, 1);
  t.same(found(await ask({ query: 'note email message', mount: 'mail', limit: 5 })).sort(), [
    'mail.inbox',
    'mail.send',
  ]);
});

t.test('searchTools: what a search found is surfaced in a 2025-era session, and presented as it asks', async (t) => {
  const generation = generationWith({ mode: 'search', maxSurfaced: 1 });
  const discovery = searchServed(generation, STDIO_IDENTITY)!;
  const surfaced = new SurfacedTools();
  const presented: ListItem[][] = [];
  const session = {
    surfaced,
    present: (tools: ListItem[]) => {
      presented.push(tools);
      return tools.map(({ name }) => ({ name, inputSchema: { type: 'object' } }));
    },
  };
  const args = { name: 'search_tools', arguments: { query: 'delete a note' } };
  const first = await searchTools(generation, STDIO_IDENTITY, discovery, args, session);
  t.equal(first.surfacedChanged, true);
  t.same(surfaced.names, ['notes.delete'], 'the best found, within maxSurfaced');
  t.same(names(presented[0]!)[0], 'notes.delete', 'present sees the tools found');
  t.same((first.result.structuredContent as { tools: ListItem[] }).tools[0], {
    name: 'notes.delete',
    inputSchema: { type: 'object' },
  });
  const again = await searchTools(generation, STDIO_IDENTITY, discovery, args, session);
  t.equal(again.surfacedChanged, false, 'found again: the list did not change');
});

t.test('searchTools: bad arguments are a tool error naming what is wrong and the fix', async (t) => {
  const generation = generationWith({ mode: 'search' });
  const discovery = searchServed(generation, STDIO_IDENTITY)!;
  const fix =
    'Fix: call search_tools with { "query": "what you want to do" }, and optionally "limit" (1 to 50) and "mount" (a prefix).';
  const refused = async (args: unknown, what: string) => {
    const answer = await searchTools(generation, STDIO_IDENTITY, discovery, { name: 'search_tools', arguments: args });
    t.same(answer, {
      result: {
        content: [{ type: 'text', text: `Invalid arguments for tool search_tools: ${what} ${fix}` }],
        isError: true,
      },
      surfacedChanged: false,
    });
  };
  await refused(undefined, '"query" must be a non-empty string, got nothing.');
  await refused('notes', '"query" must be a non-empty string, got nothing.');
  await refused({ query: 3 }, '"query" must be a non-empty string, got 3.');
  await refused({ query: '' }, '"query" must be a non-empty string, got "".');
  await refused({ query: ' \n' }, '"query" must be a non-empty string, got " \\n".');
  await refused({ query: 'x'.repeat(501) }, '"query" is 501 characters, over the 500 a search takes.');
  for (const limit of [0, 51, 2.5, '3', null]) {
    await refused({ query: 'note', limit }, `"limit" must be an integer from 1 to 50, got ${JSON.stringify(limit)}.`);
  }
  await refused({ query: 'note', mount: 7 }, '"mount" must be a mount\'s prefix, got 7.');
  const longest = await searchTools(generation, STDIO_IDENTITY, discovery, {
    arguments: { query: 'note '.repeat(100), limit: 50 },
  });
  t.equal(longest.result.isError, undefined, 'a query of 500 characters and a limit of 50 are taken');
  const one = await searchTools(generation, STDIO_IDENTITY, discovery, { arguments: { query: 'note', limit: 1 } });
  t.equal(one.result.isError, undefined, 'and a limit of 1');
});
