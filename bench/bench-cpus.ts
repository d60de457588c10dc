import { spawnSync } from 'node:child_process';

/**
 * `BENCH_CPUS` (taskset's list, e.g. `0`): run this bench script, and every
 * process it starts, on those CPUs alone. Called first by each script that
 * can be run on its own; a script started by one already pinned inherits
 * the pinning (and the variable that says it is done).
 *
 * Why: on a 2-vCPU virtual machine one call at a time is bimodal. With the
 * client and the server on one vCPU a call of the bench's plugin takes
 * about 40 µs; placed on two, every hand-over wakes the other vCPU and the
 * same call takes about 180 µs (docs/performance.md, "The fifth round").
 * Which a call gets is the kernel's choice, not the server's, and it is
 * not the same for the two servers compared nor from one round to the
 * next: unpinned, the rounds of one row read from 0.7x to 2x. On one CPU
 * the figures are the processes' own work and their garbage collection.
 */
export function runOnBenchCpus(): void {
  const cpus = process.env.BENCH_CPUS;
  if (!cpus || process.env.BENCH_CPUS_APPLIED === cpus) return;
  const pinned = spawnSync('taskset', ['-c', cpus, process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_CPUS_APPLIED: cpus },
  });
  if (pinned.error)
    throw new Error(`BENCH_CPUS=${cpus} runs the bench under taskset (util-linux): ${pinned.error.message}`);
  process.exit(pinned.status ?? 1);
}

/** What the header of a bench's output says of where it ran. */
export function cpusNote(): string {
  const cpus = process.env.BENCH_CPUS_APPLIED;
  return cpus ? `; BENCH_CPUS=${cpus}: every process on CPU ${cpus}` : '';
}

/**
 * Run `work` with this process, and every process it starts meanwhile, on
 * `cpus` alone, then give this process back the CPUs it had: `npm run bench`
 * reads its call rows pinned and unpinned in one run. Processes started
 * inside keep the pinning for their life.
 */
export async function whilePinned<T>(cpus: string, work: () => Promise<T>): Promise<T> {
  const had = affinity();
  setAffinity(cpus);
  try {
    return await work();
  } finally {
    setAffinity(had);
  }
}

/** This process's CPUs, as taskset lists them (`0,1`). */
function affinity(): string {
  const shown = taskset(['-c', '-p', String(process.pid)]);
  const list = /list:\s*(\S+)/.exec(shown)?.[1];
  if (!list) throw new Error(`taskset -c -p ${process.pid} printed no affinity list: ${shown}`);
  return list;
}

/** Every thread of this process on `cpus` (threads started later inherit it). */
function setAffinity(cpus: string): void {
  taskset(['-a', '-c', '-p', cpus, String(process.pid)]);
}

function taskset(args: string[]): string {
  const run = spawnSync('taskset', args, { encoding: 'utf8' });
  if (run.error || run.status !== 0) {
    throw new Error(
      `BENCH_CPUS pins the bench with taskset (util-linux): taskset ${args.join(' ')} failed: ${run.error?.message ?? run.stderr}`,
    );
  }
  return run.stdout;
}
