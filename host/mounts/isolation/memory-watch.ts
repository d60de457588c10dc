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
    const status = readProc(`/proc/${member}/status`);
    const rss = /^VmRSS:\s+(\d+) kB$/m.exec(status);
    if (rss) total += Number(rss[1]);
  }
  return total;
}

function processTree(pid: number): number[] {
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${tree[i]}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      const children = readProc(`/proc/${tree[i]}/task/${task}/children`).trim();
      if (children !== '') tree.push(...children.split(/\s+/).map(Number));
    }
  }
  return tree;
}

function readProc(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
