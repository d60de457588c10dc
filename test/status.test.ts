// `mcp-host status`: what the hosts running a config on this machine serve,
// asked over their control channel as `mcp-host reload` reaches them. Two
// hosts run one config here (one over stdio, one over HTTP with 2025-era
// and 2026-07-28 clients), one of their mounts down; the command is run as
// a user runs it, and with no host running it says so and names the fix.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { runCli, startHttpHost, startStdioHost } from './helpers/host.js';
import { makeWorkspace } from './helpers/packages.js';
import { writeZoo } from './helpers/zoo.js';
import type { HostStatus } from '../host/host-status.js';

t.setTimeout(120_000);

t.test('mcp-host status reports every local host of a config, as text and as JSON', async (t) => {
  const ws = makeWorkspace(t);
  writeZoo(ws);
  // A control directory of the test's own: the hosts of other tests are not this one's.
  const runtimeDir = join(ws.dir, 'run');
  mkdirSync(runtimeDir, { mode: 0o700 });
  const env = { ...process.env, XDG_RUNTIME_DIR: runtimeDir, MCP_HOST_HTTP_TOKENS: undefined };
  const config = ws.writeConfig({
    reload: { watch: false },
    plugins: [{ package: '@zoo/good' }, { command: 'zoo-no-such-command', prefix: 'missing' }],
  });
  const status = (...args: string[]) => runCli(['status', '--config', config, ...args], { env });

  const none = await status();
  t.equal(none.code, 1, 'no host runs the config');
  t.equal(
    none.stderr,
    `mcp-host: ${config}: no running mcp-host serves this config. Fix: start one (mcp-host start --config ${config}); a host started from another config file answers only for that file (pass it with --config).\n`,
  );
  const missing = await runCli(['status', '--config', join(ws.dir, 'missing.config.js')], { env });
  t.equal(missing.code, 1);
  t.match(
    missing.stderr,
    'missing.config.js: the config file does not exist, so no host can be running it. Fix: name the config file the host was started with: mcp-host status --config PATH.',
  );
  const misplaced = await runCli(['check', '--json', '--config', config], { env });
  t.equal(misplaced.code, 2);
  t.match(misplaced.stderr, 'mcp-host: --json goes with "list" or "status"');

  const stdio = await startStdioHost(t, config, { env });
  const http = await startHttpHost(t, config, { env });
  for (let i = 0; i < 2; i++) {
    const legacy = new Client({ name: `legacy-${i}`, version: '1.0.0' });
    await legacy.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    t.teardown(() => legacy.close());
  }
  // A 2026-07-28 client holds no session: it is not counted.
  const modern = new Client(
    { name: 'modern', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await modern.connect(new StreamableHTTPClientTransport(new URL(http.url)));
  t.teardown(() => modern.close());
  await modern.listTools();

  const text = await status();
  t.equal(text.code, 0, text.stderr);
  const down =
    '  missing (zoo-no-such-command, child): down: could not start "zoo-no-such-command": spawn zoo-no-such-command ENOENT. ' +
    `Fix: install "zoo-no-such-command" or put it on the PATH the host runs with (or give its absolute path), and check the entry's cwd "${ws.dir}".\n`;
  for (const [pid, sessions, serving] of [
    [stdio.pid, '1 session \\(1 active, 0 idle\\)', 'stdio'],
    [http.child.pid, '2 sessions \\(2 active, 0 idle\\)', http.url],
  ] as const) {
    t.match(
      text.stdout,
      new RegExp(
        `mcp-host \\(pid ${pid}, ${config}\\): generation 1, config [0-9a-f]{12}; up \\d+ (s|min( \\d+ s)?); ${sessions}; mounts 1 up, 1 down\n` +
          `  serving: ${serving}\n` +
          '  good \\(@zoo/good 1\\.0\\.0, none\\): up, \\d+ tools?',
      ),
      `the host with pid ${pid} is listed`,
    );
  }
  t.equal(text.stdout.split(down).length, 3, 'each host says why its mount is down, and the fix');

  const json = await status('--json');
  t.equal(json.code, 0, json.stderr);
  const { hosts } = JSON.parse(json.stdout) as { hosts: { pid: number; configFile: string; status: HostStatus }[] };
  t.same(hosts.map((host) => host.pid).sort(), [stdio.pid, http.child.pid].sort());
  const byHttp = hosts.find((host) => host.pid === http.child.pid)!;
  t.match(byHttp, {
    configFile: config,
    status: {
      generation: 1,
      configHash: /^[0-9a-f]{12}$/,
      uptimeSeconds: Number,
      sessions: 2,
      activeSessions: 2,
      idleSessions: 0,
      serving: [http.url],
      mounts: [
        {
          name: 'good',
          plugin: '@zoo/good',
          state: 'up',
          isolation: 'none',
          version: '1.0.0',
          served: { tools: Number },
        },
        { name: 'missing', plugin: 'zoo-no-such-command', state: 'down', cause: /ENOENT/, fix: /install/ },
      ],
    },
  });
  t.equal(hosts[0]!.status.configHash, hosts[1]!.status.configHash, 'one config, one hash');
});

t.test(
  'mcp-host status tells the truth: a refused reload, a version on disk not yet served, idle sessions',
  async (t) => {
    const ws = makeWorkspace(t);
    writeZoo(ws);
    const runtimeDir = join(ws.dir, 'run');
    mkdirSync(runtimeDir, { mode: 0o700 });
    // A session counts as active for two seconds here (a minute by default): the idle one is told apart without waiting.
    const env = {
      ...process.env,
      XDG_RUNTIME_DIR: runtimeDir,
      MCP_HOST_HTTP_TOKENS: undefined,
      MCP_HOST_STATUS_ACTIVE_MS: '2000',
    };
    const config = ws.writeConfig({ reload: { watch: false }, plugins: [{ package: '@zoo/good' }] });
    const http = await startHttpHost(t, config, { env });
    const idle = new Client({ name: 'idle', version: '1.0.0' });
    await idle.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    t.teardown(() => idle.close());
    const status = async () => {
      const run = await runCli(['status', '--config', config], { env });
      t.equal(run.code, 0, run.stderr);
      return run.stdout;
    };

    // An upgrade installed while the host serves: the served version and the one on disk both show.
    const manifest = join(ws.dir, 'node_modules/@zoo/good/package.json');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('"version": "1.0.0"', '"version": "1.1.0"'));
    // A config that cannot load: the reload is refused, and the old generation keeps serving.
    writeFileSync(config, 'export default { plugins: [ { package: "@zoo/good" } ], nonsense: true };\n');
    const refused = await runCli(['reload', '--config', config], { env });
    t.equal(refused.code, 1, 'the reload is refused');

    // Past the active window, a client that calls again is active; the one that sent nothing since is idle.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const active = new Client({ name: 'active', version: '1.0.0' });
    await active.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    t.teardown(() => active.close());
    // It keeps calling until the status is read, however long the command takes to start on a loaded machine.
    let reading = true;
    const calling = (async () => {
      while (reading) await active.listTools();
    })();
    const text = await status();
    reading = false;
    await calling;
    t.match(text, '2 sessions (1 active, 1 idle)');
    t.match(text, '  good (@zoo/good 1.0.0 (1.1.0 on disk: reload to serve it), none): up, 1 tool\n');
    t.match(
      text,
      / {2}last reload \(mcp-host reload\) at \d{4}-\d\d-\d\dT[\d:.]+Z: REFUSED, generation 1 keeps serving:\n {4}- .*nonsense/,
      'the refusal and its reason',
    );

    // Fixed, and reloaded: applied, and the version on disk is the one served.
    writeFileSync(config, 'export default { reload: { watch: false }, plugins: [ { package: "@zoo/good" } ] };\n');
    const applied = await runCli(['reload', '--config', config], { env });
    t.equal(applied.code, 0, applied.stderr);
    const after = await status();
    t.match(after, /last reload \(mcp-host reload\) at \S+: applied, generation 2 serving/);
    t.match(after, '  good (@zoo/good 1.1.0, none): up');
    t.notMatch(after, 'on disk');
  },
);
