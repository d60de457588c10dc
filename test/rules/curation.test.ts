// Curation (host/catalogue/curation.ts) in-process: what an entry's include,
// exclude, rename and describe serve, URIs judged in their normal form, and
// the warnings for a glob or name that matches nothing. test/curation.test.ts
// and test/curation-spelling.test.ts curate through a host; this file is quick
// enough for `npm run mutation`.
import t from 'tap';
import { Curation, nameMatcher } from '../../host/catalogue/curation.js';
import type { ListItem, ListKind } from '../../host/vocabulary/list-kinds.js';

t.test('nameMatcher: globs over names, dot-names too', async (t) => {
  const matches = nameMatcher(['notes.*', '.hidden']);
  t.ok(matches('notes.read'));
  t.ok(matches('.hidden'));
  t.notOk(matches('clock.now'));
  t.ok(nameMatcher(['*'])('.dot'), 'a star matches a leading dot');
});

t.test('serves: include, then exclude; an empty list is none; no curation serves everything', async (t) => {
  const none = new Curation();
  t.ok(none.serves('tools', 'anything'));
  t.ok(none.serves('resources', 'HTTP://a b'), 'without curation, even a URI no rule could judge');
  const curated = new Curation({
    tools: { include: ['notes.*', 'clock.now'], exclude: ['notes.delete'] },
    prompts: { exclude: ['secret'] },
    resources: { include: ['FILE:///public/**', 'note://**'], exclude: ['note://private/**'] },
  });
  t.ok(curated.serves('tools', 'notes.read'));
  t.ok(curated.serves('tools', 'clock.now'));
  t.notOk(curated.serves('tools', 'notes.delete'), 'excluded');
  t.notOk(curated.serves('tools', 'clock.set'), 'not included');
  t.ok(curated.serves('prompts', 'greet'), 'exclude alone serves the rest');
  t.notOk(curated.serves('prompts', 'secret'));
  t.ok(curated.serves('resources', 'file:///public/a'));
  t.ok(curated.serves('resources', 'FILE:///public/%61'), 'judged in normal form');
  t.notOk(curated.serves('resources', 'file:///public/../private/x'), 'a dot segment out of the include');
  t.notOk(curated.serves('resources', 'note://private/x'));
  t.notOk(curated.serves('resources', 'NOTE://private/%2e/x'), 'the exclude in normal form too');
  t.ok(curated.serves('resourceTemplates', 'note://{id}'), 'templates by the resources section');
  t.notOk(curated.serves('resourceTemplates', 'other://{id}'));
  t.ok(curated.serves('resources', 'note://a/x'));
  t.notOk(
    curated.serves('resources', 'note://a/\t/x'),
    'a URI URL parsing reads as another (a tab it deletes) is served by no rule',
  );
  const empty = new Curation({ tools: { include: [], exclude: [] } });
  t.ok(empty.serves('tools', 'x'), 'empty lists curate nothing');
  const excludeOnly = new Curation({ resources: { exclude: ['SECRET://**'] } });
  t.notOk(excludeOnly.serves('resources', 'secret://keys'));
  t.ok(excludeOnly.serves('resources', 'public://keys'));
  const includeTools = new Curation({ tools: { include: ['a'] } });
  t.ok(includeTools.serves('prompts', 'b'), 'a section curates only its own list');
  t.ok(includeTools.serves('resources', 'x://y'));
});

t.test('rename and describe: served names both ways', async (t) => {
  const curation = new Curation({
    tools: {
      rename: { get_weather: 'weather', old: 'new' },
      describe: { get_weather: 'The weather.' },
      exclude: ['hidden'],
    },
    prompts: { rename: { p: 'q' } },
  });
  t.equal(curation.servedName('tools', 'get_weather'), 'weather');
  t.equal(curation.servedName('tools', 'other'), 'other');
  t.equal(curation.servedName('prompts', 'p'), 'q');
  t.equal(curation.ownName('tools', 'weather'), 'get_weather');
  t.equal(curation.ownName('tools', 'get_weather'), undefined, 'a name renamed away');
  t.equal(curation.ownName('tools', 'other'), 'other');
  t.equal(curation.ownName('tools', 'hidden'), undefined, 'curated out');
  t.equal(curation.ownName('prompts', 'q'), 'p');
  t.equal(curation.description('tools', 'get_weather'), 'The weather.');
  t.equal(curation.description('tools', 'other'), undefined);
  t.ok(curation.definesNames('tools'));
  t.ok(curation.definesNames('prompts'), 'a rename alone defines names');
  t.ok(new Curation({ tools: { include: ['a'] } }).definesNames('tools'));
  t.ok(new Curation({ tools: { exclude: ['a'] } }).definesNames('tools'));
  t.notOk(new Curation({ tools: { describe: { a: 'x' } } }).definesNames('tools'), 'a description does not');
  t.notOk(curation.definesNames.call(new Curation(), 'prompts'));
});

const items = (lists: Partial<Record<ListKind, ListItem[]>>): Record<ListKind, ListItem[]> => ({
  tools: [],
  prompts: [],
  resources: [],
  resourceTemplates: [],
  skills: [],
  ...lists,
});

t.test('unmatched: each glob, rename and description that matches nothing, with where and the fix', async (t) => {
  const curation = new Curation(
    {
      tools: {
        include: ['notes.*', 'nope.*'],
        exclude: ['gone'],
        rename: { 'notes.read': 'r', typo: 'x' },
        describe: { missing: 'd' },
      },
      prompts: { include: ['greet'] },
      resources: { include: ['NOTE://**', 'none://**', 'tpl://{id}'], exclude: ['note://private/%2e/**'] },
    },
    'mcp-host.config.js: plugins[2]',
  );
  const served = items({
    tools: [{ name: 'notes.read' }, { name: 'notes.write' }],
    prompts: [],
    resources: [{ uri: 'note://private/a' }],
    resourceTemplates: [{ uriTemplate: 'tpl://{id}' }],
  });
  t.same(curation.unmatched(served), [
    {
      where: 'mcp-host.config.js: plugins[2].tools.include',
      what: 'the glob "nope.*" matches no tool name the plugin serves.',
      fix: 'correct or remove it (the plugin serves: "notes.read", "notes.write").',
    },
    {
      where: 'mcp-host.config.js: plugins[2].tools.exclude',
      what: 'the glob "gone" matches no tool name the plugin serves.',
      fix: 'correct or remove it (the plugin serves: "notes.read", "notes.write").',
    },
    {
      where: 'mcp-host.config.js: plugins[2].tools.rename',
      what: '"typo" is not a tool name the plugin serves, so this rename does nothing.',
      fix: `use one of the plugin's own names, before prefixing (it serves: "notes.read", "notes.write").`,
    },
    {
      where: 'mcp-host.config.js: plugins[2].tools.describe',
      what: '"missing" is not a tool name the plugin serves, so this describe does nothing.',
      fix: `use one of the plugin's own names, before prefixing (it serves: "notes.read", "notes.write").`,
    },
    {
      where: 'mcp-host.config.js: plugins[2].prompts.include',
      what: 'the glob "greet" matches no prompt name the plugin serves.',
      fix: 'correct or remove it (the plugin serves: none).',
    },
    {
      where: 'mcp-host.config.js: plugins[2].resources.include',
      what: 'the glob "none://**" matches no resource or template URI the plugin serves.',
      fix: 'correct or remove it (the plugin serves: "note://private/a", "tpl://{id}").',
    },
  ]);
  const many = Array.from({ length: 10 }, (_, i) => ({ name: `t${i}` }));
  t.same(new Curation({ tools: { include: ['x'] } }).unmatched(items({ tools: many })), [
    {
      where: 'plugin entry.tools.include',
      what: 'the glob "x" matches no tool name the plugin serves.',
      fix: 'correct or remove it (the plugin serves: "t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7" and 2 more).',
    },
  ]);
  t.match(
    new Curation({ tools: { include: ['x'] } }).unmatched(items({ tools: many.slice(0, 8) }))[0]?.fix,
    /"t7"\)\.$/,
    'eight are all shown',
  );
  t.same(new Curation().unmatched(served), [], 'no curation, no warning');
  t.same(new Curation({ tools: { include: ['notes.*'] } }).unmatched(served), []);
  t.same(new Curation({ resources: { include: ['tpl://**'] } }).unmatched(served), [], 'a template matches');
});

t.test('serves: an include alone, an exclude alone, and no curation for a URI no rule could judge', async (t) => {
  t.ok(
    new Curation().serves('resources', 'note://a/\t/x'),
    'no curation serves even a URI URL parsing reads as another',
  );
  t.ok(new Curation({ tools: {} }).serves('resources', 'note://a/\t/x'), 'nor does a section of another list');
  const includeOnly = new Curation({ tools: { include: ['notes.*'] }, resources: { include: ['note://**'] } });
  t.ok(includeOnly.serves('tools', 'notes.read'), 'an include without an exclude');
  t.notOk(includeOnly.serves('tools', 'clock.now'));
  t.ok(includeOnly.serves('resources', 'NOTE://a'), 'a URI the include names, in normal form');
  t.notOk(includeOnly.serves('resources', 'other://a'));
  const excludeOnly = new Curation({ tools: { exclude: ['notes.delete'] } });
  t.ok(excludeOnly.serves('tools', 'notes.read'), 'an exclude without an include');
  t.notOk(excludeOnly.serves('tools', 'notes.delete'));
  t.equal(includeOnly.ownName('tools', 'notes.read'), 'notes.read');
  t.equal(includeOnly.ownName('tools', 'clock.now'), undefined);
});

t.test('unmatched: resources judged with templates and skills, by normal form, include and exclude', async (t) => {
  const curation = new Curation({
    resources: {
      include: ['note://**', 'skill://**', 'tpl://{id}'],
      exclude: ['note://private/**', 'nothing://**'],
    },
  });
  const served = items({
    resources: [{ uri: 'NOTE://private/a' }],
    resourceTemplates: [{ uriTemplate: 'tpl://{id}' }],
    skills: [{ uri: 'skill://pdf/SKILL.md' }],
  });
  t.same(curation.unmatched(served), [
    {
      where: 'plugin entry.resources.exclude',
      what: 'the glob "nothing://**" matches no resource or template URI the plugin serves.',
      fix: 'correct or remove it (the plugin serves: "NOTE://private/a", "tpl://{id}", "skill://pdf/SKILL.md").',
    },
  ]);
});

t.test('a tool name that reads like a URI is judged as spelled, not in a URI’s normal form', async (t) => {
  const curation = new Curation({ tools: { include: ['NOTES:*'], exclude: ['NOTES:secret'] } });
  t.ok(curation.serves('tools', 'NOTES:read'), 'its include, as spelled');
  t.notOk(curation.serves('tools', 'notes:read'), 'not another spelling of it');
  t.notOk(curation.serves('tools', 'NOTES:secret'));
  t.same(
    curation.unmatched(items({ tools: [{ name: 'NOTES:read' }, { name: 'NOTES:secret' }] })),
    [],
    'and its globs match the names as spelled',
  );
});
