// Skills (SEP-2640, io.modelcontextprotocol/skills) through the host: two
// plugins serve a skill of one name (`skill://pdf-processing/SKILL.md`, the
// SDK's own skills catalog); mounted under prefixes `a` and `b`, skills/list
// composes them as `skill://a/pdf-processing/SKILL.md` and
// `skill://b/pdf-processing/…` (the skill name stays the last segment), each
// entry's files under the same prefix, and the SDK's own skills client reads
// and verifies each file (digest, size, frontmatter) from the mount that owns
// it. Paginated by the host's pageSize, curated by the plugin's own URI,
// access-ruled by the served one. Over stdio (2025-11-25) and HTTP (2026-07-28).
import t, { type Test } from 'tap';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, runCli, startHttpHost, startStdioHost } from './helpers/host.js';
import { makeWorkspace, type Workspace } from './helpers/packages.js';

const skillsPlugin = (label: string, skills: string[]) => `
import { McpServer } from '@modelcontextprotocol/server';
import { SkillsExtension, memorySkillFiles } from '@modelcontextprotocol/server/ext/skills';
const files = {};
for (const name of ${JSON.stringify(skills)}) {
  files[name + '/SKILL.md'] = '---\\nname: ' + name + '\\ndescription: ' + name + ' as ${label} does it\\n---\\nThe ${label} way.\\n';
  files[name + '/references/FORMS.md'] = 'Forms of ${label}.\\n';
}
export default {
  async create() {
    const server = new McpServer({ name: 'skills-${label}', version: '1.0.0' });
    (await SkillsExtension.load(memorySkillFiles(files), { onWarning: () => {} })).attach(server);
    return server;
  },
};
`;

function writeSkills(ws: Workspace, plugins: Record<string, string[]>): void {
  for (const [label, skills] of Object.entries(plugins)) {
    ws.writePackage(
      `node_modules/@test/skills-${label}`,
      { name: `@test/skills-${label}`, version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': {} },
      { 'index.js': skillsPlugin(label, skills) },
    );
  }
}

/** A result schema for `client.request` that takes the result as it came: the test judges it itself. */
const AS_SENT = { '~standard': { version: 1, vendor: 'test', validate: (value: unknown) => ({ value }) } } as const;

type Page = { skills: { uri: string }[]; nextCursor?: string; ttlMs?: number; cacheScope?: string };

/** The URIs of skills/list, asked page by page (SkillsClient.list follows every page itself). */
async function listPages(client: Client, pageSeen?: (page: Page) => void): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = (await client.request(
      { method: 'skills/list', params: cursor === undefined ? {} : { cursor } },
      AS_SENT as never,
    )) as Page;
    pageSeen?.(page);
    pages.push(page.skills.map((skill) => skill.uri));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return pages;
}

async function judgeSkills(t: Test, client: Client): Promise<void> {
  const skills = new SkillsClient(client);
  t.ok(skills.supported, 'the host offers the skills extension');
  t.ok(skills.directoryRead, 'and directory reads, which its mounts offer');
  const hints: unknown[] = [];
  t.same(
    await listPages(client, ({ ttlMs, cacheScope }) => hints.push({ ttlMs, cacheScope })),
    [['skill://a/pdf-processing/SKILL.md'], ['skill://b/pdf-processing/SKILL.md'], ['skill://b/slides/SKILL.md']],
    'one skill a page (pageSize 1)',
  );
  // At 2026-07-28 a skills/list result is cacheable, as every list is (SEP-2549): the host composes the mounts' hints.
  const modern = client.getNegotiatedProtocolVersion() === '2026-07-28';
  t.same(
    hints,
    Array(3).fill(modern ? { ttlMs: 0, cacheScope: 'private' } : { ttlMs: undefined, cacheScope: undefined }),
  );
  const { skills: entries, invalid } = await skills.list();
  t.same(invalid, [], 'every entry is valid');
  t.equal(entries.length, 3);
  t.same(
    (entries[0]!.resources as { uri: string }[]).map((file) => file.uri).sort(),
    ['skill://a/pdf-processing/SKILL.md', 'skill://a/pdf-processing/references/FORMS.md'],
    "an entry's files are under its mount's prefix",
  );

  // Each file is read from its own mount and verified against the entry the host listed.
  for (const [entry, label] of [
    [entries[0]!, 'a'],
    [entries[1]!, 'b'],
  ] as const) {
    const manifest = await skills.read(entry);
    t.ok(manifest.verified, `${entry.uri} verified`);
    t.match(manifest.body, `The ${label} way.`);
    t.same(manifest.frontmatter, { name: 'pdf-processing', description: `pdf-processing as ${label} does it` });
    const forms = await skills.read(entry, 'references/FORMS.md');
    t.ok(forms.verified);
    t.equal(forms.uri, `skill://${label}/pdf-processing/references/FORMS.md`);
    t.equal(forms.text, `Forms of ${label}.\n`);
  }

  const got = await skills.get('skill://b/slides/SKILL.md');
  t.same([got.ttlMs, got.cacheScope], modern ? [0, 'private'] : [undefined, undefined], 'cacheable at 2026-07-28');
  t.equal(got.skill.uri, 'skill://b/slides/SKILL.md');
  t.same((got.skill.resources as { uri: string }[]).map((file) => file.uri).sort(), [
    'skill://b/slides/SKILL.md',
    'skill://b/slides/references/FORMS.md',
  ]);
  await t.rejects(skills.get('skill://pdf-processing/SKILL.md'), { code: -32602 }, 'no skill outside the prefixes');
  await t.rejects(skills.get('skill://c/pdf-processing/SKILL.md'), { code: -32602 });

  const directory = await skills.readDirectory('skill://a/pdf-processing');
  t.same(
    directory.resources.map((child) => child.uri).sort(),
    ['skill://a/pdf-processing/SKILL.md', 'skill://a/pdf-processing/references'],
    "a directory's children under its mount's prefix",
  );
  await t.rejects(
    skills.readDirectory('skill://a/pdf-processing/SKILL.md'),
    { code: -32602 },
    'a file is no directory',
  );
}

t.test(
  'skills of one name from two prefixed mounts: composed, paginated, read and verified from their owners',
  async (t) => {
    const ws = makeWorkspace(t);
    writeSkills(ws, { a: ['pdf-processing'], b: ['pdf-processing', 'slides'] });
    const config = ws.writeConfig({
      pageSize: 1,
      plugins: [
        { package: '@test/skills-a', prefix: 'a' },
        { package: '@test/skills-b', prefix: 'b' },
      ],
      reload: { watch: false },
    });

    t.test('over stdio, at 2025-11-25', async (t) => {
      const { client } = await startStdioHost(t, config);
      await judgeSkills(t, client);
    });
    t.test('over HTTP, at 2026-07-28', async (t) => {
      const { url } = await startHttpHost(t, config);
      const client = new Client(
        { name: 'skills-test', version: '1.0.0' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      t.teardown(() => client.close());
      await judgeSkills(t, client);
    });
  },
);

t.test('curation judges the plugin’s own skill:// URI, access rules the served one', async (t) => {
  const ws = makeWorkspace(t);
  writeSkills(ws, { a: ['pdf-processing', 'slides'], b: ['pdf-processing', 'slides'] });
  const config = ws.writeConfig({
    plugins: [
      { package: '@test/skills-a', prefix: 'a' },
      { package: '@test/skills-b', prefix: 'b', resources: { exclude: ['skill://slides/**'] } },
    ],
    access: [{ who: { stdio: true }, resources: ['skill://a/pdf-processing/**', 'skill://b/**'] }],
    audit: { file: './audit.log' },
    reload: { watch: false },
  });
  const { client } = await startStdioHost(t, config);
  const skills = new SkillsClient(client);
  t.same((await listPages(client)).flat(), ['skill://a/pdf-processing/SKILL.md', 'skill://b/pdf-processing/SKILL.md']);
  await t.rejects(skills.get('skill://a/slides/SKILL.md'), { code: -32602 }, 'denied by the access rules');
  await t.rejects(skills.get('skill://b/slides/SKILL.md'), { code: -32602 }, 'curated out of b');
  t.equal((await skills.get('skill://b/pdf-processing/SKILL.md')).skill.uri, 'skill://b/pdf-processing/SKILL.md');

  // Each get is audited as a read is: by the URI the client sent, with the access rules' decision.
  const audited = () =>
    existsSync(join(ws.dir, 'audit.log'))
      ? readFileSync(join(ws.dir, 'audit.log'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { method: string; target: string; decision: string })
          .filter((record) => record.method === 'skills/get' || record.method === 'resources/directory/read')
      : [];
  t.equal((await skills.readDirectory('skill://b/pdf-processing')).resources.length, 2);
  await eventually('four records', async () => audited().length === 4);
  t.same(
    audited().map(({ method, target, decision }) => [method, target, decision]),
    [
      ['skills/get', 'skill://a/slides/SKILL.md', 'deny'],
      ['skills/get', 'skill://b/slides/SKILL.md', 'allow'],
      ['skills/get', 'skill://b/pdf-processing/SKILL.md', 'allow'],
      ['resources/directory/read', 'skill://b/pdf-processing', 'allow'],
    ],
  );
});

t.test('without a mount serving skills the host offers no skills extension', async (t) => {
  const ws = makeWorkspace(t);
  ws.writePackage(
    'node_modules/@test/plain',
    { name: '@test/plain', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': {} },
    {
      'index.js':
        "import { McpServer } from '@modelcontextprotocol/server';\nexport default { create: () => new McpServer({ name: 'plain', version: '1.0.0' }) };\n",
    },
  );
  const config = ws.writeConfig({ plugins: [{ package: '@test/plain', prefix: 'p' }], reload: { watch: false } });
  const { client } = await startStdioHost(t, config);
  t.equal(client.getServerCapabilities()?.extensions, undefined);
  await t.rejects(client.request({ method: 'skills/list', params: {} }, AS_SENT as never), { code: -32601 });
});

/**
 * A skills server of the SDK built on a source of its own (SEP-2640 lets a
 * server list none of its skills): it lists nothing (or, with the option
 * `listed`, its one skill, but never as a resource), gets and reads one
 * skill, and fails to get another as a broken store would.
 */
const UNLISTED = `
import { McpServer } from '@modelcontextprotocol/server';
import { SkillsExtension, skillEntry } from '@modelcontextprotocol/server/ext/skills';
const files = { 'SKILL.md': '---\\nname: hidden\\ndescription: Served, never listed\\n---\\nHidden body.\\n' };
export default {
  async create({ options }) {
    const entry = await skillEntry('hidden', files);
    const server = new McpServer({ name: 'unlisted', version: '1.0.0' });
    new SkillsExtension({
      source: {
        list: async () => ({ skills: options?.listed ? [entry] : [] }),
        get: async (uri) => {
          if (uri.includes('broken')) throw new Error('the skill store is down');
          return uri === entry.uri ? entry : undefined;
        },
        read: async (uri) => (uri === entry.uri ? { text: files['SKILL.md'], mimeType: 'text/markdown' } : undefined),
      },
      onWarning: () => {},
    }).attach(server);
    return server;
  },
};
`;

t.test('a skill served but not listed is got from its mount; a failure is the mount’s own answer', async (t) => {
  const ws = makeWorkspace(t);
  ws.writePackage(
    'node_modules/@test/unlisted',
    { name: '@test/unlisted', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': {} },
    { 'index.js': UNLISTED },
  );
  const config = ws.writeConfig({ plugins: [{ package: '@test/unlisted', prefix: 's' }], reload: { watch: false } });
  const { client } = await startStdioHost(t, config);
  t.same(client.getServerCapabilities()?.extensions, { 'io.modelcontextprotocol/skills': {} }, 'no directoryRead');
  const skills = new SkillsClient(client);
  t.same((await skills.list()).skills, []);
  const { skill } = await skills.get('skill://s/hidden/SKILL.md');
  t.equal(skill.uri, 'skill://s/hidden/SKILL.md');
  const manifest = await skills.read(skill);
  t.ok(manifest.verified);
  t.equal(manifest.body, 'Hidden body.\n');
  await t.rejects(skills.get('skill://s/other/SKILL.md'), {
    code: -32602,
    message: /Unknown skill "skill:\/\/s\/other\/SKILL.md".*Fix: use a uri from skills\/list/,
  });
  await t.rejects(skills.get('skill://s/broken/SKILL.md'), /the skill store is down/);
  await t.rejects(
    client.request({ method: 'resources/directory/read', params: { uri: 'skill://s/hidden' } }, AS_SENT as never),
    { code: -32601 },
    'no directory reads where no mount offers them',
  );
});

t.test(
  'a malformed skills/list is the plugin’s fault: the host refuses it at start, naming the plugin and the fix',
  async (t) => {
    for (const [answer, what] of [
      ["{ skills: 'none' }", /answered skills\/list with a result whose "skills" is not an array/],
      [
        '{ skills: [{ uri: "skill://x/SKILL.md" }, { frontmatter: {} }] }',
        /answered skills\/list with an entry \(skills\[1\]\) that has no string "uri"/,
      ],
    ] as const) {
      const ws = makeWorkspace(t);
      ws.writePackage(
        'node_modules/@test/bad-skills',
        { name: '@test/bad-skills', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': {} },
        {
          'index.js': `
import { Server } from '@modelcontextprotocol/server';
const asSent = { '~standard': { version: 1, vendor: 'test', validate: (value) => ({ value }) } };
export default {
  create() {
    const server = new Server(
      { name: 'bad-skills', version: '1.0.0' },
      { capabilities: { resources: {}, extensions: { 'io.modelcontextprotocol/skills': {} } } },
    );
    server.setRequestHandler('resources/list', () => ({ resources: [] }));
    server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: [] }));
    server.setRequestHandler('skills/list', { params: asSent }, () => (${answer}));
    return server;
  },
};
`,
        },
      );
      const config = ws.writeConfig({
        plugins: [{ package: '@test/bad-skills', prefix: 'bad' }],
        reload: { watch: false },
      });
      await t.rejects(
        startStdioHost(t, config),
        new RegExp(`@test/bad-skills[\\s\\S]*${what.source}[\\s\\S]*SEP-2640`),
      );
    }
  },
);

t.test('globs that match only skills (no listed resource) are not warned of as matching nothing', async (t) => {
  const ws = makeWorkspace(t);
  ws.writePackage(
    'node_modules/@test/unlisted',
    { name: '@test/unlisted', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': {} },
    { 'index.js': UNLISTED },
  );
  const config = ws.writeConfig({
    plugins: [
      {
        package: '@test/unlisted',
        prefix: 's',
        options: { listed: true },
        resources: { include: ['skill://hidden/**'] },
      },
    ],
    access: [{ who: { stdio: true }, resources: ['skill://s/**'] }],
    reload: { watch: false },
  });
  const checked = await runCli(['check', '--config', config]);
  t.equal(checked.code, 0, checked.stderr);
  t.notMatch(checked.stdout + checked.stderr, /matches no/, 'neither the curation glob nor the access rule');
});

t.test(
  'a mount that adds a skill is listed again: clients hear resources/list_changed and list the new skill',
  async (t) => {
    const ws = makeWorkspace(t);
    ws.writePackage(
      'node_modules/@test/growing',
      { name: '@test/growing', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': {} },
      {
        'index.js': `
import { McpServer } from '@modelcontextprotocol/server';
import { SkillsExtension, memorySkillFiles } from '@modelcontextprotocol/server/ext/skills';
const skill = (name) => '---\\nname: ' + name + '\\ndescription: The ' + name + ' skill\\n---\\nBody.\\n';
const files = { 'first/SKILL.md': skill('first') };
const catalog = await SkillsExtension.load(memorySkillFiles(files));
export default {
  create() {
    const server = new McpServer({ name: 'growing', version: '1.0.0' }, { capabilities: { resources: { listChanged: true } } });
    catalog.attach(server);
    server.registerTool('add_skill', {}, async () => {
      files['second/SKILL.md'] = skill('second');
      const changes = await catalog.reload();
      return { content: [{ type: 'text', text: JSON.stringify(changes.added) }] };
    });
    return server;
  },
};
`,
      },
    );
    const config = ws.writeConfig({ plugins: [{ package: '@test/growing', prefix: 'g' }], reload: { watch: false } });
    const host = await startStdioHost(t, config);
    const skills = new SkillsClient(host.client);
    t.same(
      (await skills.list()).skills.map((skill) => skill.uri),
      ['skill://g/first/SKILL.md'],
    );
    await host.client.callTool({ name: 'g.add_skill', arguments: {} });
    await host.until('resources/list_changed', () => host.notified.resources > 0);
    t.same(
      (await skills.list()).skills.map((skill) => skill.uri),
      ['skill://g/first/SKILL.md', 'skill://g/second/SKILL.md'],
    );
  },
);
