// The example plugins in plugins/, each driven directly by an SDK client over
// an in-memory link (no host in between): every tool, prompt, resource,
// template and completion once, progress and cancellation on the slow tools,
// and deterministic output with the clock frozen.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import clockPlugin from '@mcp-host/clock';
import notesPlugin from '@mcp-host/notes';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport as V1InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  ResourceListChangedNotificationSchema as V1ResourceListChanged,
  type Progress as V1Progress,
} from '@modelcontextprotocol/sdk/types.js';
import type { Teardown } from './helpers/host.js';
import { firstText } from './helpers/results.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const tmpRoot = path.join(root, '.tmp');

const FROZEN = '2025-06-02T12:00:00.000Z'; // a Monday

interface ToolResult {
  content?: unknown[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

// The clock plugin's readable forms, pinned as Node 20's ICU writes them
// (not recomputed here with the plugin's own Intl call, which would agree
// with whatever the plugin did).
const PARIS_READABLE = 'Monday, June 2, 2025 at 2:00:00 PM GMT+2';

/** Records every message the server side of a link sends. */
function spyOnSend(transport: { send(message: never, options?: never): Promise<void> }, sent: unknown[]) {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    sent.push(message);
    return send(message, options);
  };
}

interface SentMessage {
  id?: unknown;
  method?: string;
  params?: { progressToken?: unknown };
}

/** The progress token of the last progress notification among messages sent. */
const lastProgressToken = (sent: unknown[]) =>
  (sent as SentMessage[]).findLast((m) => m.method === 'notifications/progress')?.params?.progressToken;

/** The messages sent about the call with `token`: its progress and its answer (the SDK's token is the request id). */
const sentAbout = (sent: unknown[], token: unknown) =>
  (sent as SentMessage[]).filter((m) => m.params?.progressToken === token || m.id === token);

async function tempDir(): Promise<string> {
  await mkdir(tmpRoot, { recursive: true });
  return mkdtemp(path.join(tmpRoot, 'plugins-'));
}

async function manifestOf(dir: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(path.join(root, 'plugins', dir, 'package.json'), 'utf8')) as Record<string, unknown>;
}

// ---------------------------------------------------------------------------
// notes (SDK v2)

async function connectNotes(t: Teardown, options: Record<string, unknown>, sent: unknown[] = []) {
  const server = notesPlugin.create({ options });
  const client = new Client({ name: 'plugins-test', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  spyOnSend(serverSide, sent);
  await server.connect(serverSide);
  await client.connect(clientSide);
  t.teardown(async () => {
    await client.close();
    await server.close();
  });
  return client;
}

t.test('notes', async (t) => {
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));

  t.test('package.json is a plugin manifest', async (t) => {
    const pkg = await manifestOf('notes');
    t.match(pkg, {
      name: '@mcp-host/notes',
      version: '1.0.0',
      private: true,
      type: 'module',
      exports: './index.js',
      main: './index.js',
      peerDependencies: { 'mcp-host': '^1.0.0' },
      peerDependenciesMeta: { 'mcp-host': { optional: true } },
      'mcp-host': { prefix: 'notes' },
    });
    t.same(Object.keys(pkg['mcp-host'] as object), ['prefix'], 'no protocolVersions: accepts every revision');
    t.ok((pkg.dependencies as Record<string, string>)['@modelcontextprotocol/server'], 'written with SDK v2');
  });

  t.test('refuses bad options, naming them', async (t) => {
    t.throws(() => notesPlugin.create({ options: { file: 42 } as never }), {
      message: /^@mcp-host\/notes: invalid options: options\.file: .*expected string/,
    });
    t.throws(() => notesPlugin.create({ options: { fiel: 'x.json' } as never }), {
      message: /^@mcp-host\/notes: invalid options: options: Unrecognized key: "fiel"/,
    });
    t.throws(() => notesPlugin.create({ options: { now: 'yesterday' } }), { message: /options\.now/ });
  });

  t.test('catalogue', async (t) => {
    const client = await connectNotes(t, { file: path.join(dir, 'catalogue.json') });
    const { tools } = await client.listTools();
    t.same(
      tools.map((tool) => tool.name),
      ['add_note', 'list_notes', 'read_note', 'search_notes', 'delete_note', 'export_notes'],
    );
    t.same(
      tools.filter((tool) => tool.outputSchema).map((tool) => tool.name),
      ['add_note', 'list_notes', 'read_note', 'search_notes', 'delete_note'],
      'structured output where natural',
    );
    t.equal(tools.find((tool) => tool.name === 'delete_note')?.annotations?.destructiveHint, true);
    t.same((await client.listPrompts()).prompts, [
      {
        name: 'review_note',
        title: 'Review a note',
        description: 'Ask the model to review one note: what is unclear or missing, its action items, a revision.',
        arguments: [
          { name: 'id', description: 'The id of the note to review', required: true },
          {
            name: 'focus',
            description: 'What to concentrate on, e.g. clarity, completeness, action items, accuracy, tone, brevity',
            required: false,
          },
        ],
      },
    ]);
    t.same(
      (await client.listResources()).resources.map((r) => r.uri),
      ['notes://index'],
      'no notes yet: only the index',
    );
    t.match((await client.listResourceTemplates()).resourceTemplates, [
      { name: 'note', uriTemplate: 'note://{id}', mimeType: 'text/markdown' },
    ]);
    t.match(client.getServerCapabilities(), {
      tools: {},
      prompts: {},
      resources: { listChanged: true },
      completions: {},
    });
  });

  t.test('add, list, read, search, delete; the file on disk', async (t) => {
    const file = path.join(dir, 'nested', 'crud.json');
    const client = await connectNotes(t, { file, now: FROZEN });
    let listChanged = 0;
    client.setNotificationHandler('notifications/resources/list_changed', () => {
      listChanged++;
    });

    t.match(firstText(await client.callTool({ name: 'list_notes', arguments: {} })), /^No notes yet/);

    const added = (await client.callTool({
      name: 'add_note',
      arguments: { title: 'Shopping list (June)', body: 'eggs\nmilk\nbread', tags: ['home', 'todo', 'home'] },
    })) as ToolResult;
    t.notOk(added.isError);
    t.same(added.structuredContent, {
      id: 'shopping-list-june',
      uri: 'note://shopping-list-june',
      title: 'Shopping list (June)',
      body: 'eggs\nmilk\nbread',
      tags: ['home', 'todo'],
      createdAt: FROZEN,
      updatedAt: FROZEN,
    });
    t.same(added.content, [
      {
        type: 'text',
        text: 'Added note "Shopping list (June)" with id "shopping-list-june" (note://shopping-list-june).',
      },
      {
        type: 'resource_link',
        uri: 'note://shopping-list-june',
        name: 'shopping-list-june',
        title: 'Shopping list (June)',
        mimeType: 'text/markdown',
      },
    ]);
    const again = (await client.callTool({
      name: 'add_note',
      arguments: { title: 'Shopping list (June)' },
    })) as ToolResult;
    t.equal(again.structuredContent?.id, 'shopping-list-june-2', 'a taken id gets a suffix');
    await client.callTool({
      name: 'add_note',
      arguments: { title: 'Quarterly budget', body: 'Review the March numbers with Ana.', tags: ['work'] },
    });
    await client.callTool({ name: 'add_note', arguments: { title: '★★★' } });

    const listed = (await client.callTool({ name: 'list_notes', arguments: {} })) as ToolResult;
    t.equal(listed.structuredContent?.count, 4);
    t.same(
      (listed.structuredContent?.notes as { id: string }[]).map((n) => n.id),
      ['shopping-list-june', 'shopping-list-june-2', 'quarterly-budget', 'note'],
      'oldest first; a title with nothing usable gives "note"',
    );
    t.equal(
      firstText(listed),
      [
        '- shopping-list-june: Shopping list (June) [home, todo]',
        '- shopping-list-june-2: Shopping list (June)',
        '- quarterly-budget: Quarterly budget [work]',
        '- note: ★★★',
      ].join('\n'),
    );
    const work = (await client.callTool({ name: 'list_notes', arguments: { tag: 'WORK' } })) as ToolResult;
    t.same(work.structuredContent, {
      count: 1,
      notes: [
        {
          id: 'quarterly-budget',
          uri: 'note://quarterly-budget',
          title: 'Quarterly budget',
          tags: ['work'],
          updatedAt: FROZEN,
        },
      ],
    });

    const read = (await client.callTool({ name: 'read_note', arguments: { id: 'shopping-list-june' } })) as ToolResult;
    t.equal(
      firstText(read),
      `# Shopping list (June)\n\nTags: home, todo\nCreated: ${FROZEN} · Updated: ${FROZEN}\n\neggs\nmilk\nbread\n`,
    );
    t.equal(read.structuredContent?.body, 'eggs\nmilk\nbread');

    const search = (await client.callTool({
      name: 'search_notes',
      arguments: { query: 'MARCH review' },
    })) as ToolResult;
    t.same(search.structuredContent, {
      query: 'MARCH review',
      count: 1,
      matches: [
        {
          id: 'quarterly-budget',
          uri: 'note://quarterly-budget',
          title: 'Quarterly budget',
          snippet: 'Review the March numbers with Ana.',
        },
      ],
    });
    const byTitle = (await client.callTool({ name: 'search_notes', arguments: { query: 'list' } })) as ToolResult;
    t.equal(byTitle.structuredContent?.count, 2);
    const byTag = (await client.callTool({
      name: 'search_notes',
      arguments: { query: 'milk', tag: 'work' },
    })) as ToolResult;
    t.equal(byTag.structuredContent?.count, 0);
    t.equal(firstText(byTag), 'No notes match "milk".');

    const deleted = (await client.callTool({ name: 'delete_note', arguments: { id: 'note' } })) as ToolResult;
    t.same(deleted.structuredContent, { id: 'note', title: '★★★', deleted: true });
    t.equal(firstText(deleted), 'Deleted note "★★★" (note).');

    const onDisk = JSON.parse(await readFile(file, 'utf8'));
    t.equal(onDisk.version, 1);
    t.same(
      onDisk.notes.map((n: { id: string }) => n.id),
      ['shopping-list-june', 'shopping-list-june-2', 'quarterly-budget'],
    );
    t.same(await readdir(path.dirname(file)), ['crud.json'], 'no temporary files left beside it');

    t.equal(listChanged, 5, 'resources/list_changed after every add and delete');
  });

  t.test('mistakes are isError results the model can act on', async (t) => {
    const file = path.join(dir, 'errors.json');
    const client = await connectNotes(t, { file });
    for (const name of ['read_note', 'delete_note']) {
      const result = (await client.callTool({ name, arguments: { id: 'nope' } })) as ToolResult;
      t.equal(result.isError, true, name);
      t.equal(firstText(result), 'No note with id "nope". Call list_notes to see the ids.', name);
    }
    const empty = (await client.callTool({ name: 'add_note', arguments: { title: '   ' } })) as ToolResult;
    t.equal(empty.isError, true, 'a blank title is refused by the input schema');

    await writeFile(file, '{"notes": oops');
    const damaged = (await client.callTool({ name: 'list_notes', arguments: {} })) as ToolResult;
    t.equal(damaged.isError, true);
    t.match(firstText(damaged), `The notes file ${file} is not valid JSON`);
    const refused = (await client.callTool({ name: 'add_note', arguments: { title: 'x' } })) as ToolResult;
    t.equal(refused.isError, true);
    t.equal(await readFile(file, 'utf8'), '{"notes": oops', 'a damaged file is never overwritten');
    await writeFile(file, '[]');
    t.match(firstText(await client.callTool({ name: 'list_notes', arguments: {} })), 'is not a notes file');
  });

  t.test('concurrent adds lose nothing; a second instance sees them', async (t) => {
    const file = path.join(dir, 'shared.json');
    const client = await connectNotes(t, { file });
    await Promise.all(
      ['one', 'two', 'three', 'four', 'five'].map((title) =>
        client.callTool({ name: 'add_note', arguments: { title } }),
      ),
    );
    const other = await connectNotes(t, { file });
    const listed = (await other.callTool({ name: 'list_notes', arguments: {} })) as ToolResult;
    t.same(((listed.structuredContent?.notes as { id: string }[]) ?? []).map((n) => n.id).sort(), [
      'five',
      'four',
      'one',
      'three',
      'two',
    ]);
    const fresh = (await client.callTool({ name: 'add_note', arguments: { title: 'now' } })) as ToolResult;
    t.match(
      fresh.structuredContent?.createdAt,
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/,
      'real clock by default',
    );
  });

  t.test('resources, template, completion and the review prompt', async (t) => {
    const client = await connectNotes(t, { file: path.join(dir, 'resources.json'), now: FROZEN });
    await client.callTool({
      name: 'add_note',
      arguments: { title: 'Trip to Lisbon', body: 'Book the train.\nPack light.', tags: ['travel'] },
    });
    await client.callTool({ name: 'add_note', arguments: { title: 'Tax return', body: 'Due in May.' } });
    await client.callTool({ name: 'add_note', arguments: { title: 'Team offsite', body: '' } });

    t.same((await client.listResources()).resources, [
      {
        uri: 'notes://index',
        name: 'notes-index',
        title: 'Notes index',
        description: 'Every note with its tags and note:// link, as Markdown.',
        mimeType: 'text/markdown',
      },
      {
        uri: 'note://trip-to-lisbon',
        name: 'trip-to-lisbon',
        title: 'Trip to Lisbon',
        description: 'Book the train.',
        mimeType: 'text/markdown',
      },
      {
        uri: 'note://tax-return',
        name: 'tax-return',
        title: 'Tax return',
        description: 'Due in May.',
        mimeType: 'text/markdown',
      },
      { uri: 'note://team-offsite', name: 'team-offsite', title: 'Team offsite', mimeType: 'text/markdown' },
    ]);

    t.same(await client.readResource({ uri: 'notes://index' }), {
      contents: [
        {
          uri: 'notes://index',
          mimeType: 'text/markdown',
          text:
            '# Notes\n\n- [Trip to Lisbon](note://trip-to-lisbon) — travel\n' +
            '- [Tax return](note://tax-return)\n- [Team offsite](note://team-offsite)\n',
        },
      ],
    });
    t.same(await client.readResource({ uri: 'note://trip-to-lisbon' }), {
      contents: [
        {
          uri: 'note://trip-to-lisbon',
          mimeType: 'text/markdown',
          text: `# Trip to Lisbon\n\nTags: travel\nCreated: ${FROZEN} · Updated: ${FROZEN}\n\nBook the train.\nPack light.\n`,
        },
      ],
    });
    await t.rejects(client.readResource({ uri: 'note://missing' }), {
      code: -32602,
      message: /No note with id "missing"/,
      data: { uri: 'note://missing' },
    });

    const complete = (
      ref: { type: 'ref/resource'; uri: string } | { type: 'ref/prompt'; name: string },
      name: string,
      value: string,
    ) => client.complete({ ref, argument: { name, value } }).then((r) => r.completion.values);
    const template = { type: 'ref/resource' as const, uri: 'note://{id}' };
    const prompt = { type: 'ref/prompt' as const, name: 'review_note' };
    t.same(await complete(template, 'id', 't'), ['tax-return', 'team-offsite', 'trip-to-lisbon']);
    t.same(await complete(template, 'id', 'ta'), ['tax-return']);
    t.same(await complete(template, 'id', 'lisbon'), ['trip-to-lisbon'], 'a title word finds the id');
    t.same(await complete(prompt, 'id', 'te'), ['team-offsite']);
    t.same(await complete(prompt, 'id', ''), ['tax-return', 'team-offsite', 'trip-to-lisbon']);
    t.same(await complete(prompt, 'focus', 'c'), ['clarity', 'completeness']);

    const review = await client.getPrompt({
      name: 'review_note',
      arguments: { id: 'tax-return', focus: 'action items' },
    });
    t.same(review, {
      description: 'Review of note "Tax return"',
      messages: [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: {
              uri: 'note://tax-return',
              mimeType: 'text/markdown',
              text: `# Tax return\n\nCreated: ${FROZEN} · Updated: ${FROZEN}\n\nDue in May.\n`,
            },
          },
        },
        {
          role: 'user',
          content: {
            type: 'text',
            text:
              'Review the note "Tax return" above, concentrating on action items. Say what is unclear, missing or ' +
              'out of date, list the action items it implies, and propose a revised version.',
          },
        },
      ],
    });
    await t.rejects(client.getPrompt({ name: 'review_note', arguments: { id: 'nope' } }), {
      code: -32602,
      message: /No note with id "nope"\. Complete the id argument or call list_notes/,
    });
  });

  t.test('export_notes reports progress and honours cancellation', async (t) => {
    const file = path.join(dir, 'export.json');
    const client = await connectNotes(t, { file, now: FROZEN, exportDelayMs: 1 });
    t.equal(firstText(await client.callTool({ name: 'export_notes', arguments: {} })), 'No notes to export.');
    for (const title of ['Alpha', 'Beta', 'Gamma']) {
      await client.callTool({ name: 'add_note', arguments: { title, body: `${title} body`, tags: ['greek'] } });
    }
    const progress: unknown[] = [];
    const markdown = await client.callTool(
      { name: 'export_notes', arguments: {} },
      { onprogress: (p) => void progress.push(p) },
    );
    t.same(progress, [
      { progress: 1, total: 3, message: 'Exported "Alpha"' },
      { progress: 2, total: 3, message: 'Exported "Beta"' },
      { progress: 3, total: 3, message: 'Exported "Gamma"' },
    ]);
    const text = firstText(markdown);
    t.match(text, /^# Alpha\n/);
    t.equal(text.split('\n---\n\n').length, 3);

    const json = await client.callTool({ name: 'export_notes', arguments: { format: 'json', tag: 'greek' } });
    t.same(
      JSON.parse(firstText(json)).notes.map((n: { uri: string }) => n.uri),
      ['note://alpha', 'note://beta', 'note://gamma'],
    );
    t.equal(
      firstText(await client.callTool({ name: 'export_notes', arguments: { tag: 'none' } })),
      'No notes tagged "none".',
    );

    // Cancelled after the first note: the call is abandoned and no further progress arrives.
    const sent: unknown[] = [];
    const slow = await connectNotes(t, { file, exportDelayMs: 150 }, sent);
    const controller = new AbortController();
    const seen: unknown[] = [];
    let mark = 0;
    const call = slow.callTool(
      { name: 'export_notes', arguments: {} },
      {
        signal: controller.signal,
        onprogress: (p) => {
          seen.push(p);
          mark = sent.length;
          controller.abort('enough');
        },
      },
    );
    await t.rejects(call, { message: /(^|: )enough$/ }, 'the call fails with the reason it was cancelled for');
    const token = lastProgressToken(sent.slice(0, mark));
    // The marker: a second export, whose first note waits out the same delay
    // after the cancel, so anything the first one still had coming is sent before it.
    await slow.callTool({ name: 'export_notes', arguments: {} }, { onprogress: () => {} });
    t.equal(seen.length, 1);
    t.same(sentAbout(sent.slice(mark), token), [], 'the server stopped at the first note, and sent no result');
  });
});

// ---------------------------------------------------------------------------
// clock (SDK v1)

async function connectClock(t: Teardown, options: Record<string, unknown>, sent: unknown[] = []) {
  const server = clockPlugin.create({ options });
  const client = new V1Client({ name: 'plugins-test', version: '1.0.0' });
  const [clientSide, serverSide] = V1InMemoryTransport.createLinkedPair();
  spyOnSend(serverSide, sent);
  await server.connect(serverSide);
  await client.connect(clientSide);
  t.teardown(async () => {
    await client.close();
    await server.close();
  });
  return client;
}

t.test('clock', async (t) => {
  t.test('package.json is a plugin manifest', async (t) => {
    const pkg = await manifestOf('clock');
    t.match(pkg, {
      name: '@mcp-host/clock',
      version: '1.0.0',
      private: true,
      type: 'module',
      exports: './index.js',
      main: './index.js',
      peerDependencies: { 'mcp-host': '^1.0.0' },
      peerDependenciesMeta: { 'mcp-host': { optional: true } },
      'mcp-host': { prefix: 'clock' },
    });
    t.same(Object.keys(pkg['mcp-host'] as object), ['prefix']);
    t.ok((pkg.dependencies as Record<string, string>)['@modelcontextprotocol/sdk'], 'written with SDK v1');
  });

  t.test('refuses bad options, naming them', async (t) => {
    t.throws(() => clockPlugin.create({ options: { timeZone: 'Mars/Olympus' } }), {
      message: /^@mcp-host\/clock: invalid options: options\.timeZone: Unknown time zone "Mars\/Olympus"/,
    });
    t.throws(() => clockPlugin.create({ options: { now: '2025-13-45' } }), { message: /options\.now/ });
    t.throws(() => clockPlugin.create({ options: { locale: 'not a locale!' } }), { message: /options\.locale/ });
    t.throws(() => clockPlugin.create({ options: { zone: 'UTC' } as never }), { message: /Unrecognized key: "zone"/ });
  });

  t.test('catalogue', async (t) => {
    const client = await connectClock(t, { now: FROZEN });
    const { tools } = await client.listTools();
    t.same(
      tools.map((tool) => tool.name),
      ['now', 'convert_time', 'list_time_zones', 'countdown'],
    );
    t.same(
      tools.filter((tool) => tool.outputSchema).map((tool) => tool.name),
      ['now', 'convert_time', 'list_time_zones'],
    );
    t.match((await client.listPrompts()).prompts, [
      {
        name: 'plan_meeting',
        arguments: [
          { name: 'zones', required: true },
          { name: 'date', required: false },
          { name: 'hours', required: false },
        ],
      },
    ]);
    t.match((await client.listResources()).resources, [{ uri: 'clock://zones', mimeType: 'text/plain' }]);
    t.match((await client.listResourceTemplates()).resourceTemplates, [
      { name: 'time-in-zone', uriTemplate: 'clock://time/{+zone}', mimeType: 'application/json' },
    ]);
    t.match(client.getServerCapabilities(), { tools: {}, prompts: {}, resources: {}, completions: {} });
  });

  t.test('now, frozen', async (t) => {
    const client = await connectClock(t, { now: FROZEN });
    const paris = (await client.callTool({ name: 'now', arguments: { timeZone: 'europe/paris' } })) as ToolResult;
    t.same(paris.structuredContent, {
      timeZone: 'Europe/Paris',
      iso: '2025-06-02T14:00:00+02:00',
      formatted: PARIS_READABLE,
      utcOffset: '+02:00',
      weekday: 'Monday',
      utc: FROZEN,
      epochMs: Date.parse(FROZEN),
    });
    t.equal(firstText(paris), `2025-06-02T14:00:00+02:00 in Europe/Paris (${PARIS_READABLE}).`);

    const utc = (await client.callTool({ name: 'now', arguments: {} })) as ToolResult;
    t.match(utc.structuredContent, { timeZone: 'UTC', iso: '2025-06-02T12:00:00+00:00', utcOffset: '+00:00' });
    const french = (await client.callTool({
      name: 'now',
      arguments: { timeZone: 'Asia/Kolkata', locale: 'fr-FR' },
    })) as ToolResult;
    t.match(french.structuredContent, {
      timeZone: 'Asia/Kolkata',
      iso: '2025-06-02T17:30:00+05:30',
      formatted: 'lundi 2 juin 2025 à 17:30:00 UTC+5:30',
    });
    const legacy = (await client.callTool({ name: 'now', arguments: { timeZone: 'Asia/Calcutta' } })) as ToolResult;
    t.equal(legacy.structuredContent?.timeZone, 'Asia/Kolkata', 'an old name is shown by its current one');

    const unknown = (await client.callTool({ name: 'now', arguments: { timeZone: 'Paris' } })) as ToolResult;
    t.equal(unknown.isError, true);
    t.equal(
      firstText(unknown),
      'Unknown time zone "Paris". Use an IANA name such as Europe/Paris or America/New_York ' +
        '(did you mean Europe/Paris?); list_time_zones lists them all.',
    );
    const badLocale = (await client.callTool({ name: 'now', arguments: { locale: '!!' } })) as ToolResult;
    t.equal(badLocale.isError, true);

    const tokyo = await connectClock(t, { now: FROZEN, timeZone: 'Asia/Tokyo', locale: 'ja-JP' });
    const local = (await tokyo.callTool({ name: 'now', arguments: {} })) as ToolResult;
    t.match(local.structuredContent, {
      timeZone: 'Asia/Tokyo',
      iso: '2025-06-02T21:00:00+09:00',
      formatted: '2025年6月2日月曜日 21:00:00 JST',
    });
  });

  t.test('convert_time', async (t) => {
    const client = await connectClock(t, { now: FROZEN });
    const convert = async (args: Record<string, string>) =>
      (await client.callTool({ name: 'convert_time', arguments: args })) as ToolResult;

    const today = await convert({ time: '09:30', from: 'America/New_York', to: 'Asia/Kolkata' });
    t.equal(
      firstText(today),
      '2025-06-02 09:30 (Monday) in America/New_York is 2025-06-02 19:00 (Monday) in Asia/Kolkata; ' +
        'Asia/Kolkata is 9 h 30 min ahead of America/New_York.',
    );
    t.same(today.structuredContent, {
      utc: '2025-06-02T13:30:00.000Z',
      from: {
        timeZone: 'America/New_York',
        iso: '2025-06-02T09:30:00-04:00',
        formatted: 'Monday, June 2, 2025 at 9:30:00 AM EDT',
        utcOffset: '-04:00',
        weekday: 'Monday',
      },
      to: {
        timeZone: 'Asia/Kolkata',
        iso: '2025-06-02T19:00:00+05:30',
        formatted: 'Monday, June 2, 2025 at 7:00:00 PM GMT+5:30',
        utcOffset: '+05:30',
        weekday: 'Monday',
      },
      differenceMinutes: 570,
    });

    const instant = await convert({ time: '2025-12-31T23:30:00Z', to: 'Pacific/Auckland' });
    t.equal(
      firstText(instant),
      '2025-12-31 23:30 (Wednesday) in UTC is 2026-01-01 12:30 (Thursday) in Pacific/Auckland; ' +
        'Pacific/Auckland is 13 h ahead of UTC.',
      'an exact instant; from defaults to the configured zone',
    );
    const behind = await convert({ time: '2025-01-15 08:00', from: 'Europe/Paris', to: 'America/Los_Angeles' });
    t.match(
      firstText(behind),
      /is 2025-01-14 23:00 \(Tuesday\) in America\/Los_Angeles; .* 9 h behind Europe\/Paris\.$/,
    );
    const same = await convert({ time: '12:00', from: 'Europe/London', to: 'Europe/Dublin' });
    t.match(firstText(same), /; both are at UTC\+01:00\.$/);

    const gap = await convert({ time: '2025-03-30T02:30', from: 'Europe/Paris', to: 'UTC' });
    t.equal(gap.isError, true);
    t.equal(
      firstText(gap),
      '2025-03-30 02:30 does not exist in Europe/Paris: the clocks skip it when daylight saving time starts.',
    );
    const repeated = await convert({ time: '2025-10-26T02:30', from: 'Europe/Paris', to: 'UTC' });
    t.equal(repeated.structuredContent?.utc, '2025-10-26T00:30:00.000Z', 'a repeated hour reads as the first one');

    const badTime = await convert({ time: 'half past nine', to: 'UTC' });
    t.equal(badTime.isError, true);
    t.match(firstText(badTime), /^Cannot read the time "half past nine"\. Use "14:30"/);
    t.equal((await convert({ time: '2025-02-30T10:00', to: 'UTC' })).isError, true, 'February 30th');
    t.equal((await convert({ time: '25:00', to: 'UTC' })).isError, true);
    const badZone = await convert({ time: '10:00', from: 'Europe/Paris', to: 'Tokio' });
    t.equal(badZone.isError, true);
    t.match(firstText(badZone), /^to: Unknown time zone "Tokio"/);
  });

  t.test('list_time_zones', async (t) => {
    const client = await connectClock(t, { now: FROZEN });
    const all = (await client.callTool({ name: 'list_time_zones', arguments: {} })) as ToolResult;
    const zones = all.structuredContent?.timeZones as { timeZone: string; utcOffset: string }[];
    t.ok(zones.length > 300, `${zones.length} zones`);
    t.equal(all.structuredContent?.count, zones.length);
    t.same(
      zones.find((z) => z.timeZone === 'UTC'),
      { timeZone: 'UTC', utcOffset: '+00:00' },
      'UTC is listed',
    );
    t.same(
      zones.map((z) => z.timeZone),
      [...zones.map((z) => z.timeZone)].sort(),
      'sorted',
    );
    const kolkata = (await client.callTool({ name: 'list_time_zones', arguments: { filter: 'kolk' } })) as ToolResult;
    t.same(kolkata.structuredContent, { count: 1, timeZones: [{ timeZone: 'Asia/Kolkata', utcOffset: '+05:30' }] });
    t.equal(firstText(kolkata), 'Asia/Kolkata (UTC+05:30)');
    const ny = (await client.callTool({ name: 'list_time_zones', arguments: { filter: 'new york' } })) as ToolResult;
    t.match(ny.structuredContent, { timeZones: [{ timeZone: 'America/New_York', utcOffset: '-04:00' }] });
    const none = (await client.callTool({ name: 'list_time_zones', arguments: { filter: 'atlantis' } })) as ToolResult;
    t.equal(firstText(none), 'No time zone name contains "atlantis".');
  });

  t.test('countdown reports progress and honours cancellation', async (t) => {
    const client = await connectClock(t, { now: FROZEN, tickMs: 5 });
    const progress: V1Progress[] = [];
    const done = await client.callTool({ name: 'countdown', arguments: { seconds: 3, label: 'tea' } }, undefined, {
      onprogress: (p) => void progress.push(p),
    });
    t.same(progress, [
      { progress: 1, total: 3, message: '2 s left' },
      { progress: 2, total: 3, message: '1 s left' },
      { progress: 3, total: 3, message: '0 s left' },
    ]);
    t.equal(firstText(done as ToolResult), 'Countdown "tea" finished after 3 s.');
    const quiet = await client.callTool({ name: 'countdown', arguments: { seconds: 2 } });
    t.equal(firstText(quiet as ToolResult), 'Countdown of 2 s finished after 2 s.', 'no progress token: no progress');
    const tooLong = (await client.callTool({ name: 'countdown', arguments: { seconds: 7200 } })) as ToolResult;
    t.equal(tooLong.isError, true);

    const sent: unknown[] = [];
    const slow = await connectClock(t, { tickMs: 100 }, sent);
    const controller = new AbortController();
    const seen: V1Progress[] = [];
    let mark = 0;
    const call = slow.callTool({ name: 'countdown', arguments: { seconds: 60 } }, undefined, {
      signal: controller.signal,
      onprogress: (p) => {
        seen.push(p);
        if (p.progress === 2) {
          mark = sent.length;
          controller.abort('enough');
        }
      },
    });
    await t.rejects(call, { message: /(^|: )enough$/ }, 'the call fails with the reason it was cancelled for');
    const token = lastProgressToken(sent.slice(0, mark));
    // The marker: a second countdown, whose first tick waits out the same
    // interval after the cancel, so a tick the first one still had coming is sent before it.
    await slow.callTool({ name: 'countdown', arguments: { seconds: 1 } }, undefined, { onprogress: () => {} });
    t.equal(seen.length, 2);
    t.same(sentAbout(sent.slice(mark), token), [], 'the server stopped counting when cancelled, and sent no result');
  });

  t.test('plan_meeting and its completions', async (t) => {
    const client = await connectClock(t, { now: FROZEN });
    const plan = async (args: Record<string, string>) => {
      const result = await client.getPrompt({ name: 'plan_meeting', arguments: args });
      t.equal(result.messages.length, 1);
      t.equal(result.messages[0].role, 'user');
      return { description: result.description, text: (result.messages[0].content as { text: string }).text };
    };

    const overlap = await plan({ zones: 'Europe/London, America/New_York', date: '2025-06-03', hours: '8-18' });
    t.equal(overlap.description, 'Meeting on 2025-06-03 across 2 time zones');
    t.equal(
      overlap.text,
      [
        'Help me schedule a meeting on Tuesday 2025-06-03 (the date in Europe/London) for participants in ' +
          'Europe/London, America/New_York.',
        '',
        'Working hours are 08:00–18:00 local time, Monday to Friday. When each participant is working, in ' +
          'Europe/London time:',
        '- Europe/London (UTC+01:00): 08:00–18:00',
        '- America/New_York (UTC-04:00): 13:00–23:00',
        '',
        'Times that suit everyone (within working hours in every zone):',
        '- 13:00–18:00 Tuesday Europe/London = 08:00–13:00 Tuesday America/New_York',
        '',
        'Propose two or three meeting times. Give each in every participant’s local time, and if no time suits ' +
          'everyone, say who would meet outside their working hours and by how much.',
      ].join('\n'),
    );

    const apart = await plan({ zones: 'Europe/Paris, America/New_York, Asia/Tokyo' });
    t.match(apart.text, /^Help me schedule a meeting on Monday 2025-06-02 \(the date in Europe\/Paris\)/, 'today');
    t.match(apart.text, '- America/New_York (UTC-04:00): 15:00–23:00\n- Asia/Tokyo (UTC+09:00): 02:00–10:00\n');
    t.match(apart.text, '\nNo time that day is within working hours in every zone.\n');

    const weekend = await plan({ zones: 'America/Los_Angeles, Asia/Tokyo', date: '2025-06-06' });
    t.match(weekend.text, '- Asia/Tokyo (UTC+09:00): 00:00–01:00\n', 'Friday ends in Tokyo an hour into Friday in LA');
    t.match(weekend.text, '- America/Los_Angeles (UTC-07:00): 09:00–17:00\n');
    const saturday = await plan({ zones: 'UTC', date: '2025-06-07' });
    t.match(saturday.text, '- UTC (UTC+00:00): not at all that day');
    t.equal((await plan({ zones: 'Asia/Kathmandu' })).description, 'Meeting on 2025-06-02 across 1 time zone');

    await t.rejects(client.getPrompt({ name: 'plan_meeting', arguments: { zones: 'Europe/Paris, Narnia' } }), {
      code: -32602,
      message: /zones: Unknown time zone "Narnia"/,
    });
    await t.rejects(client.getPrompt({ name: 'plan_meeting', arguments: { zones: 'UTC', date: '2025-02-30' } }), {
      message: /date: "2025-02-30" is not a date/,
    });
    await t.rejects(client.getPrompt({ name: 'plan_meeting', arguments: { zones: 'UTC', hours: '17-9' } }), {
      message: /hours: cannot read "17-9"/,
    });

    const complete = (name: string, value: string, context?: Record<string, string>) =>
      client
        .complete({
          ref: { type: 'ref/prompt', name: 'plan_meeting' },
          argument: { name, value },
          ...(context && { context: { arguments: context } }),
        })
        .then((r) => r.completion.values);
    t.same(await complete('zones', 'europe/pa'), ['Europe/Paris']);
    t.same(
      await complete('zones', 'Europe/Paris, tok'),
      ['Europe/Paris, Asia/Tokyo', 'Europe/Paris, Antarctica/Vostok', 'Europe/Paris, Asia/Vladivostok'],
      'the last entry of the list is completed',
    );
    t.same(await complete('date', '2025-06-0'), [
      '2025-06-02',
      '2025-06-03',
      '2025-06-04',
      '2025-06-05',
      '2025-06-06',
      '2025-06-07',
      '2025-06-08',
      '2025-06-09',
    ]);
    t.same(
      (await complete('date', '', { zones: 'Pacific/Kiritimati' }))[0],
      '2025-06-03',
      'today in the first zone given',
    );
  });

  t.test('resources and the template', async (t) => {
    const client = await connectClock(t, { now: FROZEN });
    const zones = await client.readResource({ uri: 'clock://zones' });
    const text = (zones.contents[0] as { text: string }).text;
    t.match(text, /^Africa\/Abidjan\tUTC\+00:00\n/);
    t.match(text, '\nEurope/Paris\tUTC+02:00\n');
    t.match(text, '\nAsia/Kathmandu\tUTC+05:45\n');

    const buenosAires = await client.readResource({ uri: 'clock://time/America/Argentina/Buenos_Aires' });
    t.same(buenosAires.contents[0].mimeType, 'application/json');
    t.same(JSON.parse((buenosAires.contents[0] as { text: string }).text), {
      timeZone: 'America/Argentina/Buenos_Aires',
      iso: '2025-06-02T09:00:00-03:00',
      formatted: 'Monday, June 2, 2025 at 9:00:00 AM GMT-3',
      utcOffset: '-03:00',
      weekday: 'Monday',
      utc: FROZEN,
      epochMs: Date.parse(FROZEN),
    });
    await t.rejects(client.readResource({ uri: 'clock://time/Mars/Base' }), {
      code: -32602,
      message: /Resource clock:\/\/time\/Mars\/Base not found: Unknown time zone "Mars\/Base"/,
      data: { uri: 'clock://time/Mars/Base' },
    });
    const completion = await client.complete({
      ref: { type: 'ref/resource', uri: 'clock://time/{+zone}' },
      argument: { name: 'zone', value: 'paris' },
    });
    t.same(completion.completion.values, ['Europe/Paris']);

    let listChanged = 0;
    client.setNotificationHandler(V1ResourceListChanged, () => {
      listChanged++;
    });
    await client.callTool({ name: 'now', arguments: {} });
    await client.ping(); // a round trip after the call: what the call sent has arrived
    t.equal(listChanged, 0, 'the clock never changes its lists');
  });
});
