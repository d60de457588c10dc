// The example plugins (plugins/notes, SDK v2; plugins/clock, SDK v1) mounted
// through the host as a user mounts them, over stdio with the SDK's own
// client, and the repository's own mcp-host.config.js served as `npm start`
// serves it. (test/plugins.test.ts covers each plugin's behaviour alone.)
import { join } from 'node:path';
import t from 'tap';
import { startStdioHost } from './helpers/host.js';
import { makeWorkspace, REPO_ROOT } from './helpers/packages.js';
import { firstText } from './helpers/results.js';
import { progressOnTheWire } from './helpers/wire-progress.js';

const FROZEN = '2025-06-02T12:00:00.000Z'; // a Monday

t.test('notes and clock mounted through the host', async (t) => {
  const ws = makeWorkspace(t);
  // The examples resolve from here as from any project: the repository's node_modules links them.
  const config = ws.writeConfig({
    reload: { watch: false },
    plugins: [
      { package: '@mcp-host/notes', options: { file: join(ws.dir, 'notes.json'), exportDelayMs: 0 } },
      { package: '@mcp-host/clock', options: { now: FROZEN, tickMs: 5 } },
    ],
  });
  const host = await startStdioHost(t, config, { env: { XDG_RUNTIME_DIR: join(ws.dir, 'run') } });
  ws.writeFile('run/.keep', '');
  const { client } = host;

  t.same((await client.listTools()).tools.map((tool) => tool.name).sort(), [
    'clock.convert_time',
    'clock.countdown',
    'clock.list_time_zones',
    'clock.now',
    'notes.add_note',
    'notes.delete_note',
    'notes.export_notes',
    'notes.list_notes',
    'notes.read_note',
    'notes.search_notes',
  ]);
  t.same((await client.listPrompts()).prompts.map((prompt) => prompt.name).sort(), [
    'clock.plan_meeting',
    'notes.review_note',
  ]);

  const added = await client.callTool({
    name: 'notes.add_note',
    arguments: { title: 'Groceries', body: 'Milk', tags: ['home'] },
  });
  t.equal(firstText(added), 'Added note "Groceries" with id "groceries" (note://groceries).');
  await host.until('resources/list_changed from the notes plugin', () => host.notified.resources > 0);
  const read = await client.readResource({ uri: 'note://groceries' });
  t.match((read.contents[0] as { text: string }).text, /^# Groceries\n/);
  const review = await client.getPrompt({ name: 'notes.review_note', arguments: { id: 'groceries' } });
  t.match(JSON.stringify(review.messages), /Review the note \\"Groceries\\" above/);
  const completion = await client.complete({
    ref: { type: 'ref/prompt', name: 'notes.review_note' },
    argument: { name: 'id', value: 'gro' },
  });
  t.same(completion.completion.values, ['groceries'], 'completion reaches the mount under its own name');

  const paris = await client.callTool({ name: 'clock.now', arguments: { timeZone: 'Europe/Paris' } });
  t.equal(
    firstText(paris),
    '2025-06-02T14:00:00+02:00 in Europe/Paris (Monday, June 2, 2025 at 2:00:00 PM GMT+2).',
    'the SDK v1 plugin answers through the host',
  );
  const wire = progressOnTheWire(host.transport);
  const countdown = await client.callTool(
    { name: 'clock.countdown', arguments: { seconds: 3, label: 'tea' } },
    { onprogress: () => {} },
  );
  t.equal(firstText(countdown), 'Countdown "tea" finished after 3 s.');
  t.same(wire.take(), [1, 2, 3], 'the v1 plugin’s progress reaches the client, ahead of the answer');
  const zone = await client.readResource({ uri: 'clock://time/Asia/Tokyo' });
  t.match(JSON.parse((zone.contents[0] as { text: string }).text), { iso: '2025-06-02T21:00:00+09:00' });
});

t.test('the repository’s own mcp-host.config.js, found as `npm start` finds it', async (t) => {
  // `npm start` is `mcp-host start` in the repository, no --config: the search finds mcp-host.config.js.
  const host = await startStdioHost(t, undefined, { cwd: REPO_ROOT });
  t.equal(host.client.getServerVersion()?.name, 'mcp-host-examples');
  t.equal(host.client.getInstructions(), 'Notes kept in a JSON file (notes.*) and time-zone tools (clock.*).');
  const tools = (await host.client.listTools()).tools.map((tool) => tool.name);
  t.ok(tools.includes('notes.list_notes') && tools.includes('clock.now'), `serves both examples: ${tools.join(', ')}`);
  // Only reads: the config keeps its notes in the repository's .tmp/notes.json.
  const utc = await host.client.callTool({ name: 'clock.now', arguments: {} });
  t.match(firstText(utc), / in UTC \(/);
  t.match(firstText(await host.client.callTool({ name: 'notes.list_notes', arguments: {} })), /note/i);
});
