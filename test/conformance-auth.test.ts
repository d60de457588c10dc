// `scripts/conformance.sh --auth` (docs/conformance.md): the suite itself runs
// with `npm run conformance -- --auth` (minutes, Node 22); this keeps what it
// stands on honest in `npm test`: the config it serves is valid and gives the
// token named "suite" everything and anyone else nothing, and the script's
// refusals name what is wrong and the fix before anything is started.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { runCli } from './helpers/host.js';
import { REPO_ROOT } from './helpers/packages.js';

const CONFIG = join(REPO_ROOT, 'test/conformance/mcp-host.auth.config.js');
const SCRIPT = join(REPO_ROOT, 'scripts/conformance.sh');
const TOKEN_ENV = { ...process.env, MCP_CONFORMANCE_SUITE_TOKEN: 'test-token' };

/** The script's exit code and output, run as `bash scripts/conformance.sh ARGS`. */
function runScript(args: string[], env: NodeJS.ProcessEnv = process.env) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile('bash', [SCRIPT, ...args], { env }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

t.test('the config --auth serves is valid: the whole catalogue, with auth, rules, audit and a limit', async (t) => {
  const checked = await runCli(['check', '--config', CONFIG], { env: TOKEN_ENV });
  t.equal(checked.code, 0, checked.stderr);
  t.match(checked.stdout, /OK: 35 tools, 5 prompts, 4 resources, 2 templates from 1 plugin/);
});

t.test('the token named "suite" sees everything, any other identity nothing', async (t) => {
  const suite = await runCli(['access', 'explain', '--config', CONFIG, '--token', 'suite'], { env: TOKEN_ENV });
  t.equal(suite.code, 0, suite.stderr);
  t.match(suite.stdout, /^sees \(47\):$/m);
  t.match(suite.stdout, /^denied \(0\):?$/m);
  const other = await runCli(['access', 'explain', '--config', CONFIG, '--token', 'other'], { env: TOKEN_ENV });
  t.match(other.stdout, /no rule is for this identity: it sees nothing/);
  t.match(other.stdout, /^sees \(0\):$/m);
});

t.test(
  'without its token in the environment the config refuses to load, naming the variable and the fix',
  async (t) => {
    const env = { ...process.env };
    delete env.MCP_CONFORMANCE_SUITE_TOKEN;
    const checked = await runCli(['check', '--config', CONFIG], { env });
    t.equal(checked.code, 1);
    t.match(
      checked.stdout + checked.stderr,
      'MCP_CONFORMANCE_SUITE_TOKEN is not set: run this config through scripts/conformance.sh --auth',
    );
  },
);

/** Each of `argsList` makes the script refuse with `message` (exit 2, "not run") before it starts anything. */
async function assertRefusedBeforeStart(t: Test, argsList: string[][], message: string): Promise<void> {
  for (const args of argsList) {
    const run = await runScript(args);
    t.equal(run.code, 2, args.join(' '));
    t.match(run.stderr, `conformance: ${message}`);
    t.match(run.stdout, /^0 passed, 0 failed \(not run: /m);
  }
}

t.test('--auth with --direct or --url is refused before anything starts', async (t) => {
  await assertRefusedBeforeStart(
    t,
    [
      ['--auth', '--direct'],
      ['--direct', '--auth'],
      ['--auth', '--url', 'http://127.0.0.1:1/mcp'],
    ],
    '--auth judges the host serving the conformance plugin: it does not combine with --direct or --url',
  );
});

t.test('--streamed-json is refused beside --direct, --url or --auth, before anything starts', async (t) => {
  await assertRefusedBeforeStart(
    t,
    [
      ['--direct', '--streamed-json'],
      ['--url', 'http://127.0.0.1:1/mcp', '--streamed-json'],
      ['--auth', '--streamed-json'],
    ],
    '--streamed-json is an upstream of its own, judged directly and through the host: give it first and alone',
  );
});

t.test('--auth without haproxy on PATH is refused, naming what to install', async (t) => {
  // A PATH with node and the base tools the script uses, and no haproxy.
  const bin = mkdtempSync(join(tmpdir(), 'mcp-host-conformance-bin-'));
  t.teardown(() => rmSync(bin, { recursive: true, force: true }));
  symlinkSync(process.execPath, join(bin, 'node'));
  const run = await runScript(['--auth'], { ...process.env, PATH: `${bin}:/bin` });
  t.equal(run.code, 2);
  t.match(
    run.stderr,
    "conformance: --auth needs haproxy on PATH, the proxy that adds the suite's token (install it: apt-get install haproxy)",
  );
});
