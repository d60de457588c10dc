// No process outlives the command that started it (DESIGN.md,
// "Containment"): `check`, `start` refusing its config, and a refused
// reload end every stdio child they started, with its whole process group,
// whatever the child does. The child here never answers, ignores SIGTERM,
// and starts a grandchild that ignores it too; each writes its pid down.
import { join } from 'node:path';
import t from 'tap';
import { runCli, startStdioHost } from './helpers/host.js';
import { makeWorkspace, type Workspace } from './helpers/packages.js';
import { assertNoneLeft, isAlive, pidsIn, processesIn } from './helpers/processes.js';
import { START_MS } from './helpers/timing.js';

/** Mute and deaf: writes its pid and its grandchild's to the file it is given, then only waits. */
const STUBBORN_CHILD = `
const { appendFileSync } = require('node:fs');
const { spawn } = require('node:child_process');
const pidFile = process.argv[2];
process.on('SIGTERM', () => {});
const grandchild = spawn(process.execPath, ['-e', 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000)'], { stdio: 'ignore' });
appendFileSync(pidFile, process.pid + '\\n' + grandchild.pid + '\\n');
setInterval(() => {}, 1000);
`;

/**
 * An mcp-host plugin refused once the stubborn child is running: its
 * create() waits for the child's pids, then throws, so the host refuses the
 * config while that child is still being started.
 */
const REFUSED_PLUGIN = `
import { existsSync, readFileSync } from 'node:fs';
export default {
  async create({ options }) {
    const started = () => existsSync(options.pidFile) && readFileSync(options.pidFile, 'utf8').split('\\n').length > 2;
    while (!started()) await new Promise((resolve) => setTimeout(resolve, 20));
    throw new Error('refused on purpose, with a stdio child starting');
  },
};
`;

function writeFixtures(ws: Workspace): {
  stubborn: Record<string, unknown>;
  refused: Record<string, unknown>;
  pidFile: string;
} {
  const pidFile = join(ws.dir, 'pids');
  const script = ws.writeFile('stubborn.cjs', STUBBORN_CHILD);
  ws.writePackage(
    'node_modules/@test/mcp-refused',
    { name: '@test/mcp-refused', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': {} },
    { 'index.js': REFUSED_PLUGIN },
  );
  return {
    stubborn: { command: process.execPath, args: [script, pidFile], prefix: 'stubborn' },
    refused: { package: '@test/mcp-refused', prefix: 'refused', options: { pidFile } },
    pidFile,
  };
}

// Each case waits out upstreams.startTimeoutMs for the child that never answers: they run side by side.
t.jobs = 3;

t.test('check with a stdio mount that never answers leaves no process behind', { buffered: true }, async (t) => {
  const ws = makeWorkspace(t);
  const { stubborn, pidFile } = writeFixtures(ws);
  const config = ws.writeConfig({
    plugins: [stubborn],
    upstreams: { startTimeoutMs: START_MS },
    reload: { watch: false },
  });
  const checked = await runCli(['check', '--config', config]);
  t.equal(checked.code, 1, 'check exits 1');
  t.match(checked.stdout, `it did not finish connecting within ${START_MS} ms (upstreams.startTimeoutMs)`);
  t.ok(pidsIn(pidFile).length >= 2, 'the child and its grandchild ran');
  await assertNoneLeft(t, () => processesIn(ws.dir), 'every child check started, and their groups, are gone');
});

t.test('start refusing its config leaves no process behind', { buffered: true }, async (t) => {
  const ws = makeWorkspace(t);
  const { stubborn, refused, pidFile } = writeFixtures(ws);
  const config = ws.writeConfig({
    plugins: [stubborn, refused],
    upstreams: { startTimeoutMs: START_MS },
    reload: { watch: false },
  });
  const started = await runCli(['start', '--config', config]);
  t.equal(started.code, 1, 'start exits 1');
  t.match(started.stderr, 'create() threw: refused on purpose, with a stdio child starting');
  t.ok(pidsIn(pidFile).length >= 2, 'the child and its grandchild ran');
  await assertNoneLeft(t, () => processesIn(ws.dir), 'every child start started, and their groups, are gone');
});

t.test('a refused reload ends the children it started; the host keeps serving', { buffered: true }, async (t) => {
  const ws = makeWorkspace(t);
  const { stubborn, refused, pidFile } = writeFixtures(ws);
  const config = ws.writeConfig({ plugins: [], reload: { watch: false } });
  const host = await startStdioHost(t, config);
  ws.writeConfig({ plugins: [stubborn, refused], upstreams: { startTimeoutMs: START_MS }, reload: { watch: false } });
  const reload = await runCli(['reload', '--config', config]);
  t.equal(reload.code, 1, 'mcp-host reload exits 1');
  t.match(reload.stderr, 'create() threw: refused on purpose, with a stdio child starting');
  t.ok(pidsIn(pidFile).length >= 2, 'the child and its grandchild ran');
  const left = () => processesIn(ws.dir).filter((pid) => pid !== host.pid);
  await assertNoneLeft(t, left, 'every child the refused reload started, and their groups, are gone');
  t.ok(isAlive(host.pid), 'the host itself still runs');
  t.same((await host.client.listTools()).tools, [], 'serving its catalogue as it was');
});
