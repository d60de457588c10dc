// How the host's log reads: human-readable lines on a terminal, JSON lines
// on a pipe or a file (a client, a log shipper), or as log.format and
// MCP_HOST_LOG_FORMAT say; always on stderr, never stdout. And a start that
// mounts a server asking for roots no client can give yet does not log that
// as news. The terminal is a real pseudo-terminal (util-linux's script).
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { CLI, runCli, startStdioHost } from './helpers/host.js';
import { makeWorkspace } from './helpers/packages.js';
import { writePlugin } from './helpers/readme.js';

/** A pretty line: time, level (coloured on a terminal), message. */
const ESC = String.fromCharCode(27);
const PRETTY = new RegExp(`^\\[\\d\\d:\\d\\d:\\d\\d\\.\\d{3}\\] (${ESC}\\[\\d+m)?INFO(${ESC}\\[\\d+m)?: `, 'm');

/** The environment of a host whose format nothing but its stderr decides. */
function plainEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.MCP_HOST_LOG_LEVEL;
  if (!('MCP_HOST_LOG_FORMAT' in extra)) delete env.MCP_HOST_LOG_FORMAT;
  return env;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string }> {
  // stdin is /dev/null: a stdio host reads its end at once and stops, as when its client goes.
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', () => resolve({ stdout, stderr })));
}

function workspaceWithPlugin(t: Parameters<typeof makeWorkspace>[0], log?: Record<string, unknown>) {
  const ws = makeWorkspace(t);
  writePlugin(ws, 'node_modules/hello', 'hello', { prefix: 'hello' }, ['greet']);
  const file = ws.writeConfig({ plugins: [{ package: 'hello' }], reload: { watch: false }, ...(log && { log }) });
  return { ws, file };
}

t.test('on a terminal the log is human-readable, on stderr only; on a pipe it is JSON lines', async (t) => {
  const { ws, file } = workspaceWithPlugin(t);
  const stdoutFile = join(ws.dir, 'stdout');
  // Only stderr is the terminal: stdout goes to a file, which must stay empty.
  const host = `exec "${process.execPath}" "${CLI}" start "${file}" --stdio < /dev/null > "${stdoutFile}"`;
  const terminal = await run('script', ['-qec', host, '/dev/null'], plainEnv());
  t.match(terminal.stdout, PRETTY, 'pretty lines on the terminal');
  t.match(terminal.stdout, 'serving 1 tool, 0 prompts, 0 resources, 0 templates from 1 plugin');
  t.notMatch(terminal.stdout, '{"level"', 'no JSON line');
  t.equal(readFileSync(stdoutFile, 'utf8'), '', 'nothing on stdout');

  const piped = await run(process.execPath, [CLI, 'start', file, '--stdio'], plainEnv());
  t.equal(piped.stdout, '');
  const lines = piped.stderr.trim().split('\n');
  t.ok(lines.length >= 2, piped.stderr);
  for (const line of lines) t.doesNotThrow(() => JSON.parse(line), `a JSON line: ${line}`);
});

t.test("log.format: 'pretty' on a pipe, beside a client on stdout; MCP_HOST_LOG_FORMAT wins over it", async (t) => {
  const { file } = workspaceWithPlugin(t, { format: 'pretty' });
  const host = await startStdioHost(t, file, { env: { MCP_HOST_LOG_LEVEL: 'info' } });
  t.same(
    (await host.client.listTools()).tools.map((tool) => tool.name),
    ['hello.greet'],
    'JSON-RPC on stdout is untouched',
  );
  await host.until('the serving line', () => host.log().includes('serving 1 tool'));
  t.match(host.log(), PRETTY);
  t.notMatch(host.log(), '{"level"');

  const json = await run(process.execPath, [CLI, 'start', file, '--stdio'], plainEnv({ MCP_HOST_LOG_FORMAT: 'json' }));
  t.match(json.stderr, /^\{"level":30,/, 'the variable wins');
});

t.test('a log.format other than pretty or json is refused naming both', async (t) => {
  const { file } = workspaceWithPlugin(t, { format: 'fancy' });
  const checked = await runCli(['check', '--config', file]);
  t.equal(checked.code, 1);
  t.match(checked.stdout, '- mcp-host.config.js: log.format: expected "pretty" or "json", got "fancy".');
});

t.test('a server asking for roots at its start, before any client can be asked, is not logged as news', async (t) => {
  const ws = makeWorkspace(t);
  mkdirSync(join(ws.dir, 'data'));
  const file = ws.writeConfig({
    plugins: [{ package: '@modelcontextprotocol/server-filesystem', prefix: 'fs', args: [join(ws.dir, 'data')] }],
    reload: { watch: false },
  });
  const host = await startStdioHost(t, file);
  // The filesystem server asks as soon as it is initialized, and prints the host's answer on its stderr.
  await host.until('the server echoing the answer', () => host.log().includes('Failed to request initial roots'));
  const lines = host
    .log()
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { level: number; msg: string });
  const echoes = lines.filter((line) => line.msg.includes('Failed to request initial roots'));
  t.ok(echoes.length > 0);
  for (const echo of echoes) t.equal(echo.level, 20, `at debug: ${echo.msg}`);
  const noted = lines.filter((line) => line.msg.startsWith("answered the upstream's roots/list with an error"));
  t.equal(noted.length, 1, 'the host notes it once');
  t.equal(noted[0]!.level, 20, 'at debug');
});
