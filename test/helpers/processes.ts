/**
 * The processes a test started, as Linux's /proc shows them: which are
 * alive, which descend from a pid, and the pids a test fixture wrote down.
 *
 *   const everyone = descendants(host.pid);
 *   await host.close();
 *   await until('every process the host started to exit', () => everyone.every((pid) => !isAlive(pid)));
 */
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type { Test } from 'tap';
import { until } from './host.js';
import { EXIT_MS } from './timing.js';

/** pid → [parent pid, state], from /proc (Linux). */
export function processTable(): Map<number, { ppid: number; state: string }> {
  const table = new Map<number, { ppid: number; state: string }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      table.set(Number(entry), { ppid: Number(ppid), state: state! });
    } catch {
      // it exited while the table was read
    }
  }
  return table;
}

/** Every process below `root`. */
export function descendants(root: number): number[] {
  const table = processTable();
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const [pid, { ppid }] of table) {
      if (ppid === parent) {
        found.push(pid);
        queue.push(pid);
      }
    }
  }
  return found;
}

/** Running, not a zombie waiting to be reaped. */
export function isAlive(pid: number): boolean {
  const state = processTable().get(pid)?.state;
  return state !== undefined && state !== 'Z' && state !== 'X';
}

/** The pids a fixture appended to `file`, one a line. */
export function pidsIn(file: string): number[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number) : [];
}

/**
 * The live processes working in `dir` or named with it: their working
 * directory is inside it, or their command line mentions it. A process a
 * test's command started there is found this way even when it was started
 * too late to write its pid anywhere.
 */
export function processesIn(dir: string): number[] {
  const found: number[] = [];
  for (const pid of processTable().keys()) {
    if (pid === process.pid || !isAlive(pid)) continue;
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`).replace(/ \(deleted\)$/, '');
      const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cwd === dir || cwd.startsWith(`${dir}/`) || commandLine.includes(dir)) found.push(pid);
    } catch {
      // it exited meanwhile, or is not ours to read
    }
  }
  return found;
}

/**
 * Assert that no process is left of those `alive` lists, waiting for that
 * first (a signalled process takes a moment to go): the assertion lists any
 * still there once the wait is over, and those are then killed, so that a
 * failing test leaves nothing running either.
 */
export async function assertNoneLeft(t: Pick<Test, 'same'>, alive: () => number[], message: string): Promise<void> {
  await until(message, () => alive().length === 0, EXIT_MS).catch(() => {});
  const left = alive();
  t.same(left, [], message);
  for (const pid of left) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

/** Assert that every one of `pids` has exited (see assertNoneLeft). */
export function assertExited(t: Pick<Test, 'same'>, pids: readonly number[], message: string): Promise<void> {
  return assertNoneLeft(t, () => pids.filter((pid) => isAlive(pid)), message);
}
