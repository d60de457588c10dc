// Discovery for big catalogues (DESIGN.md; docs/discovery.md): in search
// mode a client lists a few tools and search_tools, finds the rest by
// search, and calls the real tools by name. The host runs as a child process
// over stdio with real plugin packages; the 2,000-tool catalogue is one
// in-process plugin that registers them all.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test as Tap } from 'tap';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { CLI, runCli, startHttpHost, startStdioHost, until, type Teardown } from './helpers/host.js';
import { traceLoadedModules } from './helpers/loaded-modules.js';
import { controlEnv, makeWorkspace, type Workspace } from './helpers/packages.js';
import { firstText } from './helpers/results.js';
import { validateConfig } from '../host/config/validate.js';

t.setTimeout(180_000);

/**
 * `@t/big`: `options.count` generated inventory tools (verbs x nouns x
 * numbers), plus nothing a test searches for, so the real targets sit among
 * many near-misses.
 */
const BIG_PLUGIN = `import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
const VERBS = ['list', 'create', 'update', 'archive', 'export', 'import', 'count', 'tag'];
const NOUNS = ['invoice', 'customer', 'shipment', 'warehouse', 'supplier', 'order', 'pallet', 'driver', 'route', 'return'];
export default {
  create({ options }) {
    const server = new McpServer({ name: 'big', version: '1.0.0' });
    for (let i = 0; i < options.count; i++) {
      const verb = VERBS[i % VERBS.length];
      const noun = NOUNS[Math.floor(i / VERBS.length) % NOUNS.length];
      server.registerTool(verb + '_' + noun + '_' + i, {
        description: verb + ' the ' + noun + ' records of region ' + i,
        inputSchema: z.object({ region: z.string().describe('the region code') }),
      }, async () => ({ content: [{ type: 'text', text: verb + ' ' + noun + ' ' + i }] }));
    }
    return server;
  },
};
`;

/** `@t/fx`: money tools, the ones the tests look for. */
const FX_PLUGIN = `import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
export default {
  create() {
    const server = new McpServer({ name: 'fx', version: '1.0.0' });
    server.registerTool('convert', {
      description: 'Converts an amount of money from one currency into another at today\\'s exchange rate',
      inputSchema: z.object({ amount: z.number(), from: z.string().describe('ISO currency code'), to: z.string() }),
    }, async ({ amount, from, to }) => ({ content: [{ type: 'text', text: amount + ' ' + from + ' in ' + to }] }));
    server.registerTool('rate', { description: 'The exchange rate between two currencies' },
      async () => ({ content: [{ type: 'text', text: '1.1' }] }));
    server.registerTool('secret_rates', { description: 'Internal exchange rate spreads for the treasury desk' },
      async () => ({ content: [{ type: 'text', text: 'secret' }] }));
    server.registerTool('holidays', { description: 'Bank holidays when currency markets are closed' },
      async () => ({ content: [{ type: 'text', text: 'none' }] }));
    server.registerTool('summarize_the_quarterly_foreign_exchange_exposure_of_every_subsidiary', {
      description: 'Quarterly foreign exchange exposure per subsidiary',
    }, async () => ({ content: [{ type: 'text', text: 'exposure' }] }));
    return server;
  },
};
`;

/** `@t/weather`: a forecast described in its own words, none of which a user asking about rain says. */
const WEATHER_PLUGIN = `import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
export default {
  create() {
    const server = new McpServer({ name: 'weather', version: '1.0.0' });
    server.registerTool('forecast', {
      description: 'Get the weather forecast for a city',
      inputSchema: z.object({ city: z.string() }),
    }, async ({ city }) => ({ content: [{ type: 'text', text: 'forecast for ' + city }] }));
    return server;
  },
};
`;

function manifest(name: string, prefix: string): Record<string, unknown> {
  return { name, version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': { prefix } };
}

function workspace(t: Teardown): Workspace {
  const ws = makeWorkspace(t);
  ws.writePackage('node_modules/@t/big', manifest('@t/big', 'big'), { 'index.js': BIG_PLUGIN });
  ws.writePackage('node_modules/@t/fx', manifest('@t/fx', 'fx'), { 'index.js': FX_PLUGIN });
  ws.writePackage('node_modules/@t/weather', manifest('@t/weather', 'weather'), { 'index.js': WEATHER_PLUGIN });
  return ws;
}

const FX = { package: '@t/fx', prefix: 'fx', tools: { exclude: ['secret_rates'] } };
const big = (count: number) => ({ package: '@t/big', prefix: 'big', options: { count } });

interface FoundTool {
  name: string;
  inputSchema?: { properties?: Record<string, unknown> };
}

async function search(t: Tap, client: Client, args: Record<string, unknown>): Promise<FoundTool[]> {
  const result = await client.callTool({ name: 'search_tools', arguments: args });
  t.notOk(result.isError, `search ${JSON.stringify(args)}${result.isError ? `: ${firstText(result)}` : ''}`);
  return (result.structuredContent as { tools: FoundTool[] }).tools;
}

const names = (tools: { name: string }[]) => tools.map((tool) => tool.name);

t.test(
  'a 2,000-tool catalogue in search mode: a legacy client lists a few, finds by paraphrase, lists and calls the found tool',
  async (t) => {
    const ws = workspace(t);
    const config = ws.writeConfig({
      discovery: { mode: 'search', alwaysVisible: ['fx.rate'] },
      plugins: [big(2000), FX],
    });
    const host = await startStdioHost(t, config);
    const listed = (await host.client.listTools()).tools;
    t.same(names(listed), ['search_tools', 'fx.rate'], 'alwaysVisible + 1 tools, not 2,005');
    t.match(listed[0]!.description, 'among the 2004 this server offers');

    const found = await search(t, host.client, { query: 'change dollars into euros: which currency conversion?' });
    t.equal(found[0]?.name, 'fx.convert', `the paraphrase finds fx.convert first: ${names(found).join(', ')}`);
    t.same(Object.keys(found[0]!.inputSchema!.properties!), ['amount', 'from', 'to'], 'with its real schema');
    t.ok(found.length <= 5, 'at most discovery.results tools');

    await host.until('tools/list_changed for the surfaced tools', () => host.notified.tools === 1);
    const after = (await host.client.listTools()).tools;
    const convert = after.find((tool) => tool.name === 'fx.convert');
    t.ok(convert, 'the found tool is in the session list now');
    t.same(convert!.inputSchema, found[0]!.inputSchema, 'the listed definition is the real one');
    const call = await host.client.callTool({ name: 'fx.convert', arguments: { amount: 100, from: 'USD', to: 'EUR' } });
    t.equal(firstText(call), '100 USD in EUR');

    t.same(
      names(await search(t, host.client, { query: 'secret exchange rate spreads treasury' })).filter((n) =>
        n.includes('secret'),
      ),
      [],
      'a tool curated out never appears in results',
    );
    const refused = await host.client
      .callTool({ name: 'fx.secret_rates', arguments: {} })
      .catch((error: Error) => error);
    t.match(String(refused), 'Unknown tool "fx.secret_rates"', 'nor is it callable');

    const unlisted = await host.client.callTool({ name: 'big.import_supplier_1397', arguments: { region: 'eu' } });
    t.equal(firstText(unlisted), 'import supplier 1397', 'a usable tool is served whether listed or not');

    const long = await search(t, host.client, { query: 'quarterly foreign exchange exposure subsidiary', limit: 1 });
    t.ok(long[0]!.name.length <= 64, `names fit strict clients in search mode: ${long[0]!.name}`);
    const exposure = await host.client.callTool({ name: long[0]!.name, arguments: {} });
    t.equal(firstText(exposure), 'exposure', 'and the shortened name routes back');

    const inMount = await search(t, host.client, { query: 'exchange rate of invoice records', mount: 'big' });
    t.ok(
      inMount.length > 0 && inMount.every((tool) => tool.name.startsWith('big.')),
      'a search narrowed to a mount finds only its tools',
    );
  },
);

t.test('bad search arguments are a tool error naming the argument and the fix; a cursor is refused', async (t) => {
  const ws = workspace(t);
  const host = await startStdioHost(t, ws.writeConfig({ discovery: { mode: 'search' }, plugins: [FX] }));
  for (const [args, wrong] of [
    [{}, '"query" must be a non-empty string, got nothing'],
    [{ query: '  ' }, '"query" must be a non-empty string, got "  "'],
    [{ query: 'rate', limit: 0 }, '"limit" must be an integer from 1 to 50, got 0'],
    [{ query: 'rate '.repeat(101) }, '"query" is 505 characters, over the 500 a search takes'],
    [{ query: 'rate', mount: 7 }, `"mount" must be a mount's prefix, got 7`],
  ] as const) {
    const result = await host.client.callTool({ name: 'search_tools', arguments: args });
    t.equal(result.isError, true);
    t.match(firstText(result), `Invalid arguments for tool search_tools: ${wrong}. Fix: call search_tools with`);
  }
  const none = await host.client.callTool({ name: 'search_tools', arguments: { query: 'zzzqqq' } });
  t.match(firstText(none), 'No tool matches "zzzqqq". Try other words');
  const paged = await host.client.listTools({ cursor: 'abc' }).catch((error: Error) => error);
  t.match(String(paged), "this host serves tools by search (discovery.mode 'search'), and its tools/list is one page");
});

t.test('a session keeps at most maxSurfaced found tools: the oldest found leaves first', async (t) => {
  const ws = workspace(t);
  const config = ws.writeConfig({ discovery: { mode: 'search', maxSurfaced: 2, results: 1 }, plugins: [FX] });
  const host = await startStdioHost(t, config);
  for (const query of ['convert currency amount', 'bank holidays markets closed', 'exchange rate between currencies']) {
    await search(t, host.client, { query });
  }
  await host.until('three list_changed', () => host.notified.tools === 3);
  t.same(names((await host.client.listTools()).tools), ['search_tools', 'fx.holidays', 'fx.rate']);
  await search(t, host.client, { query: 'exchange rate between currencies' });
  t.same(names((await host.client.listTools()).tools), ['search_tools', 'fx.holidays', 'fx.rate']);
  t.equal(host.notified.tools, 3, 'finding a listed tool again changes no list, and sends nothing');
});

t.test('a 2026-07-28 client lists the small catalogue and calls a found tool by name', async (t) => {
  const ws = workspace(t);
  const config = ws.writeConfig({ discovery: { mode: 'search' }, plugins: [big(300), FX] });
  const client = new Client(
    { name: 'modern-client', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [CLI, 'start', '--config', config], stderr: 'ignore' }),
  );
  t.teardown(() => client.close());
  t.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
  t.same(names((await client.listTools()).tools), ['search_tools']);
  const found = await search(t, client, { query: 'convert money to another currency', limit: 3 });
  t.equal(found[0]?.name, 'fx.convert');
  const call = await client.callTool({ name: found[0]!.name, arguments: { amount: 5, from: 'GBP', to: 'JPY' } });
  t.equal(firstText(call), '5 GBP in JPY');
  t.same(names((await client.listTools()).tools), ['search_tools'], 'a stateless client is not given a list to keep');
});

t.test('over Streamable HTTP: a 2026-07-28 client and a legacy session each find and call a tool', async (t) => {
  const ws = workspace(t);
  const host = await startHttpHost(t, ws.writeConfig({ discovery: { mode: 'search' }, plugins: [FX] }));
  const modern = new Client(
    { name: 'modern', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await modern.connect(new StreamableHTTPClientTransport(new URL(host.url)));
  t.teardown(() => modern.close());
  t.same(names((await modern.listTools()).tools), ['search_tools']);
  const found = await search(t, modern, { query: 'bank holidays', limit: 1 });
  t.equal(firstText(await modern.callTool({ name: found[0]!.name, arguments: {} })), 'none');

  const legacy = new Client({ name: 'legacy', version: '1.0.0' });
  await legacy.connect(new StreamableHTTPClientTransport(new URL(host.url)));
  t.teardown(() => legacy.close());
  t.not(legacy.getNegotiatedProtocolVersion(), '2026-07-28');
  await search(t, legacy, { query: 'bank holidays', limit: 1 });
  t.same(
    names((await legacy.listTools()).tools),
    ['search_tools', 'fx.holidays'],
    'the session list keeps what it found',
  );
});

t.test(
  "access rules narrow what each identity finds, lists and may call, in both eras ('auto' counts per identity); the audit log says so",
  async (t) => {
    const ws = workspace(t);
    const TREASURY = 'treasury-token-0123456789';
    const CLERK = 'clerk-token-0123456789ab';
    const config = ws.writeConfig({
      http: { port: 0, auth: { tokens: [`treasury:${TREASURY}`, `clerk:${CLERK}`] } },
      audit: { file: './audit.log' },
      discovery: { mode: 'auto', threshold: 3, alwaysVisible: ['fx.rate', 'fx.convert'] },
      access: [
        { who: { token: 'treasury' }, tools: ['fx.*'] },
        { who: { token: 'clerk' }, tools: ['fx.rate', 'fx.holidays'] },
      ],
      plugins: [FX],
    });
    const host = await startHttpHost(t, config);
    const connect = async (token: string, pin?: string) => {
      const client = new Client(
        { name: 'identity', version: '1.0.0' },
        pin ? { versionNegotiation: { mode: { pin } } } : {},
      );
      await client.connect(
        new StreamableHTTPClientTransport(new URL(host.url), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      t.teardown(() => client.close());
      return client;
    };
    for (const pin of [undefined, '2026-07-28']) {
      const era = pin ?? 'a legacy session';
      const treasury = await connect(TREASURY, pin);
      t.same(
        names((await treasury.listTools()).tools),
        ['search_tools', 'fx.convert', 'fx.rate'],
        `${era}: the treasury may use 4 tools, over the threshold: it is served search`,
      );
      const found = await search(t, treasury, { query: 'convert dollars into euros' });
      t.equal(found[0]?.name, 'fx.convert', `${era}: the treasury finds fx.convert`);

      const clerk = await connect(CLERK, pin);
      t.same(
        names((await clerk.listTools()).tools),
        ['fx.rate', 'fx.holidays'],
        `${era}: the clerk may use 2 tools, under the threshold: it is listed them, not search`,
      );
      const refused = await clerk
        .callTool({ name: 'search_tools', arguments: { query: 'convert' } })
        .catch((e: Error) => e);
      t.match(String(refused), 'Unknown tool "search_tools"', `${era}: nor may the clerk search`);
      const denied = await clerk
        .callTool({ name: 'fx.convert', arguments: { amount: 1, from: 'USD', to: 'EUR' } })
        .catch((e: Error) => e);
      t.match(String(denied), 'Unknown tool "fx.convert"', `${era}: a tool the clerk may not use is unknown to it`);
    }
    // The search tool is the host's own, allowed by no rule: a search of a client served search is allowed.
    const searches = () =>
      (existsSync(join(ws.dir, 'audit.log')) ? readFileSync(join(ws.dir, 'audit.log'), 'utf8') : '')
        .split('\n')
        .filter((line) => line.includes('"target":"search_tools"'))
        .map((line) => JSON.parse(line) as { identity: { name: string }; decision: string; rule?: unknown });
    await until('the four searches to be audited', () => searches().length === 4);
    t.same(
      searches().map(({ identity, decision, rule }) => ({ who: identity.name, decision, rule })),
      [
        { who: 'treasury', decision: 'allow', rule: undefined },
        { who: 'clerk', decision: 'deny', rule: undefined },
        { who: 'treasury', decision: 'allow', rule: undefined },
        { who: 'clerk', decision: 'deny', rule: undefined },
      ],
      "the treasury's searches are audited as allowed, the clerk's (not served search) as denied",
    );
  },
);

t.test(
  'in search mode an identity never sees a tool it may not call: not listed, not found, not surfaced, withdrawn when its rules drop it',
  async (t) => {
    const ws = workspace(t);
    const write = (tools: string[]) =>
      ws.writeConfig({
        reload: { watch: false },
        // fx.secret_rates is served (no curation hides it) and always visible, but no rule lets this identity use it.
        discovery: { mode: 'search', alwaysVisible: ['fx.secret_rates', 'fx.rate'] },
        access: [{ who: { stdio: true }, tools }],
        plugins: [{ package: '@t/fx', prefix: 'fx' }],
      });
    const config = write(['fx.rate', 'fx.convert', 'fx.holidays']);
    const env = controlEnv(ws);
    const host = await startStdioHost(t, config, { env });
    const listed = (await host.client.listTools()).tools;
    t.same(names(listed), ['search_tools', 'fx.rate'], 'an alwaysVisible tool it may not call is not listed');
    t.match(listed[0]!.description, 'among the 3 this server offers', 'nor counted');

    const query = { query: 'internal exchange rate spreads for the treasury desk' };
    const result = await host.client.callTool({ name: 'search_tools', arguments: query });
    const found = (result.structuredContent as { tools: FoundTool[] }).tools;
    t.ok(found.length > 0, `the search finds what it may call: ${names(found).join(', ')}`);
    t.notOk(names(found).includes('fx.secret_rates'), 'not in structuredContent.tools');
    t.notMatch(firstText(result), 'secret_rates', 'nor in the text');

    await search(t, host.client, { query: 'convert an amount of money into another currency', limit: 1 });
    await host.until('fx.convert surfaced', () => host.notified.tools > 0);
    const surfaced = names((await host.client.listTools()).tools);
    t.ok(surfaced.includes('fx.convert'), 'a found tool it may call is surfaced');
    t.notOk(surfaced.includes('fx.secret_rates'), 'one it may not call never is');

    // Its rules stop allowing fx.convert: the surfaced tool leaves its list, and a call to it is unknown.
    const told = host.notified.tools;
    write(['fx.rate', 'fx.holidays']);
    const reload = await runCli(['reload', '--config', config], { env });
    t.equal(reload.code, 0, reload.stderr);
    t.notOk(names((await host.client.listTools()).tools).includes('fx.convert'), 'withdrawn from its list');
    await host.until('the withdrawing list_changed', () => host.notified.tools > told);
    const refused = await host.client
      .callTool({ name: 'fx.convert', arguments: { amount: 1, from: 'USD', to: 'EUR' } })
      .catch((error: Error) => error);
    t.match(String(refused), 'Unknown tool "fx.convert"');
  },
);

t.test(
  "a request in none of the tool's words finds it through WordNet, only while the access rules let the identity use it",
  async (t) => {
    const ws = workspace(t);
    const write = (tools: string[]) =>
      ws.writeConfig({
        reload: { watch: false },
        discovery: { mode: 'search' },
        access: [{ who: { stdio: true }, tools }],
        plugins: [FX, { package: '@t/weather', prefix: 'weather' }],
      });
    const config = write(['fx.*', 'weather.*']);
    const env = controlEnv(ws);
    const host = await startStdioHost(t, config, { env });
    // "rain" is a kind of weather (WordNet): the forecast's document holds it, though its description does not.
    const query = { query: 'will it rain in Paris tomorrow' };
    const found = await search(t, host.client, query);
    t.equal(found[0]?.name, 'weather.forecast', `found first: ${names(found).join(', ')}`);
    const call = await host.client.callTool({ name: 'weather.forecast', arguments: { city: 'Paris' } });
    t.equal(firstText(call), 'forecast for Paris');

    write(['fx.*']);
    const reload = await runCli(['reload', '--config', config], { env });
    t.equal(reload.code, 0, reload.stderr);
    t.notOk(
      names(await search(t, host.client, query)).includes('weather.forecast'),
      'once its rules drop the weather tools, the same request no longer finds the forecast',
    );
  },
);

t.test('a host without discovery never loads WordNet; a host that serves search does', async (t) => {
  const ws = workspace(t);
  const trace = traceLoadedModules(ws);
  const host = await startStdioHost(t, ws.writeConfig({ plugins: [FX] }), { env: trace.env });
  t.ok((await host.client.listTools()).tools.length > 0);
  t.notMatch(trace.loaded(), '/catalogue/wordnet.js', 'no discovery: WordNet is not loaded');
  trace.clear();
  const searching = await startStdioHost(t, ws.writeConfig({ discovery: { mode: 'search' }, plugins: [FX] }), {
    env: trace.env,
  });
  t.ok((await search(t, searching.client, { query: 'currency' })).length > 0);
  t.match(trace.loaded(), '/catalogue/wordnet.js', 'search mode: WordNet is loaded to build the index');
});

t.test('a reload that removes a surfaced tool withdraws it with list_changed', async (t) => {
  const ws = workspace(t);
  const write = (exclude: string[]) =>
    ws.writeConfig({
      reload: { watch: false },
      discovery: { mode: 'search' },
      plugins: [{ ...FX, tools: { exclude } }],
    });
  const config = write(['secret_rates']);
  const env = controlEnv(ws);
  const host = await startStdioHost(t, config, { env });
  await search(t, host.client, { query: 'convert currency amount', limit: 1 });
  await host.until('the surfacing list_changed', () => host.notified.tools === 1);
  t.same(names((await host.client.listTools()).tools), ['search_tools', 'fx.convert']);

  write(['secret_rates', 'convert']);
  const reload = await runCli(['reload', '--config', config], { env });
  t.equal(reload.code, 0, reload.stderr);
  await host.until('the withdrawing list_changed', () => host.notified.tools === 2);
  t.same(names((await host.client.listTools()).tools), ['search_tools'], 'withdrawn from the session list');
  const found = await search(t, host.client, { query: 'convert currency amount' });
  t.notOk(names(found).includes('fx.convert'), 'and from results');
});

t.test("'auto' lists every tool up to the threshold and serves search above it", async (t) => {
  const ws = workspace(t);
  const write = (threshold: number) =>
    ws.writeConfig({ reload: { watch: false }, discovery: { mode: 'auto', threshold }, plugins: [FX] });
  const config = write(4);
  const env = controlEnv(ws);
  const host = await startStdioHost(t, config, { env });
  t.equal((await host.client.listTools()).tools.length, 4, '4 tools, threshold 4: every tool');
  const unknown = await host.client.callTool({ name: 'search_tools', arguments: { query: 'rate' } }).catch((e) => e);
  t.match(String(unknown), 'Unknown tool "search_tools"', 'no search tool below the threshold');

  write(3);
  const reload = await runCli(['reload', '--config', config], { env });
  t.equal(reload.code, 0, reload.stderr);
  await host.until('list_changed for the switch to search', () => host.notified.tools === 1);
  t.same(names((await host.client.listTools()).tools), ['search_tools'], '4 tools, threshold 3: search');
});

t.test(
  'a discovery section resolves with its defaults; search may be served, so names default to 64 characters',
  async (t) => {
    const plugins = [{ package: '@t/fx' }];
    const resolved = validateConfig(
      { discovery: { mode: 'auto', threshold: undefined }, plugins },
      '/srv/mcp-host.config.js',
    );
    t.same(resolved.discovery, { mode: 'auto', threshold: 40, alwaysVisible: [], results: 5, maxSurfaced: 32 });
    t.match(resolved, { maxNameLength: 64, shortenNames: true });
    const kept = validateConfig(
      { discovery: { mode: 'search' }, maxNameLength: 128, shortenNames: false, plugins },
      '/srv/mcp-host.config.js',
    );
    t.match(kept, { maxNameLength: 128, shortenNames: false }, 'the config says otherwise');
    const listed = validateConfig({ discovery: { mode: 'all' }, plugins }, '/srv/mcp-host.config.js');
    t.match(listed, { maxNameLength: 128, shortenNames: false, discovery: { mode: 'all' } });
    t.notOk('discovery' in validateConfig({ plugins }, '/srv/mcp-host.config.js'), 'no section, no settings');
  },
);

t.test('discovery settings are checked: each problem names its key and the fix', async (t) => {
  const ws = workspace(t);
  const config = ws.writeConfig({
    discovery: { mode: 'fast', threshold: 0, alwaysVisible: 'fx.*', results: 51, maxSurfaced: -1, extra: 1 },
    plugins: [FX],
  });
  const { code, stdout, stderr } = await runCli(['check', '--config', config]);
  const output = stdout + stderr;
  t.equal(code, 1);
  t.match(output, `discovery.mode: expected "all", "search" or "auto", got "fast".`);
  t.match(output, 'discovery.threshold: expected a positive integer, got 0.');
  t.match(output, 'discovery.alwaysVisible: expected an array of non-empty strings, got "fx.*".');
  t.match(output, 'discovery.results: expected an integer from 1 to 50, got 51.');
  t.match(output, 'discovery.maxSurfaced: expected a positive integer, got -1.');
  t.match(output, 'discovery.extra');
});

t.test('a flat tool named search_tools is refused where clients may be served search, naming the fix', async (t) => {
  const ws = workspace(t);
  const entry = { package: '@t/fx', flat: true, tools: { rename: { rate: 'search_tools' } } };
  const refused = await runCli([
    'check',
    '--config',
    ws.writeConfig({ discovery: { mode: 'auto' }, plugins: [entry] }),
  ]);
  t.equal(refused.code, 1);
  t.match(
    refused.stdout + refused.stderr,
    `serves a tool named "search_tools", the name of the host's own search tool under discovery.mode 'auto', and a client could not tell them apart.`,
  );
  t.match(refused.stdout + refused.stderr, 'rename the tool in its entry (tools.rename: { "rate": "…" })');
  const allMode = await runCli(['check', '--config', ws.writeConfig({ plugins: [entry] })]);
  t.equal(allMode.code, 0, `served as the plugin's own in 'all' mode\n${allMode.stdout}${allMode.stderr}`);
});
