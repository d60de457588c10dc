// The config's `servers` (docs/virtual-servers.md): every refusal names the
// key and the fix (an unknown member kind, a name that is not a URL path
// segment, one that would be /mcp itself, bad globs and settings, a bad
// per-server discovery); each server's discovery is resolved over the
// host's; `mcp-host check` shows each server's catalogue and warns of a
// member glob that matches nothing, as it does of curation's.
import { join } from 'node:path';
import t from 'tap';
import { validateConfig } from '../host/config/validate.js';
import { configProblems } from './helpers/config-problems.js';
import { runCli } from './helpers/host.js';
import { makeWorkspace } from './helpers/packages.js';

const WHERE = 'mcp-host.config.js: ';

t.test('servers: each refusal names the key and the fix', (t) => {
  t.same(
    configProblems({
      plugins: [],
      servers: {
        dev: { include: ['github.*'] },
        ops: { tool: ['x.*'], name: '', instructions: 3 },
        '.': { tools: ['a'] },
        '..': {},
        '': {},
        'dev/eu': {},
        café: {},
        web: { resources: ['note://[x'], prompts: 'notes.*', resourceTemplates: [''] },
        search: { discovery: { mode: 'sometimes' } },
        nothing: 'all',
      },
    }),
    [
      `${WHERE}servers.dev.include: unknown member kind "include": a server names its members per kind, and include would not say which. Fix: write the globs under tools, prompts, resources, resourceTemplates or skills, e.g. tools: ["github.*"].`,
      `${WHERE}servers.ops.tool: unknown member kind or setting "tool": members are tools, prompts, resources, resourceTemplates and skills; settings name, instructions and discovery. Fix: did you mean "tools"?`,
      `${WHERE}servers.ops.name: expected a non-empty string, got "". Fix: e.g. name: "dev-tools" (the serverInfo name its clients see).`,
      `${WHERE}servers.ops.instructions: expected a string, got 3. Fix: e.g. instructions: "Tools for the dev team."`,
      `${WHERE}servers["."]: the server would be served at /mcp/., which a URL resolves to /mcp itself, the whole catalogue's path. Fix: give it a name of its own (e.g. dev), or name it default to change what /mcp serves.`,
      `${WHERE}servers[".."]: the server would be served at /mcp/.., which a URL resolves to /mcp's parent, the whole catalogue's path. Fix: give it a name of its own (e.g. dev), or name it default to change what /mcp serves.`,
      `${WHERE}servers[""]: the server would be served at /mcp/, which a URL resolves to /mcp itself, the whole catalogue's path. Fix: give it a name of its own (e.g. dev), or name it default to change what /mcp serves.`,
      `${WHERE}servers["dev/eu"]: "dev/eu" is not a URL path segment as it stands, and the server is served at /mcp/NAME. Fix: use letters, digits, ".", "_", "~" and "-", starting with a letter or digit (e.g. dev, support-eu).`,
      `${WHERE}servers["café"]: "café" is not a URL path segment as it stands, and the server is served at /mcp/NAME. Fix: use letters, digits, ".", "_", "~" and "-", starting with a letter or digit (e.g. dev, support-eu).`,
      `${WHERE}servers.web.prompts: expected an array of globs, got "notes.*". Fix: e.g. prompts: ['notes.*'].`,
      `${WHERE}servers.web.resources[0]: expected a glob of composed URIs, but "note://[x" is not one: Missing closing: "]" - use "\\\\]" to match literal characters. Fix: e.g. resources: ['note://**'] ('*' matches within a name, '**' across '/').`,
      `${WHERE}servers.web.resourceTemplates[0]: expected a glob of composed URIs, got "". Fix: e.g. resourceTemplates: ['note://**'] ('*' matches within a name, '**' across '/').`,
      `${WHERE}servers.nothing: expected a virtual server object, got "all". Fix: e.g. { tools: ['github.*'], instructions: 'For the dev team.' }.`,
      `${WHERE}servers.search.discovery.mode: expected "all", "search" or "auto", got "sometimes". Fix: e.g. mode: "search" (list alwaysVisible and search_tools) or "auto" (search above threshold tools).`,
    ],
  );
  t.same(configProblems({ plugins: [], servers: ['dev'] }), [
    `${WHERE}servers: expected an object of virtual servers by name, got an array. Fix: e.g. servers: { dev: { tools: ['github.*', 'ci.*'], prompts: ['github.*'] } }, or leave servers out to serve the whole catalogue at /mcp alone.`,
  ]);
  t.end();
});

t.test("a server's discovery is resolved over the host's", (t) => {
  const config = validateConfig(
    {
      plugins: [],
      discovery: { mode: 'auto', threshold: 10 },
      servers: { dev: { tools: ['a.*'], discovery: { mode: 'search' } }, ops: { tools: ['b.*'] } },
    },
    '/srv/mcp-host.config.js',
  );
  t.match(config.servers?.dev?.discovery, { mode: 'search', threshold: 10, results: 5 });
  t.match(config.servers?.ops?.discovery, { mode: 'auto', threshold: 10 });
  const alone = validateConfig(
    { plugins: [], servers: { dev: { tools: ['a.*'], discovery: { mode: 'auto' } }, ops: {} } },
    '/srv/mcp-host.config.js',
  );
  t.match(alone.servers?.dev?.discovery, { mode: 'auto', threshold: 40 }, 'over the defaults without a host section');
  t.equal(alone.servers?.ops?.discovery, undefined, 'none where neither sets one');
  t.end();
});

t.test("mcp-host check shows each server's catalogue and warns of a glob that matches nothing", async (t) => {
  const ws = makeWorkspace(t);
  const file = ws.writeConfig({
    plugins: [
      { package: '@mcp-host/clock' },
      { package: '@mcp-host/notes', options: { file: join(ws.dir, 'n.json') } },
    ],
    servers: {
      default: { tools: ['clock.now'], resources: ['clock://zones'] },
      dev: { tools: ['notes.*', 'github.*'], resourceTemplates: ['note://**', 'gh://**'] },
      empty: {},
    },
  });
  const run = await runCli(['check', '--config', file]);
  t.equal(run.code, 0, run.stderr);
  t.match(
    run.stdout,
    [
      'virtual server default  (/mcp and /mcp/default)',
      '  tools: clock.now',
      '  resources: clock://zones',
      'virtual server dev  (/mcp/dev)',
      '  tools: notes.add_note, notes.list_notes, notes.read_note, notes.search_notes, notes.delete_note, notes.export_notes',
      '  templates: note://{id}',
      'virtual server empty  (/mcp/empty)',
      '  (no members)',
      '',
    ].join('\n'),
  );
  t.match(
    run.stdout,
    'warning: mcp-host.config.js: servers.dev.tools: "github.*" matches nothing served, so the server has no member by it. Fix: fix the glob (it matches composed names, after prefixes and renames: mcp-host check lists them), or remove it.',
  );
  t.match(
    run.stdout,
    'warning: mcp-host.config.js: servers.dev.resourceTemplates: "gh://**" matches nothing served, so the server has no member by it. Fix: fix the glob (it matches composed URIs',
  );
  const bad = await runCli([
    'check',
    '--config',
    ws.writeConfig({ plugins: [], servers: { 'a b': { widgets: [] } } }, 'bad.config.js'),
  ]);
  t.equal(bad.code, 1);
  t.match(bad.stdout, 'bad.config.js: servers["a b"]: "a b" is not a URL path segment');
  t.match(bad.stdout, 'bad.config.js: servers["a b"].widgets: unknown member kind or setting "widgets"');
});
