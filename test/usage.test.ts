// The command line's own help: `mcp-host --help` lists every command, and
// each command's --help (or -h) explains it with every flag the overview
// gives it, exiting 0; a command that does not exist is wrong usage (2).
import { join } from 'node:path';
import t from 'tap';
import { runCli } from './helpers/host.js';
import { makeWorkspace, PACKAGE_VERSION } from './helpers/packages.js';

const overview = await runCli(['--help']);

t.test('mcp-host --help: the version and every command, with its flags', async (t) => {
  t.equal(overview.code, 0);
  t.equal(overview.stderr, '');
  t.match(overview.stdout, `mcp-host ${PACKAGE_VERSION}: one MCP server built out of many`);
  t.match(overview.stdout, 'Exit status: 0 success, 1 a problem with the config, a plugin or a reload, 2 wrong usage.');
  t.same((await runCli(['-h'])).stdout, overview.stdout, '-h says the same');
  t.equal((await runCli(['--version'])).stdout, `${PACKAGE_VERSION}\n`);
});

/** Each command's line in the overview, `mcp-host [start] [--config PATH] …` → start and its flags. */
const commands = [...overview.stdout.matchAll(/^ {2}(mcp-host (\[?[a-z]+\]?).*)$/gm)].map(([, line, name]) => ({
  name: name!.replace(/[[\]]/g, ''),
  line: line!,
  flags: [...line!.matchAll(/--[a-z-]+/g)].map(([flag]) => flag),
}));

t.test('the overview names every command', async (t) => {
  t.same(
    commands.map((command) => command.name),
    ['start', 'check', 'list', 'reload', 'status', 'pin', 'access', 'init', 'add'],
  );
});

for (const { name, line, flags } of commands) {
  t.test(`mcp-host ${name} --help`, async (t) => {
    const help = await runCli([name, '--help']);
    t.equal(help.code, 0, 'exits 0');
    t.equal(help.stderr, '');
    t.match(help.stdout, `Usage: ${line}`, 'opens with the usage the overview gives');
    for (const flag of flags) t.match(help.stdout, new RegExp(`^ +${flag}\\b`, 'm'), `explains ${flag}`);
    t.same((await runCli([name, '-h'])).stdout, help.stdout, '-h says the same');
  });
}

t.test('a command that does not exist is wrong usage', async (t) => {
  const wrong = await runCli(['serve']);
  t.equal(wrong.code, 2);
  t.equal(wrong.stderr, `mcp-host: unknown command "serve"\n\n${overview.stdout}`);
});

t.test('the config as CONFIG, the same as --config, or from MCP_HOST_CONFIG; named once', async (t) => {
  const ws = makeWorkspace(t);
  const file = ws.writeConfig({ plugins: [] });
  const other = ws.writeConfig({ plugins: [] }, 'other.config.js');
  // A directory of its own, where no config is found by searching.
  const elsewhere = join(ws.dir, 'elsewhere');
  ws.writeFile('elsewhere/package.json', '{}');
  const env = { ...process.env, MCP_HOST_CONFIG: file };

  const positional = await runCli(['check', other], { cwd: elsewhere });
  t.equal(positional.code, 0, positional.stderr);
  t.match(positional.stdout, `(${other})`, 'check CONFIG');
  t.match((await runCli(['check'], { cwd: elsewhere })).stdout, 'no mcp-host config found', 'without one, a search');
  const fromEnvironment = await runCli(['check'], { cwd: elsewhere, env });
  t.equal(fromEnvironment.code, 0, fromEnvironment.stderr);
  t.match(fromEnvironment.stdout, `(${file})`, 'MCP_HOST_CONFIG');
  t.match((await runCli(['check', other], { cwd: elsewhere, env })).stdout, `(${other})`, 'CONFIG wins over it');
  t.match(
    (await runCli(['check', '--config', other], { cwd: elsewhere, env })).stdout,
    `(${other})`,
    'so does --config',
  );
  // start's own flags are checked: the command is start.
  const bare = await runCli([other, '--stdio', '--http', '3000']);
  t.match(bare.stderr, 'mcp-host: --stdio and --http exclude each other', 'mcp-host CONFIG is mcp-host start CONFIG');

  for (const [args, message] of [
    [
      ['check', file, '--config', other],
      `mcp-host: the config is named twice: ${file} and --config ${other}; give one`,
    ],
    [['list', file, other], `mcp-host: list takes at most one CONFIG, got 2: ${file} ${other}`],
    [['init', 'weather'], 'mcp-host: init takes no argument, got: weather'],
    [
      ['check', '--plugin', 'weather'],
      'mcp-host: --plugin goes with "init" (a new plugin package) or "reload" (without --cluster)',
    ],
    [
      ['./nowhere.config.js'],
      `mcp-host: unknown command "./nowhere.config.js", and no config file there either (a relative path starts from ${ws.dir})`,
    ],
  ] as const) {
    const wrong = await runCli([...args], { cwd: ws.dir });
    t.equal(wrong.code, 2, args.join(' '));
    t.equal(wrong.stderr, `${message}\n\n${overview.stdout}`);
  }
});
