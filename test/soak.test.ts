// The soak (bench/soak.ts, `npm run soak`), short: clients calling tools over
// HTTP while the config is reloaded every second (a plugin added, removed,
// upgraded), the external child is killed every few seconds and an
// in-process plugin faults from a timer every two. No call may fail except
// to the mount that was removed (as gone), killed (while it was down) or
// faulted, every client's final tools/list must be the host's, and the live
// heap must stay flat.
import t from 'tap';
import { formatSoak, MAX_HEAP_GROWTH_MIB, runSoak } from '../bench/soak.js';

t.test('a short soak under reloads and kills', async (t) => {
  const clients = 10;
  const report = await runSoak({ seconds: 12, clients, reloadEveryMs: 1000, killEveryMs: 2500, faultEveryMs: 2000 });
  t.comment(formatSoak(report).text);
  t.same(report.unexpectedFailures, {}, 'no call failed but those to a removed or killed mount');
  t.equal(report.reloads.refused, 0, 'no reload was refused');
  t.ok(
    report.reloads.total >= 6 && report.reloads.upgraded >= 2,
    `${report.reloads.total} reloads, ${report.reloads.upgraded} upgrades`,
  );
  t.ok(report.kills >= 2, `the child was killed ${report.kills} times`);
  t.ok(report.faults >= 2, `faulty faulted ${report.faults} times`);
  t.ok(report.calls >= 200, `${report.calls} calls`);
  t.ok(
    report.notifications >= clients * report.reloads.total,
    `${report.notifications} list_changed reached the clients`,
  );
  t.equal(report.finalListsEqual, clients, "every client's final tools/list is the host's");
  // The README's "memory is flat": once warm, the live heap after a full GC hardly grows (see heapGrowthMiB).
  t.ok(
    report.memoryMiB.heapGrowth <= MAX_HEAP_GROWTH_MIB,
    `live heap grew ${report.memoryMiB.heapGrowth} MiB once warm: ${report.memoryMiB.heapAfterGc.join(', ')} MiB`,
  );
  for (const name of ['child.echo', 'churn.echo', 'faulty.echo', 'steady.echo', 'steadyproc.echo', 'steadybox.echo']) {
    t.ok(report.finalTools.includes(name), `the final catalogue has ${name}`);
  }
});
