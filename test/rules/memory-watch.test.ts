// The resident-memory watch (host/mounts/isolation/memory-watch.ts) over this
// process and a child of its own: all of the tree counted (a zombie in it, a
// thread gone meanwhile, a process named to pass for its memory), the limit
// passed reported once, a stopped watch silent. test/worker-isolation.test.ts and
// test/process-isolation.test.ts end runaway plugins with it; this file is
// quick enough for `npm run mutation`.
import { spawn } from 'node:child_process';
import fs, { readFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { residentKb, watchMemory } from '../../host/mounts/isolation/memory-watch.js';
import { until } from '../helpers/host.js';

const ownKb = () => process.memoryUsage().rss / 1024;
/** A pid above the kernel's greatest (2^22): no process or thread has it. */
const NO_PID = 2 ** 22 + 1;
/** The lines of /proc/<pid>/status that start with `field:`, as they are. */
const statusLines = (pid: number, field: string) =>
  readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith(`${field}:`));

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
  t.equal(residentKb(NO_PID), 0, 'a process that does not exist');
});

t.test('residentKb: a process named "VmRSS: 1 kB" is measured by its memory, not by its name', async (t) => {
  // A plugin names its own process (process.title), and /proc/<pid>/status begins with that name: "Name:\tVmRSS: 1 kB".
  const child = spawn(process.execPath, ['-e', "process.title = 'VmRSS: 1 kB'; setInterval(() => {}, 1000)"], {
    stdio: 'ignore',
  });
  t.teardown(() => child.kill());
  await until('the child to name itself', () => statusLines(child.pid!, 'Name').includes('Name:\tVmRSS: 1 kB'));
  const [rss] = statusLines(child.pid!, 'VmRSS');
  const childKb = residentKb(child.pid!);
  t.ok(childKb > 10_000, `the child counted by its own VmRSS line (${rss}): ${childKb} kB, not 1`);
});

t.test('residentKb: a zombie below (exited, not waited for) counts nothing and breaks nothing', async (t) => {
  // The shell starts `sleep 0` and becomes `sleep 100`, which never waits for it: it stays a zombie below.
  const sleeper = spawn('sh', ['-c', 'sleep 0 & exec sleep 100'], { stdio: 'ignore' });
  t.teardown(() => sleeper.kill('SIGKILL'));
  const zombies = () =>
    readFileSync(`/proc/${sleeper.pid}/task/${sleeper.pid}/children`, 'utf8')
      .split(' ')
      .filter((pid) => pid !== '' && statusLines(Number(pid), 'State')[0]?.startsWith('State:\tZ'));
  await until(
    'the zombie below the sleeper',
    () => statusLines(sleeper.pid!, 'Name')[0] === 'Name:\tsleep' && zombies().length === 1,
  );
  t.same(statusLines(Number(zombies()[0]), 'VmRSS'), [], 'a zombie has no VmRSS line');
  // Just after its exec `sleep` may still be paging in its libraries: a reading counts once its own VmRSS is the
  // same before and after it, so what it measured is that VmRSS and nothing else.
  const sleeperKb = () => Number(/\d+/.exec(statusLines(sleeper.pid!, 'VmRSS')[0]!)![0]);
  let reading = { before: 0, tree: 0, after: -1 };
  await until("a reading while the sleeper's memory holds still", () => {
    reading = { before: sleeperKb(), tree: residentKb(sleeper.pid!), after: sleeperKb() };
    return reading.before === reading.after;
  });
  t.equal(reading.tree, reading.before, `the sleeper's own ${reading.before} kB, nothing for the zombie`);
});

t.test(
  "residentKb: a thread that ends between the listing and its children read hides no other thread's children",
  async (t) => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    t.teardown(() => child.kill());
    await until('the child to run', () => residentKb(child.pid!) > 10_000);
    // This process's threads listed with one more before them, ended when its children are read: no such thread.
    // (The module's `readdirSync` is node:fs's export, which syncBuiltinESMExports sets to fs.readdirSync.)
    const tasks = `/proc/${process.pid}/task`;
    const readdirSync = fs.readdirSync;
    fs.readdirSync = ((path: fs.PathLike, ...options: unknown[]) =>
      path === tasks
        ? [String(NO_PID), ...readdirSync(path)]
        : Reflect.apply(readdirSync, fs, [path, ...options])) as typeof fs.readdirSync;
    syncBuiltinESMExports();
    let childKb: number;
    let below: number;
    try {
      t.same(fs.readdirSync(tasks).slice(0, 2), [String(NO_PID), String(process.pid)], 'the ended thread listed first');
      childKb = residentKb(child.pid!);
      below = residentKb(process.pid) - ownKb();
    } finally {
      fs.readdirSync = readdirSync;
      syncBuiltinESMExports();
    }
    t.ok(below > childKb * 0.8, `the child still counted: ${below} kB below this process, the child ${childKb} kB`);
  },
);

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
