import { readdirSync, readFileSync } from 'node:fs';

/** How often a plugin process's memory is measured, in ms. */
const SAMPLE_EVERY_MS = 100;

/**
 * Watch the resident memory of a process and every process below it (a
 * sandbox's own init and the plugin under it, what a plugin granted
 * child processes starts): all of it, not only a V8 heap, so that a
 * plugin filling `Buffer`s or native memory is caught too. `over` is
 * called once, with the megabytes measured, the first time the total
 * passes `limitMb`. Measured from /proc (Linux); elsewhere the V8 heap
 * limit alone holds (permissions.ts). Returns the function that stops it.
 */
export function watchMemory(pid: number, limitMb: number, over: (usedMb: number) => void): () => void {
  const timer = setInterval(() => {
    const usedMb = Math.round(residentKb(pid) / 1024);
    if (usedMb <= limitMb) return;
    clearInterval(timer);
    over(usedMb);
  }, SAMPLE_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** Resident kB of `pid` and its descendants; 0 for what has exited meanwhile or where there is no /proc. */
export function residentKb(pid: number): number {
  let total = 0;
  for (const member of processTree(pid)) {
    let status: string;
    try {
      status = readFileSync(`/proc/${member}/status`, 'utf8');
    } catch {
      continue; // it has exited meanwhile
    }
    // At a line's start: the status's first line is `Name:\t` and the process's name, which the plugin sets
    // (process.title); named "VmRSS: 1 kB", it would otherwise be read for its memory. (/proc escapes a
    // newline in the name: the name cannot start a line of its own.)
    const rss = status.match(/^VmRSS:\s+(\d+)/m);
    // A zombie (exited, not yet waited for by its parent) has no VmRSS line: it holds no memory.
    if (rss) total += Number(rss[1]);
  }
  return total;
}

/**
 * `pid` and every process below it: the children of each of its threads (what
 * a worker thread starts is listed under that thread, not the main one), and theirs.
 */
function processTree(pid: number): number[] {
  const tree = [pid];
  // for…of goes on to the children pushed while it walks.
  for (const member of tree) {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${member}/task`);
    } catch {
      continue; // it has exited meanwhile
    }
    for (const task of tasks) {
      let children: string;
      try {
        children = readFileSync(`/proc/${member}/task/${task}/children`, 'utf8');
      } catch {
        continue; // this thread has ended since it was listed: the other threads' children still count
      }
      // The children's pids, each followed by a space.
      for (const [child] of children.matchAll(/\d+/g)) tree.push(Number(child));
    }
  }
  return tree;
}
