// The plugin author's kit: mcp-host check in the plugin's own directory, and
// an author's own test through mcp-host/testing, as docs/plugin-authors.md prints it.
import { execFile } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { runCli } from './helpers/host.js';
import { makeWorkspace, REPO_ROOT } from './helpers/packages.js';
import { readmeBlock, writePlugin, writeReadmeWeather } from './helpers/readme.js';

const run = promisify(execFile);

t.test('check in a plugin\u2019s own directory checks it as a plugin, a dry create with --options', async (t) => {
  const ws = makeWorkspace(t);
  const dir = writeReadmeWeather(ws, 'weather');
  const checked = await runCli(['check', '--options', '{"units":"imperial"}'], { cwd: dir });
  t.equal(checked.code, 0, checked.stdout + checked.stderr);
  t.match(
    checked.stdout,
    `checking ${dir} as an mcp-host plugin (no host config here): mounted under its own prefix "weather"`,
  );
  t.match(checked.stdout, 'tools: weather.forecast');

  const broken = ws.writePackage(
    'broken',
    { name: 'broken', type: 'module', exports: './index.js', 'mcp-host': { pageSize: 5 } },
    {
      'index.js': 'export default { create() { throw new Error("no API key"); } };\n',
    },
  );
  const refused = await runCli(['check'], { cwd: broken });
  t.equal(refused.code, 1);
  t.match(refused.stdout, 'mcp-host check: 1 problem in the plugin broken');
  t.match(refused.stdout, '"pageSize"');
});

t.test('an author\u2019s test through mcp-host/testing passes, as docs/plugin-authors.md prints it', async (t) => {
  const ws = makeWorkspace(t);
  const dir = writeReadmeWeather(ws, 'weather');
  // What `npm install --save-dev mcp-host` gives the author: the host, resolvable by name.
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(REPO_ROOT, join(dir, 'node_modules/mcp-host'), 'dir');
  ws.writeFile('weather/test/forecast.test.js', readmeBlock('# Plugin authors', 'js', 1, 'docs/plugin-authors.md'));
  // As an author runs it: `node --test` finds test/**/*.js by Node's own patterns (a directory argument is
  // refused from Node 24 on: ERR_UNSUPPORTED_DIR_IMPORT).
  const { stdout } = await run(process.execPath, ['--test', '--test-reporter=tap'], { cwd: dir });
  t.match(stdout, /# pass 1\n# fail 0/);

  const { mountForTest } = (await import(
    join(REPO_ROOT, 'dist/host/testing.js')
  )) as typeof import('../host/testing.js');
  const refused = writePlugin(ws, 'narrow', 'narrow', { protocolVersions: ['2025-11-25'], prefix: 'n' }, ['x']);
  await t.rejects(mountForTest(refused), /the host did not mount .*narrow:\n[\s\S]*lacks "2024-11-05"/);
});
