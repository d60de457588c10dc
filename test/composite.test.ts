/**
 * The composite core end to end: the host as a child process on stdio, real
 * plugin packages (SDK v1 and v2) on disk, the SDK's own Client.
 */
import t from 'tap';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { makeWorkspace, type Workspace } from './helpers/packages.js';
import { assertEventually, runCli, startStdioHost } from './helpers/host.js';
import { progressOnTheWire } from './helpers/wire-progress.js';

const manifest = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  version: '1.0.0',
  type: 'module',
  exports: './index.js',
  peerDependencies: { 'mcp-host': '^1.0.0' },
  'mcp-host': extra,
});

/** SDK v2, prefixed "alpha": every kind of item, progress, cancellation, its own list_changed. */
const ALPHA = `
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpServer, ResourceTemplate, ResourceNotFoundError, completable } from '@modelcontextprotocol/server';
import { z } from 'zod';

export default {
  create({ options }) {
    const server = new McpServer({ name: 'alpha', version: '1.0.0' });
    server.registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
      content: [{ type: 'text', text }],
      structuredContent: { echoed: text },
      _meta: { 'test/marker': 'kept' },
    }));
    server.registerTool('fail', {}, async () => ({ content: [{ type: 'text', text: 'it failed' }], isError: true }));
    server.registerTool('slow', { inputSchema: z.object({ steps: z.number() }) }, async ({ steps }, ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      for (let i = 1; i <= steps; i++) {
        if (ctx.mcpReq.signal.aborted) {
          writeFileSync(join(options.markers, 'slow-aborted'), 'yes');
          return { content: [] };
        }
        if (token !== undefined) {
          await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps } });
        }
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
      return { content: [{ type: 'text', text: 'done' }] };
    });
    server.registerTool('grow', {}, async () => {
      server.registerTool('grown', {}, async () => ({ content: [{ type: 'text', text: 'grown' }] }));
      return { content: [] };
    });
    server.registerPrompt(
      'greet',
      { argsSchema: z.object({ name: completable(z.string(), (v) => ['alice', 'bob'].filter((n) => n.startsWith(v ?? ''))) }) },
      async ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: 'hello ' + name } }] }),
    );
    server.registerResource('one', 'alpha://one', {}, async (uri) => ({ contents: [{ uri: uri.href, text: 'one' }] }));
    server.registerResource(
      'shared',
      new ResourceTemplate('shared://{id}', { list: undefined, complete: { id: () => ['a', 'apple'] } }),
      {},
      async (uri, { id }) => {
        if (id === 'a') return { contents: [{ uri: uri.href, text: 'alpha:a' }] };
        if (id === 'boom') throw new Error('alpha broke reading ' + uri.href);
        throw new ResourceNotFoundError(uri.href);
      },
    );
    return server;
  },
};
`;

/** SDK v1, mounted flat. */
const BETA = `
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

export default {
  create() {
    const server = new McpServer({ name: 'beta', version: '1.0.0' });
    server.registerTool('shout', { inputSchema: { text: z.string() } }, async ({ text }) => ({
      content: [{ type: 'text', text: text.toUpperCase() }],
    }));
    server.registerResource(
      'anything',
      new ResourceTemplate('shared://{+path}', { list: undefined }),
      {},
      async (uri, { path }) => ({ contents: [{ uri: uri.href, text: 'beta:' + path }] }),
    );
    return server;
  },
};
`;

/** A low-level v2 server that paginates its 7 tools three at a time. */
const PAGER = `
import { Server } from '@modelcontextprotocol/server';

const tools = Array.from({ length: 7 }, (_, i) => ({ name: 't' + i, inputSchema: { type: 'object' } }));
export default {
  create() {
    const server = new Server({ name: 'pager', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', async (request) => {
      const start = request.params?.cursor ? Number(request.params.cursor.slice(1)) : 0;
      const next = start + 3;
      return { tools: tools.slice(start, next), ...(next < tools.length ? { nextCursor: 'p' + next } : {}) };
    });
    server.setRequestHandler('tools/call', async (request) => ({ content: [{ type: 'text', text: 'called ' + request.params.name }] }));
    return server;
  },
};
`;

/** A low-level v2 server that answers tool and prompt names it does not list itself, as a conformance target does. */
const LENIENT = `
import { Server } from '@modelcontextprotocol/server';

export default {
  create() {
    const server = new Server({ name: 'lenient', version: '1.0.0' }, { capabilities: { tools: {}, prompts: {} } });
    server.setRequestHandler('tools/list', async () => ({ tools: [{ name: 'known', inputSchema: { type: 'object' } }] }));
    server.setRequestHandler('tools/call', async (request) =>
      request.params.name === 'known'
        ? { content: [{ type: 'text', text: 'known ran' }] }
        : { content: [{ type: 'text', text: 'no such tool: ' + request.params.name }], isError: true },
    );
    server.setRequestHandler('prompts/list', async () => ({ prompts: [] }));
    server.setRequestHandler('prompts/get', async (request) => ({
      messages: [{ role: 'user', content: { type: 'text', text: 'lenient prompt ' + request.params.name } }],
    }));
    return server;
  },
};
`;

function writePlugins(ws: Workspace): string {
  const markers = ws.writeFile('markers/.keep', '');
  ws.writePackage('node_modules/@t/alpha', manifest('@t/alpha', { prefix: 'alpha' }), { 'index.js': ALPHA });
  ws.writePackage('node_modules/@t/beta', manifest('@t/beta'), { 'index.js': BETA });
  ws.writePackage('node_modules/@t/pager', manifest('@t/pager', { prefix: 'pager' }), { 'index.js': PAGER });
  ws.writePackage('node_modules/@t/lenient', manifest('@t/lenient'), { 'index.js': LENIENT });
  return join(markers, '..');
}

function config(ws: Workspace, extra: Record<string, unknown> = {}): string {
  const markers = writePlugins(ws);
  return ws.writeConfig({
    plugins: [
      { package: '@t/alpha', options: { markers } },
      { package: '@t/beta', flat: true },
      { package: '@t/pager' },
    ],
    ...extra,
  });
}

/**
 * One raw page of tools/list. The v2 Client's listTools() walks every page
 * itself when called without a cursor, which would hide the host's paging.
 */
async function toolsPage(client: Client, cursor?: string): Promise<{ names: string[]; nextCursor?: string }> {
  const page = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } });
  return { names: page.tools.map((tool) => tool.name), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
}

t.test('a composed catalogue over stdio', async (t) => {
  const ws = makeWorkspace();
  t.teardown(ws.cleanup);
  const host = await startStdioHost(t, config(ws));
  const { client } = host;

  t.test('capabilities are what the mounts provide, with listChanged', async (t) => {
    const caps = client.getServerCapabilities()!;
    t.same(caps.tools, { listChanged: true });
    t.same(caps.prompts, { listChanged: true });
    t.match(caps.resources, { listChanged: true });
    t.ok(caps.completions);
  });

  t.test('prefixed names from SDK v2, flat names from SDK v1, a paginating mount followed to the end', async (t) => {
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await toolsPage(client, cursor);
      names.push(...page.names);
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined);
    t.same(names, [
      'alpha.echo',
      'alpha.fail',
      'alpha.slow',
      'alpha.grow',
      'shout',
      ...Array.from({ length: 7 }, (_, i) => `pager.t${i}`),
    ]);
    t.equal(pages, 3, 'a page ends at the first mount that has more');
  });

  t.test('a cursor the host did not issue is refused with -32602', async (t) => {
    await t.rejects(client.listTools({ cursor: 'p3' }), {
      code: -32602,
      message: /Invalid cursor "p3": mcp-host did not issue it/,
    });
  });

  t.test('results pass through whole', async (t) => {
    const result = await client.callTool({ name: 'alpha.echo', arguments: { text: 'hi' } });
    t.same(result.content, [{ type: 'text', text: 'hi' }]);
    t.same(result.structuredContent, { echoed: 'hi' });
    t.equal((result._meta as Record<string, unknown>)['test/marker'], 'kept');
    const failed = await client.callTool({ name: 'alpha.fail', arguments: {} });
    t.equal(failed.isError, true);
    t.same(failed.content, [{ type: 'text', text: 'it failed' }]);
  });

  t.test(
    "a flat name routes to the flat mount that lists it; an unknown one gets the lone flat mount's own answer",
    async (t) => {
      const result = await client.callTool({ name: 'shout', arguments: { text: 'hi' } });
      t.same(result.content, [{ type: 'text', text: 'HI' }]);
      const paged = await client.callTool({ name: 'pager.t5', arguments: {} });
      t.same(paged.content, [{ type: 'text', text: 'called t5' }]);
      // beta is the only flat mount, so "whisper" reaches it unchanged and the SDK v1 server answers as it would directly.
      t.match(await client.callTool({ name: 'whisper', arguments: {} }), {
        isError: true,
        content: [{ type: 'text', text: /Tool whisper not found/ }],
      });
    },
  );

  t.test('resources/read falls through on "not found" only', async (t) => {
    const owned = await client.readResource({ uri: 'shared://a' });
    t.equal((owned.contents[0] as { text: string }).text, 'alpha:a');
    const fellThrough = await client.readResource({ uri: 'shared://zebra' });
    t.equal((fellThrough.contents[0] as { text: string }).text, 'beta:zebra');
    await t.rejects(client.readResource({ uri: 'shared://boom' }), { message: /alpha broke reading shared:\/\/boom/ });
    const plain = await client.readResource({ uri: 'alpha://one' });
    t.equal((plain.contents[0] as { text: string }).text, 'one');
  });

  t.test('completion routes prompt and template references to their owner', async (t) => {
    const prompt = await client.complete({
      ref: { type: 'ref/prompt', name: 'alpha.greet' },
      argument: { name: 'name', value: 'al' },
    });
    t.same(prompt.completion.values, ['alice']);
    const template = await client.complete({
      ref: { type: 'ref/resource', uri: 'shared://{id}' },
      argument: { name: 'id', value: 'a' },
    });
    t.same(template.completion.values, ['a', 'apple']);
    const got = await client.getPrompt({ name: 'alpha.greet', arguments: { name: 'bob' } });
    t.match(got.messages[0]!.content, { text: 'hello bob' });
  });

  t.test("the caller's progress token reaches the plugin and its progress comes back", async (t) => {
    const wire = progressOnTheWire(host.transport);
    const result = await client.callTool({ name: 'alpha.slow', arguments: { steps: 3 } }, { onprogress: () => {} });
    t.same(result.content, [{ type: 'text', text: 'done' }]);
    t.same(wire.take(), [1, 2, 3]);
  });

  t.test('cancellation reaches the plugin', async (t) => {
    const abort = new AbortController();
    const call = client.callTool(
      { name: 'alpha.slow', arguments: { steps: 100 } },
      { signal: abort.signal, onprogress: () => abort.abort('enough') },
    );
    await t.rejects(call, { message: 'enough' }, 'the call fails with the reason it was cancelled for');
    await assertEventually(t, 'the plugin observed its abort signal', () =>
      existsSync(join(ws.dir, 'markers', 'slow-aborted')),
    );
  });

  t.test("a plugin's own list_changed is forwarded as the host's", async (t) => {
    await client.callTool({ name: 'alpha.grow', arguments: {} });
    await host.until('tools/list_changed', () => host.notified.tools > 0);
    const { tools } = await client.listTools();
    t.ok(tools.some((tool) => tool.name === 'alpha.grown'));
  });
});

t.test('pageSize: the host pages its own output', async (t) => {
  const ws = makeWorkspace();
  t.teardown(ws.cleanup);
  const host = await startStdioHost(t, config(ws, { pageSize: 2 }));
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await toolsPage(host.client, cursor);
    t.ok(page.names.length <= 2, 'no page is larger than pageSize');
    names.push(...page.names);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  t.equal(names.length, 12);
  t.equal(new Set(names).size, 12, 'no duplicates');
  t.same(
    names.slice(-7),
    Array.from({ length: 7 }, (_, i) => `pager.t${i}`),
    'in order',
  );
});

t.test('a page nothing changed in is answered as before, a page that changed anew', async (t) => {
  // 20 pages of one tool: more than the host keeps per catalogue, so pages are dropped and made again too.
  const ws = makeWorkspace();
  t.teardown(ws.cleanup);
  ws.writePackage('node_modules/@t/many', manifest('@t/many', { prefix: 'many' }), {
    'index.js': `
import { McpServer } from '@modelcontextprotocol/server';
export default { create() {
  const server = new McpServer({ name: 'many', version: '1.0.0' });
  for (let i = 0; i < 19; i++) server.registerTool('t' + i, { description: 'tool ' + i }, async () => ({ content: [] }));
  server.registerTool('grow', {}, async () => {
    server.registerTool('grown', { description: 'added' }, async () => ({ content: [] }));
    return { content: [] };
  });
  return server;
} };`,
  });
  const host = await startStdioHost(t, ws.writeConfig({ plugins: [{ package: '@t/many' }], pageSize: 1 }));
  const listPage = (cursor?: string) =>
    host.client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } });
  const cursors: (string | undefined)[] = [];
  const pageThrough = async () => {
    const pages: unknown[] = [];
    cursors.length = 0;
    let cursor: string | undefined;
    do {
      cursors.push(cursor);
      const page = await listPage(cursor);
      pages.push(page);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return pages;
  };
  const first = await pageThrough();
  t.equal(first.length, 20);
  t.same(await pageThrough(), first, 'the same pages, word for word');
  t.same(await listPage(cursors.at(-1)), first.at(-1), 'the same page asked again: the same answer');
  await host.client.callTool({ name: 'many.grow', arguments: {} });
  await host.until('tools/list_changed', () => host.notified.tools > 0);
  const after = await pageThrough();
  t.equal(after.length, 21);
  t.same(
    (after.at(-1) as { tools: { name: string; description: string }[] }).tools.map(({ name, description }) => ({
      name,
      description,
    })),
    [{ name: 'many.grown', description: 'added' }],
    'the changed list is answered anew',
  );
});

t.test('collisions and bad names are refused at preflight, every one of them', async (t) => {
  const ws = makeWorkspace();
  t.teardown(ws.cleanup);
  const twin = (name: string) => `
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
export default { create() {
  const server = new McpServer({ name: '${name}', version: '1.0.0' });
  server.registerTool('same', {}, async () => ({ content: [] }));
  server.registerTool('a_tool_with_a_rather_long_name', {}, async () => ({ content: [] }));
  server.registerPrompt('same_prompt', {}, async () => ({ messages: [] }));
  server.registerResource('r', 'same://resource', {}, async (uri) => ({ contents: [{ uri: uri.href, text: '' }] }));
  server.registerResource('t', new ResourceTemplate('same://{x}', { list: undefined }), {}, async (uri) => ({ contents: [] }));
  return server;
} };`;
  ws.writePackage('node_modules/@t/one', manifest('@t/one'), { 'index.js': twin('one') });
  ws.writePackage('node_modules/@t/two', manifest('@t/two'), { 'index.js': twin('two') });
  const file = ws.writeConfig({
    maxNameLength: 32,
    plugins: [
      { package: '@t/one', flat: true },
      { package: '@t/two', prefix: 'two_long_prefix' },
    ],
  });
  const checked = await runCli(['check', '--config', file], { cwd: ws.dir });
  t.equal(checked.code, 1);
  t.match(checked.stdout, 'mcp-host check: 3 problems in');
  t.match(
    checked.stdout,
    'plugin "two_long_prefix" (@t/two): tool "a_tool_with_a_rather_long_name" is exposed as "two_long_prefix.a_tool_with_a_rather_long_name", 46 characters, over maxNameLength 32. Fix: mount it under a shorter prefix than "two_long_prefix", set shortenNames: true, or raise maxNameLength (the spec allows 128).',
  );
  t.match(
    checked.stdout,
    'plugin "@t/one" and plugin "two_long_prefix" (@t/two): both expose the resource "same://resource", and a client could not tell them apart. Fix: resource URIs are never rewritten, so leave the resource out of one entry (resources.exclude), or remove it from one of the plugins.',
  );
  t.match(checked.stdout, 'both expose the resource template "same://{x}"');

  const flat = ws.writeConfig(
    {
      plugins: [
        { package: '@t/one', flat: true },
        { package: '@t/two', flat: true },
      ],
    },
    'flat.config.js',
  );
  const started = await runCli(['start', '--config', flat], { cwd: ws.dir });
  t.equal(started.code, 1, 'the host refuses to start');
  t.match(
    started.stderr,
    'plugin "@t/one" and plugin "@t/two": both expose the tool "same", and a client could not tell them apart. Fix: mount plugin "@t/one" under a prefix (set "prefix" instead of "flat: true" in its config entry), or leave the tool out of one entry (tools.exclude) or rename it there (tools.rename).',
  );
  t.match(started.stderr, 'both expose the prompt "same_prompt"');
});

t.test('mcp-host list prints the catalogue by mount', async (t) => {
  const ws = makeWorkspace();
  t.teardown(ws.cleanup);
  const file = config(ws);
  const text = await runCli(['list', '--config', file], { cwd: ws.dir });
  t.equal(text.code, 0, text.stderr);
  t.match(
    text.stdout,
    /alpha {2}\(@t\/alpha@1\.0\.0, in-process, prefix "alpha"\)\n {2}tools: alpha\.echo, alpha\.fail/,
  );
  t.match(text.stdout, /@t\/beta {2}\(@t\/beta@1\.0\.0, in-process, flat\)\n {2}tools: shout/);
  const json = await runCli(['list', '--config', file, '--json'], { cwd: ws.dir });
  const parsed = JSON.parse(json.stdout) as { mounts: { name: string; tools: { name: string }[] }[] };
  t.same(
    parsed.mounts.map((m) => m.name),
    ['alpha', '@t/beta', 'pager'],
  );
  t.equal(parsed.mounts[2]!.tools.length, 7, 'a paginating mount is listed whole');
});

t.test('an unlisted flat name goes to a lone flat mount unchanged, and only then', async (t) => {
  const ws = makeWorkspace(t);
  writePlugins(ws);
  const unknown = (name: string) => ({
    code: -32602,
    message: `Unknown tool "${name}": no mounted plugin serves it. Fix: use a name from tools/list.`,
  });

  t.test('the lone flat mount answers for a name it does not list, as it would directly', async (t) => {
    const { client } = await startStdioHost(
      t,
      ws.writeConfig({ plugins: [{ package: '@t/lenient', flat: true }, { package: '@t/pager' }] }),
    );
    t.same(await client.callTool({ name: 'test_simple_text', arguments: {} }), {
      content: [{ type: 'text', text: 'no such tool: test_simple_text' }],
      isError: true,
    });
    const prompt = await client.getPrompt({ name: 'unlisted' });
    t.same(prompt.messages[0]?.content, { type: 'text', text: 'lenient prompt unlisted' });
    await t.rejects(
      client.callTool({ name: 'pager.nope', arguments: {} }),
      unknown('pager.nope'),
      'a prefix still claims its names: one it did not list is unknown, not the flat mount’s',
    );
  });

  t.test('two flat mounts: no single candidate, so the name is unknown', async (t) => {
    const { client } = await startStdioHost(
      t,
      ws.writeConfig({
        plugins: [
          { package: '@t/lenient', flat: true },
          { package: '@t/beta', flat: true },
        ],
      }),
    );
    await t.rejects(client.callTool({ name: 'test_simple_text', arguments: {} }), unknown('test_simple_text'));
  });

  t.test('tools curation on the lone flat mount says which names exist', async (t) => {
    const { client } = await startStdioHost(
      t,
      ws.writeConfig({ plugins: [{ package: '@t/lenient', flat: true, tools: { exclude: ['secret'] } }] }),
    );
    await t.rejects(client.callTool({ name: 'secret', arguments: {} }), unknown('secret'));
    await t.rejects(client.callTool({ name: 'test_simple_text', arguments: {} }), unknown('test_simple_text'));
    const prompt = await client.getPrompt({ name: 'unlisted' });
    t.same(prompt.messages[0]?.content, { type: 'text', text: 'lenient prompt unlisted' }, 'prompts are not curated');
  });

  t.test("a lock under pins: 'refuse' withholds every unlisted name", async (t) => {
    const config = ws.writeConfig({ pins: 'refuse', plugins: [{ package: '@t/lenient', flat: true }] });
    const pinned = await runCli(['pin', '--config', config]);
    t.equal(pinned.code, 0, pinned.stderr);
    const { client } = await startStdioHost(t, config);
    t.same((await client.callTool({ name: 'known', arguments: {} })).content, [{ type: 'text', text: 'known ran' }]);
    await t.rejects(client.callTool({ name: 'test_simple_text', arguments: {} }), unknown('test_simple_text'));
  });
});
