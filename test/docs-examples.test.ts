// Every fenced code block in README.md and docs/*.md is run, so that no
// statement drifts from what the host does. The convention, for whoever
// writes docs: every block names its language; a ```js (or ```ts) block that
// is a whole config file (`export default { … plugins … }`) is checked with
// `mcp-host check` in a directory where the repository's example plugins
// resolve (by name, and as ./plugins/…); a ```sh block is run with bash
// (mcp-host on the PATH) and must exit 0; a ```json block must parse, and
// one with top-level "plugins" (or a ```yaml block with `plugins:`) is a
// config, checked the same; a ```text block is output, shown as printed. A block that cannot run by
// itself has `<!-- example: fragment -->` or `<!-- example: skip (why) -->`
// just before it (a blank line between, as prettier writes it). New files in
// docs/ are covered as they come.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import t, { type Test } from 'tap';
import { cliOnPath } from './helpers/cli-on-path.js';
import { runCli } from './helpers/host.js';
import { fencedBlocks } from './helpers/markdown.js';
import { makeWorkspace, REPO_ROOT, type Workspace } from './helpers/packages.js';

const DOCS = [
  'README.md',
  ...readdirSync(join(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

/** A config file, as opposed to a plugin's module or a fragment: it exports an object with plugins. */
const isWholeConfig = (body: string) =>
  /^\s*(export default|module\.exports\s*=)/m.test(body) && /^\s*plugins\s*:/m.test(body);

/**
 * A directory like an operator's project: the example plugins resolve by
 * name (the repository's node_modules is above it) and as ./plugins/…, and
 * `mcp-host` is on the PATH.
 */
function project(t: Parameters<typeof makeWorkspace>[0]): Workspace & { env: NodeJS.ProcessEnv } {
  const ws = makeWorkspace(t);
  symlinkSync(join(REPO_ROOT, 'plugins'), join(ws.dir, 'plugins'));
  return Object.assign(ws, { env: cliOnPath(ws) });
}

/**
 * Run a ```sh block with bash in `cwd`. It runs in a process group of its
 * own, ended whole when the block ends or overruns its time, so that a
 * server a block started cannot outlive it.
 */
function bash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { cwd, env, detached: true });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const endGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // The group has already ended.
    }
  };
  const overrun = setTimeout(() => {
    output += `\n(ended: still running after ${BLOCK_TIME_MS} ms)`;
    endGroup();
  }, BLOCK_TIME_MS);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(overrun);
      endGroup();
      resolve({ code: code ?? (signal ? 128 : 1), output });
    });
  });
}

/** The longest a ```sh block may run: a block is a few commands, not a server left running. */
const BLOCK_TIME_MS = 60_000;

/** `mcp-host check` of a config block, written as `fileName` in a project of its own. */
async function checkConfig(t: Test, where: string, body: string, fileName: string): Promise<void> {
  const ws = project(t);
  const config = ws.writeConfig(body, fileName);
  const checked = await runCli(['check', '--config', config], { cwd: ws.dir, env: ws.env });
  t.equal(checked.code, 0, `${where}: mcp-host check passes\n${checked.stdout}${checked.stderr}`);
}

t.test('every block names its language, and every marker is a fragment or a skip with its reason', async (t) => {
  for (const file of DOCS) {
    for (const block of fencedBlocks(file)) {
      t.not(
        block.language,
        '',
        `${block.where}: a fenced block names its language (\`\`\`js, \`\`\`sh, \`\`\`text, …)`,
      );
      if (block.marker !== undefined) {
        t.match(
          block.marker,
          /^(fragment|skip \(.+\))$/,
          `${block.where}: the marker is <!-- example: fragment --> or <!-- example: skip (why) -->`,
        );
      }
    }
  }
});

for (const file of DOCS) {
  t.test(`the examples in ${file} run`, async (t) => {
    for (const block of fencedBlocks(file)) {
      if (block.marker !== undefined) continue;
      const { where, language, body } = block;
      if (['js', 'javascript', 'ts', 'typescript'].includes(language)) {
        t.ok(
          isWholeConfig(body),
          `${where}: a ${language} block is a whole config, or marked as a fragment or skipped`,
        );
        if (isWholeConfig(body)) {
          await checkConfig(t, where, body, language.startsWith('t') ? 'mcp-host.config.ts' : 'mcp-host.config.js');
        }
      } else if (['yaml', 'yml'].includes(language) && /^plugins:/m.test(body)) {
        await checkConfig(t, where, body, '.mcp-hostrc.yaml');
      } else if (language === 'json') {
        let parsed: { plugins?: unknown } | undefined;
        t.doesNotThrow(() => (parsed = JSON.parse(body) as { plugins?: unknown }), `${where}: the JSON parses`);
        if (Array.isArray(parsed?.plugins)) await checkConfig(t, where, body, '.mcp-hostrc.json');
      } else if (['sh', 'bash', 'shell'].includes(language)) {
        const ws = project(t);
        const run = await bash(body, ws.dir, ws.env);
        t.equal(run.code, 0, `${where}: the commands exit 0\n${run.output}`);
      } else {
        t.equal(language, 'text', `${where}: a ${language} block is run, marked, or is text (shown output)`);
      }
    }
  });
}

t.test('docs/configuration.md names every key of the config, its sections and every kind of entry', async (t) => {
  const types = readFileSync(join(REPO_ROOT, 'host/config/types.ts'), 'utf8');
  const reference = readFileSync(join(REPO_ROOT, 'docs/configuration.md'), 'utf8');
  const documented = `${reference}\n${readFileSync(join(REPO_ROOT, 'docs/telemetry.md'), 'utf8')}\n${readFileSync(join(REPO_ROOT, 'docs/replicas.md'), 'utf8')}\n${readFileSync(join(REPO_ROOT, 'docs/discovery.md'), 'utf8')}\n${readFileSync(join(REPO_ROOT, 'docs/access.md'), 'utf8')}`;
  const interfaces = [
    'HostConfig',
    'MountOptions',
    'PackagePluginEntry',
    'CommandPluginEntry',
    'UrlPluginEntry',
    'UpstreamAuthConfig',
    'UpstreamClientConfig',
    'TokenExchangeConfig',
    'ItemCuration',
    'ResourceCuration',
    'HttpConfig',
    'HttpAuthConfig',
    'HttpOAuthConfig',
    'OAuthIntrospectionConfig',
    'ReloadConfig',
    'UpstreamsConfig',
    'TelemetryConfig',
    'ClusterConfig',
    'DiscoveryConfig',
    'AccessWho',
    'AccessRule',
    'AuditConfig',
    'LimitsConfig',
  ];
  for (const name of interfaces) {
    const body = new RegExp(`export interface ${name}\\b[^{]*\\{([\\s\\S]*?)\\n\\}`).exec(types)?.[1];
    t.ok(body, `host/config/types.ts declares ${name}`);
    for (const [, key] of body!.matchAll(/^ {2}(\w+)\??:/gm)) {
      t.match(documented, `\`${key}\``, `${name}.${key} is documented`);
    }
  }
});

t.test('the README is a front door, and no page names a path of one machine', async (t) => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  t.ok(
    readme.split('\n').length < 250,
    `README.md has ${readme.split('\n').length} lines; under 250, the rest in docs/`,
  );
  for (const file of DOCS) {
    const text = readFileSync(join(REPO_ROOT, file), 'utf8');
    t.notMatch(text, /\/(work|root|home)\//, `${file} names no directory of the machine it was written on`);
  }
});

/** A heading's anchor, as GitHub makes it. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

t.test('every relative link in the README and docs/ reaches a file, and its anchor a heading', async (t) => {
  for (const file of DOCS) {
    const text = readFileSync(join(REPO_ROOT, file), 'utf8');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const [path, anchor] = target!.split('#') as [string, string | undefined];
      const linked = path === '' ? file : join(dirname(file), path);
      t.ok(existsSync(join(REPO_ROOT, linked)), `${file}: ${target} reaches ${linked}`);
      if (anchor === undefined || !linked.endsWith('.md') || !existsSync(join(REPO_ROOT, linked))) continue;
      const headings = [...readFileSync(join(REPO_ROOT, linked), 'utf8').matchAll(/^#+ (.*)$/gm)].map((m) =>
        slug(m[1]!),
      );
      t.ok(headings.includes(anchor), `${file}: ${target} names a heading of ${linked}`);
    }
  }
});
