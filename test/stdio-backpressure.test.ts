// Stdio backpressure (DESIGN.md, "Containment"): a client that stops
// reading the host's stdout while it keeps sending cannot grow the host; the
// host stops reading stdin until stdout drains, and loses nothing. The host
// is a child process driven over its raw pipes. STDIO_FLOOD_REQUESTS sets
// how many requests are sent (default 200,000).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import t from 'tap';
import { CLI, jsonRpcLine, rawInitializeLine, until } from './helpers/host.js';
import { makeWorkspace } from './helpers/packages.js';
import { EVENT_MS } from './helpers/timing.js';

t.test('a stdio client that stops reading cannot grow the host', async (t) => {
  const ws = makeWorkspace(t);
  const config = ws.writeConfig({ reload: { watch: false }, plugins: [] });
  const requests = Number(process.env.STDIO_FLOOD_REQUESTS ?? 200_000);
  const child = spawn(process.execPath, [CLI, 'start', '--config', config], {
    env: { ...process.env, MCP_HOST_LOG_LEVEL: 'warn' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  t.teardown(() => child.kill('SIGKILL'));
  let answers = 0;
  let partial = '';
  const countAnswers = (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop()!;
    answers += lines.length;
  };
  child.stdout.on('data', countAnswers);
  child.stdin.write(rawInitializeLine('stops-reading'));
  await until('the initialize answer', () => answers === 1);
  child.stdin.write(jsonRpcLine({ method: 'notifications/initialized' }));
  // From here on the client reads nothing while it sends every request.
  child.stdout.off('data', countAnswers);
  child.stdout.pause();
  const rssOf = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024;
  // What the host holds before the flood: its code and the SDK (77 MiB run as users run it), plus
  // what tap's hooks load into every child process (about 60 MiB more).
  const before = rssOf();
  const chunk = Array.from({ length: 1000 }, (_, i) => jsonRpcLine({ id: i + 1, method: 'ping' })).join('');
  for (let sent = 0; sent < requests; sent += 1000) child.stdin.write(chunk);
  // The host stops reading once its stdout is backed up: what it has not
  // read stays in this process (and the pipe), so its own memory levels off.
  let peak = 0;
  let unread = child.stdin.writableLength;
  let steady = 0;
  while (steady < 10) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    peak = Math.max(peak, rssOf());
    steady = child.stdin.writableLength === unread ? steady + 1 : 0;
    unread = child.stdin.writableLength;
    if (unread === 0) break;
  }
  t.ok(unread > 0, `the host stopped reading with ${(unread / 1024 / 1024).toFixed(1)} MiB unread`);
  // The flood's own cost is what must stay small, so that a host run as users run it (77 MiB idle) stays
  // under 200 MiB; the absolute figure under tap carries tap's own modules. Measured with coverage on a
  // quiet machine: 40-62 MiB, once 92 on a fresh clone (what V8 keeps of the requests it read before
  // pausing, and has not given back); without the backpressure it grew by 1.9 GiB.
  t.ok(
    peak - before < 100,
    `host RSS peaked at ${peak.toFixed(0)} MiB (${before.toFixed(0)} MiB before the flood) while its client did not read`,
  );
  // Reading again, every request is answered: nothing was dropped.
  child.stdout.on('data', countAnswers);
  child.stdout.resume();
  // 200,000 answers written through a pipe the test reads: three times the suite's bound for one event.
  await until(`all ${requests} answers`, () => answers === requests + 1, 3 * EVENT_MS);
});
