// Discovery's ranking on real data (docs/discovery.md): the catalogue
// recorded from npm MCP server packages and the user-phrased tasks beside
// it. The host's own index is built and asked in this process, as a
// search-mode host builds and asks it; `npm run bench` prints the figures.
import t from 'tap';
import { ToolSearch, type RankingStage, type SearchableTool } from '../host/catalogue/tool-search.js';
import {
  catalogueTasks,
  catalogueTools,
  recordedServers,
  rightToolsOf,
  servedNameOf,
} from './helpers/tool-catalogue.js';

const servers = recordedServers();
const tasks = catalogueTasks();
const everyone = () => true;
const names = (tools: { name?: string }[]) => tools.map((tool) => tool.name);

t.test('the recorded catalogue holds 1,000+ distinct real tools, and 100+ tasks each naming one of them', async (t) => {
  const distinct = new Set(servers.flatMap((server) => server.tools.map((tool) => `${server.package} ${tool.name}`)));
  t.ok(distinct.size >= 1000, `${distinct.size} distinct tools from ${servers.length} packages`);
  for (const server of servers) {
    t.match(
      server,
      { package: String, version: /^\d+\.\d+\.\d+/, command: Array },
      `${server.package} says what it is`,
    );
  }
  t.ok(tasks.length >= 100, `${tasks.length} tasks`);
  for (const task of tasks) {
    const server = servers.find((recorded) => recorded.package === task.package);
    t.ok(
      server?.tools.some((tool) => tool.name === task.tool),
      `"${task.task}" names a recorded tool (${task.package} ${task.tool})`,
    );
  }
});

t.test('the everyday task set holds 50+ requests, each naming recorded tools', async (t) => {
  const paraphrases = catalogueTasks('paraphrases');
  t.ok(paraphrases.length >= 50, `${paraphrases.length} everyday requests`);
  for (const task of paraphrases) {
    for (const tool of [task, ...(task.also ?? [])]) {
      const server = servers.find((recorded) => recorded.package === tool.package);
      t.ok(
        server?.tools.some((recorded) => recorded.name === tool.tool),
        `"${task.task}" names a recorded tool (${tool.package} ${tool.tool})`,
      );
    }
  }
});

t.test('each stage of the ranking earns its place: stemming and then WordNet each find more', async (t) => {
  const tools = catalogueTools(servers);
  const recall = async (stage: RankingStage) => {
    const index = await ToolSearch.build(tools, undefined, stage);
    let inTop5 = 0;
    for (const task of tasks) {
      const found = names(await index.search(task.task, { limit: 5, usable: everyone }));
      if (rightToolsOf(servers, task).some((name) => found.includes(name))) inTop5++;
    }
    return inTop5 / tasks.length;
  };
  const [lexical, stemmed, wordNet] = [await recall('lexical'), await recall('stemmed'), await recall('wordnet')];
  const figures = `recall@5: words as they are ${lexical.toFixed(2)}, stemmed ${stemmed.toFixed(2)}, + WordNet ${wordNet.toFixed(2)}`;
  t.ok(stemmed > lexical, figures);
  t.ok(wordNet > stemmed, figures);
  // An index of another stage is built afresh, never from a predecessor of a different stage.
  const lexicalIndex = await ToolSearch.build(tools, undefined, 'lexical');
  const servedIndex = await ToolSearch.build(tools, lexicalIndex);
  t.same(
    names(await servedIndex.search('repositories', { limit: 5, usable: everyone })),
    names(await (await ToolSearch.build(tools)).search('repositories', { limit: 5, usable: everyone })),
  );
});

t.test("WordNet widens a tool's own words: a kind of weather finds the weather tools", async (t) => {
  const index = await ToolSearch.build(catalogueTools(servers));
  const found = names(await index.search('will it snow', { limit: 5, usable: everyone }));
  const weather = found.filter((name) => /forecast|weather/.test(name!));
  t.ok(weather.length >= 3, `"will it snow": ${found.join(', ')}`);
  const stemmed = await ToolSearch.build(catalogueTools(servers), undefined, 'stemmed');
  t.notOk(
    names(await stemmed.search('will it snow', { limit: 5, usable: everyone })).some((name) => /forecast/.test(name!)),
    'without WordNet, no forecast tool says "snow"',
  );
});

t.test('recall@5 over the tasks is at least 0.9', async (t) => {
  const index = await ToolSearch.build(catalogueTools(servers));
  let inTop5 = 0;
  for (const task of tasks) {
    const found = names(await index.search(task.task, { limit: 5, usable: everyone }));
    if (found.includes(servedNameOf(servers, task))) inTop5++;
  }
  t.ok(inTop5 / tasks.length >= 0.9, `recall@5 ${(inTop5 / tasks.length).toFixed(2)}`);
});

/** A small catalogue of three mounts, to change one and compare. */
function tools(): SearchableTool[] {
  const tool = (mount: string, name: string, description: string, properties = {}): SearchableTool => {
    const item = { name, description, inputSchema: { type: 'object', properties } };
    return { name: `${mount}.${name}`, item, served: { ...item, name: `${mount}.${name}` }, mount };
  };
  return [
    tool('notes', 'add_note', 'Write a new note', { text: { description: 'the body of the note' } }),
    tool('notes', 'find_notes', 'Search notes by words'),
    tool('clock', 'now', 'The current time in a time zone', { zone: { description: 'IANA zone name' } }),
    tool('mail', 'send', 'Send an email message to someone'),
    tool('mail', 'inbox', 'List the unread emails'),
  ];
}

t.test(
  'an index built from its predecessor answers as one built afresh, and the predecessor still answers',
  async (t) => {
    const before = tools();
    const first = await ToolSearch.build(before);
    // A reload that changed one mount: a tool gone, a description changed, a tool added; the others the same objects.
    const changed = before.filter((tool) => tool.name !== 'mail.inbox');
    const send = changed.findIndex((tool) => tool.name === 'mail.send');
    changed[send] = { ...changed[send]!, item: { ...changed[send]!.item, description: 'Post a letter' } };
    changed[send]!.served = { ...changed[send]!.item, name: 'mail.send' };
    const archive = { name: 'mail', description: 'Archive old email threads' };
    changed.push({ name: 'mail.archive', item: archive, served: { ...archive, name: 'mail.archive' }, mount: 'mail' });

    const next = await ToolSearch.build(changed, first);
    const fresh = await ToolSearch.build(changed);
    t.equal(next.size, 5);
    for (const query of ['unread email', 'post a letter', 'archive threads', 'time zone', 'note body']) {
      const expected = names(await fresh.search(query, { limit: 5, usable: everyone }));
      t.same(names(await next.search(query, { limit: 5, usable: everyone })), expected, `"${query}" as afresh`);
    }
    t.same(names(await next.search('unread', { limit: 5, usable: everyone })), [], 'a removed tool is gone');
    t.same(
      names(await first.search('unread email', { limit: 5, usable: everyone })),
      ['mail.inbox', 'mail.send'],
      'an index whose engine was handed on still answers for its own catalogue',
    );
  },
);

t.test('stemming, typos, a named mount, the mount facet and the usable filter', async (t) => {
  const index = await ToolSearch.build(tools());
  const search = async (query: string, options: { mount?: string; usable?: (name: string) => boolean } = {}) =>
    names(await index.search(query, { limit: 3, usable: options.usable ?? everyone, ...options }));
  t.equal((await search('writing notes'))[0], 'notes.add_note', 'stems: "writing" finds "Write"');
  t.equal((await search('emial mesage'))[0], 'mail.send', 'one typo a word');
  t.equal((await search('the time'))[0], 'clock.now', 'words that say nothing are dropped');
  t.equal((await search('search notes'))[0], 'notes.find_notes');
  t.equal((await search('remove a note'))[0], 'notes.add_note', 'a synonym still finds the only note tool of its kind');
  t.same(await search('message', { mount: 'notes' }), [], 'the mount facet keeps to one mount');
  t.same(await search('email', { usable: (name) => name !== 'mail.send' }), ['mail.inbox'], 'only usable tools');
  t.match((await search('search mail'))[0], /^mail\./, 'naming a mount ranks its tools above a better word match');
});
