// docs/operators.md's "Try it with the MCP Inspector" (and the README's command), run with the Inspector's own
// CLI package: the host as its stdio child, the config named as start's
// argument or in MCP_HOST_CONFIG (the Inspector takes --config as its own),
// over HTTP with a bearer token, and from the Inspector's config file. Each
// command is the README's, with the Inspector's installed CLI in place of
// npx and the real address in place of port 3000.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { cliOnPath } from './helpers/cli-on-path.js';
import { startHttpHost } from './helpers/host.js';
import { makeWorkspace, REPO_ROOT, type Workspace } from './helpers/packages.js';
import { readmeBlock, writeReadmeWeather } from './helpers/readme.js';

const SECTION = '### Try it with the MCP Inspector';
const OPERATORS = 'docs/operators.md';
/** The Inspector's CLI (`@modelcontextprotocol/inspector-cli`): `--cli` then what `npx @modelcontextprotocol/inspector --cli` takes. */
const INSPECTOR = join(REPO_ROOT, 'node_modules/.bin/mcp-inspector-cli');
const TOKEN = 'a-bearer-token-for-the-inspector-0123456789';

/**
 * The README's my-host/ with the README's weather plugin installed beside
 * it. The Inspector's CLI is run from my-host/, whose parent has a
 * package.json: the CLI reads its own package.json at "../package.json" if
 * that exists from the working directory, so it needs one there.
 */
function myHost(t: Parameters<typeof makeWorkspace>[0]): { ws: Workspace; dir: string; env: NodeJS.ProcessEnv } {
  const ws = makeWorkspace(t);
  writeReadmeWeather(ws, 'node_modules/weather', 'README');
  ws.writeFile('my-host/mcp-host.config.js', "export default { plugins: [{ package: 'weather' }] };\n");
  return { ws, dir: join(ws.dir, 'my-host'), env: { ...cliOnPath(ws), MCP_HOST_HTTP_TOKENS: TOKEN } };
}

/** The Inspector commands of a README block: continued lines joined, npx replaced by the installed CLI. */
function inspectorCommands(block: string): string[] {
  return block
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((line) => line.includes('npx @modelcontextprotocol/inspector '))
    .map((line) => line.replace('npx @modelcontextprotocol/inspector ', `"${INSPECTOR}" `));
}

function bash(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('bash', ['-euo', 'pipefail', '-c', command], { cwd, env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

t.test('the Inspector starts the host as its stdio child, the config given as CONFIG or MCP_HOST_CONFIG', async (t) => {
  const { dir, env } = myHost(t);
  const [list, call, fromEnvironment] = inspectorCommands(readmeBlock(SECTION, 'sh', 0, OPERATORS));
  t.ok(list && call && fromEnvironment, 'three commands in the block');
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8').replace(/\n/g, ' ');
  const [readmeCommand] = inspectorCommands(/`(npx @modelcontextprotocol\/inspector [^`]+)`/.exec(readme)?.[1] ?? '');
  t.equal(readmeCommand, list, "the README's command is the first");
  for (const [name, command] of [
    ['CONFIG', list!],
    ['MCP_HOST_CONFIG', fromEnvironment!],
  ]) {
    const listed = await bash(command, dir, env);
    t.equal(listed.code, 0, `${name}: the Inspector exits 0`, { stderr: listed.stderr });
    t.same(
      (JSON.parse(listed.stdout) as { tools: { name: string }[] }).tools.map((tool) => tool.name),
      ['weather.forecast'],
      `${name}: tools/list`,
    );
  }
  const called = await bash(call!, dir, env);
  t.equal(called.code, 0, 'tools/call: the Inspector exits 0', { stderr: called.stderr });
  t.same((JSON.parse(called.stdout) as { content: unknown }).content, [
    { type: 'text', text: 'Sunny in Oslo (metric)' },
  ]);
});

t.test('the Inspector calls the host over HTTP with the bearer token', async (t) => {
  const { dir, env } = myHost(t);
  const block = readmeBlock(SECTION, 'sh', 1, OPERATORS);
  t.match(block, 'mcp-host start ./mcp-host.config.js --http 127.0.0.1:3000 &', 'the block starts the host so');
  const host = await startHttpHost(t, join(dir, 'mcp-host.config.js'), { env: { MCP_HOST_HTTP_TOKENS: TOKEN } });
  const [command] = inspectorCommands(block).map((line) => line.replace('http://127.0.0.1:3000/mcp', host.url));
  const listed = await bash(command!, dir, env);
  t.equal(listed.code, 0, 'the Inspector exits 0', { stderr: listed.stderr });
  t.match(listed.stdout, '"name": "weather.forecast"');

  const refused = await bash(command!, dir, { ...env, MCP_HOST_HTTP_TOKENS: 'not-the-token-0123456789' });
  t.not(refused.code, 0, 'another token is refused');
});

t.test('the Inspector starts the host from its own config file', async (t) => {
  const { ws, dir, env } = myHost(t);
  const servers = readmeBlock(SECTION, 'json', 0, OPERATORS).replace('/ABSOLUTE/PATH/TO/my-host', dir);
  ws.writeFile('my-host/inspector.json', servers);
  const [command] = inspectorCommands(readmeBlock(SECTION, 'sh', 2, OPERATORS));
  const listed = await bash(command!, dir, env);
  t.equal(listed.code, 0, 'the Inspector exits 0', { stderr: listed.stderr });
  t.match(listed.stdout, '"name": "weather.forecast"');
});
