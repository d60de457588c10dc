// The resident-memory watch (host/mounts/isolation/memory-watch.ts) over this
// process and a child of its own: all of the tree counted, the limit passed
// reported once, a stopped watch silent. test/worker-isolation.test.ts and
// test/process-isolation.test.ts end runaway plugins with it; this file is
// quick enough for `npm run mutation`.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { residentKb, watchMemory } from '../../host/mounts/isolation/memory-watch.js';
import { until } from '../helpers/host.js';

const ownKb = () => process.memoryUsage().rss / 1024;

t.test('residentKb: the process and every process below it, from /proc', async (t) => {
  const alone = residentKb(process.pid);
  t.ok(alone > ownKb() * 0.8 && alone < ownKb() * 1.2, `this process alone: ${alone} kB, rss ${ownKb()} kB`);
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  t.teardown(() => child.kill());
  await until('the child to run', () => residentKb(child.pid!) > 10_000);
  // The tree less this process, against the child alone: this process's own growth cannot pass for the child.
  // The child first: a child still growing only adds to what the tree then counts.
  const childKb = residentKb(child.pid!);
  const below = residentKb(process.pid) - ownKb();
  t.ok(below > childKb * 0.8, `the tree counts the child: ${below} kB below this process, the child ${childKb} kB`);
  t.equal(residentKb(2 ** 22 + 1), 0, 'a process that does not exist');
});

t.test(
  'watchMemory: the limit passed is reported once, with the megabytes; a stopped watch says nothing',
  async (t) => {
    const reports: number[] = [];
    const quiet: number[] = [];
    const stoppedReports: number[] = [];
    watchMemory(process.pid, 1, (usedMb) => reports.push(usedMb));
    const under = watchMemory(process.pid, 1_000_000, (usedMb) => quiet.push(usedMb));
    const stop = watchMemory(process.pid, 1, (usedMb) => stoppedReports.push(usedMb));
    stop();
    await until('the limit to be reported', () => reports.length > 0);
    const usedMb = Math.round(residentKb(process.pid) / 1024);
    t.ok(Math.abs(reports[0]! - usedMb) < 20, `reported ${reports[0]} MB, measured ${usedMb} MB`);
    // Three more samples' time: a watch that reports again, or a stopped one that reports at all, would have.
    await sleep(350);
    t.same(reports.length, 1, 'once');
    t.same(quiet, [], 'under the limit: nothing');
    t.same(stoppedReports, [], 'stopped: nothing');
    under();
  },
);

t.test('watchMemory: the limit itself is not over it', async (t) => {
  const usedMb = Math.round(residentKb(process.pid) / 1024);
  const reports: number[] = [];
  const stop = watchMemory(process.pid, usedMb + 50, (mb) => reports.push(mb));
  await sleep(250);
  stop();
  t.same(reports, [], `${usedMb} MB under a limit of ${usedMb + 50}`);
});

t.test('watchMemory: at the limit is not over it, a megabyte more is, on a process that cannot grow', async (t) => {
  // A stopped process's resident memory holds still: the boundary can be measured exactly.
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  t.teardown(() => child.kill('SIGKILL'));
  await until('the child to run', () => residentKb(child.pid!) > 10_000);
  child.kill('SIGSTOP');
  await until('the child to stop', () => /^State:\s+T/m.test(readFileSync(`/proc/${child.pid}/status`, 'utf8')));
  const usedMb = Math.round(residentKb(child.pid!) / 1024);
  const atLimit: number[] = [];
  const over: number[] = [];
  const stopAtLimit = watchMemory(child.pid!, usedMb, (mb) => atLimit.push(mb));
  const stopOver = watchMemory(child.pid!, usedMb - 1, (mb) => over.push(mb));
  await until('a limit a megabyte under to be reported', () => over.length > 0);
  t.same(over, [usedMb], 'the megabytes measured');
  await sleep(350);
  t.same(atLimit, [], `${usedMb} MB is not over a limit of ${usedMb}`);
  stopAtLimit();
  stopOver();
});

t.test('watchMemory: a watch keeps no process alive', async (t) => {
  const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
  const before = timers();
  const stop = watchMemory(process.pid, 1_000_000, () => {});
  t.equal(timers(), before, 'its timer does not hold the event loop');
  stop();
});
