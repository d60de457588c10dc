// The README's own Install and first steps, walked as a newcomer walks them,
// in a directory outside the repository (nothing resolves from its
// node_modules): the repository packed with `npm pack`, the tarball installed
// globally (into a temporary prefix), then the plugin author's, operator's
// and admin's first steps run as printed, a stdio client and an HTTP client
// calling tools, and every client config of README.md and docs/operators.md
// launched as its client would: its command and arguments alone, from
// another directory. npm prefers its cache; it reaches only the npm registry.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { fencedBlocks } from './helpers/markdown.js';
import { PACKAGE_VERSION, REPO_ROOT } from './helpers/packages.js';
import { readmeBlock } from './helpers/readme.js';
import { firstText } from './helpers/results.js';

t.setTimeout(600_000);
const run = promisify(execFile);

const root = mkdtempSync(join(tmpdir(), 'mcp-host-install-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));
const globalPrefix = join(root, 'global');
const runtimeDir = join(root, 'run');
mkdirSync(runtimeDir, { mode: 0o700 });
/**
 * A user's environment: the global prefix's bin on the PATH, and none of the
 * test runner's module hooks (tap's NODE_OPTIONS), which would load what
 * Node alone would not. The reload socket in a directory of this test's own.
 */
const { NODE_OPTIONS: _hooks, ...inherited } = process.env;
const env: NodeJS.ProcessEnv = {
  ...inherited,
  PATH: `${join(globalPrefix, 'bin')}:${process.env.PATH}`,
  npm_config_prefix: globalPrefix,
  npm_config_prefer_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  XDG_RUNTIME_DIR: runtimeDir,
};
const myHost = join(root, 'my-host');
const configFile = join(myHost, 'mcp-host.config.js');

/** A README block run with bash in `cwd`, in a process group of its own; fails the test unless it exits 0. */
async function bash(t: Test, script: string, cwd: string, what: string): Promise<string> {
  const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { cwd, env, detached: true });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  t.equal(code, 0, `${what} exits 0\n${output}`);
  return output;
}

/** A client config's server entry, with the reader's path placeholder replaced by this test's directory. */
interface ServerEntry {
  command: string;
  args: string[];
  env?: Record<string, string>;
}
/**
 * The client configs printed, by the command line each launches: clients
 * whose configs differ only in their keys (`mcpServers` or `servers`, a
 * `type`) start the same process, which is launched once for them all.
 */
function clientConfigs(): { where: string; server: ServerEntry }[] {
  const byCommandLine = new Map<string, { where: string[]; server: ServerEntry }>();
  for (const file of ['README.md', 'docs/operators.md']) {
    for (const block of fencedBlocks(file)) {
      if (block.language !== 'json' || !/"(mcpServers|servers)"/.test(block.body)) continue;
      const json = JSON.parse(block.body.replaceAll('/ABSOLUTE/PATH/TO/my-host', myHost)) as {
        mcpServers?: Record<string, ServerEntry>;
        servers?: Record<string, ServerEntry>;
      };
      const { command, args, env: serverEnv = {} } = Object.values(json.mcpServers ?? json.servers ?? {})[0]!;
      const key = JSON.stringify([command, args, serverEnv]);
      const known = byCommandLine.get(key) ?? { where: [], server: { command, args, env: serverEnv } };
      known.where.push(block.where);
      byCommandLine.set(key, known);
    }
  }
  return [...byCommandLine.values()].map(({ where, server }) => ({ where: where.join(', '), server }));
}

async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name).sort();
}

t.test('install the packed tarball globally, as the README says', async (t) => {
  const packed = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', root], { cwd: REPO_ROOT, env });
  t.equal(packed.stdout.trim().split('\n').at(-1), `mcp-host-${PACKAGE_VERSION}.tgz`);
  const installed = await bash(t, readmeBlock('## Install', 'sh', 1), root, "the README's global install");
  t.match(installed, `${PACKAGE_VERSION}\n`, 'mcp-host --version answers from any directory');
  // The install resolves each dependency afresh from the registry, so the count moves when one of them adds or
  // drops a dependency of its own: the README's figure is held to within a tenth, not to the package.
  const stated = Number(/\(about (\d+) packages once installed\)/.exec(readmeBlock('## Install', 'sh', 0))?.[1]);
  const added = Number(/added (\d+) packages/.exec(installed)?.[1]);
  t.ok(
    Math.abs(added - stated) <= stated / 10,
    `the README says about how many packages the install adds: ${stated}, and it added ${added}`,
  );

  // Per project: the same file, beside a project's config.
  const project = join(root, 'per-project');
  mkdirSync(project);
  await run('npm', ['init', '-y'], { cwd: project, env });
  const perProject = readmeBlock('## Install', 'sh', 2).replace('/absolute/path/to', root);
  const local = await bash(t, perProject, project, "the README's per-project install");
  t.match(local, `${PACKAGE_VERSION}\n`, "the project's own mcp-host answers");
});

t.test("the plugin author's, the operator's and the admin's first steps, as printed", async (t) => {
  // The plugin author: the package as printed, its dependencies installed, checked in its own directory.
  const author = '## Plugin authors: first steps';
  const weather = join(root, 'weather');
  mkdirSync(weather);
  writeFileSync(join(weather, 'package.json'), readmeBlock(author, 'json'));
  writeFileSync(join(weather, 'index.js'), readmeBlock(author, 'js'));
  const checked = await bash(t, readmeBlock(author, 'sh'), weather, "the plugin author's npm install and check");
  t.match(checked, 'weather.forecast', 'check lists the tool under the name it will get');

  // The operator: a project, the filesystem server with its directory, the local plugin, check.
  const operator = '## Operators: first steps';
  const steps = await bash(t, readmeBlock(operator, 'sh'), root, "the operator's first steps");
  t.notMatch(steps, 'wrote on its stderr', 'the filesystem server, given its directory, has nothing to say');
  t.match(steps, /OK: \d+ tools/);
  const written = readFileSync(configFile, 'utf8');
  for (const entry of readmeBlock(operator, 'js').match(/\{ package: .* \}/g)!) {
    t.match(written, entry, `the config holds the README's ${entry}`);
  }

  // A stdio client, for each command line the client configs print: alone, started from another directory.
  const launches = clientConfigs();
  t.ok(
    launches.flatMap(({ where }) => where.split(', ')).length >= 5,
    'the README and docs/operators.md print the configs of Claude Desktop, Claude Code, Cursor and VS Code',
  );
  for (const { where, server } of launches) {
    const client = new Client({ name: `client of ${where}`, version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: server.command,
      args: server.args,
      env: { ...env, ...server.env } as Record<string, string>,
      cwd: '/',
      stderr: 'ignore',
    });
    await client.connect(transport);
    try {
      const tools = await toolNames(client);
      t.ok(tools.includes('weather.forecast') && tools.includes('fs.read_text_file'), `${where}: lists the tools`);
      const forecast = await client.callTool({ name: 'weather.forecast', arguments: { city: 'Oslo' } });
      t.equal(firstText(forecast), 'Sunny in Oslo (metric)', `${where}: calls the plugin`);
      const allowed = await client.callTool({ name: 'fs.list_allowed_directories', arguments: {} });
      t.match(firstText(allowed), join(myHost, 'data'), `${where}: the server got its --arg`);
    } finally {
      await client.close();
    }
  }

  // Over HTTP, on a port the system picks (the README's 3000 may be taken here).
  const serve = readmeBlock(operator, 'sh', 1).replace('127.0.0.1:3000', '127.0.0.1:0');
  const host = spawn('bash', ['-euo', 'pipefail', '-c', serve], { cwd: myHost, env, detached: true });
  let log = '';
  host.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const exited = once(host, 'exit');
  t.teardown(() => {
    if (host.exitCode === null) process.kill(-host.pid!, 'SIGKILL');
  });
  const url = await new Promise<string>((resolve, reject) => {
    host.stderr.on('data', () => {
      const match = /listening on (http:\/\/[^\s"]+)/.exec(log);
      if (match) resolve(match[1]!);
    });
    void exited.then(() => reject(new Error(`the host exited before listening:\n${log}`)));
  });
  const client = new Client({ name: 'http client', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const forecast = await client.callTool({ name: 'weather.forecast', arguments: { city: 'Bergen' } });
  t.equal(firstText(forecast), 'Sunny in Bergen (metric)', 'an HTTP client calls the plugin');

  // The admin, beside the running host.
  const admin = await bash(t, readmeBlock('## Admins: first steps', 'sh'), myHost, "the admin's reload and status");
  t.match(admin, /reloaded in [\d.]+ ms, generation 2 is live/);
  // `reload --plugin weather` starts it afresh: a third generation, and status says so.
  t.match(admin, /reloaded in [\d.]+ ms, generation 3 is live\n {2}plugins replaced: weather\n/);
  t.match(admin, /generation 3, config [0-9a-f]{12}; up /);
  await client.close();
  process.kill(-host.pid!, 'SIGTERM');
  await exited;
});
