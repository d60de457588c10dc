/**
 * Run by `npm test` after tap: fails naming every process the suite started
 * that is still alive once it is over (a host, a plugin's child, a Redis).
 * They are found by what they carry, whatever their parent now is:
 *
 * - a working directory in the suite's workspaces (`.tmp/`): plugin children
 *   and what they started;
 * - a command line naming this checkout's build or workspaces: hosts,
 *   whatever environment a test gave them;
 * - a test process's environment (TAP_CHILD_ID) and a working directory in
 *   this checkout: Redis, HAProxy, fixture servers.
 *
 * This process and those it runs under (npm, its shell) are not counted.
 * What it finds is killed after being named, so the next run starts clean.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './helpers/packages.js';
import { isAlive, processTable } from './helpers/processes.js';

const WORKSPACES = join(REPO_ROOT, '.tmp');
const BUILD = join(REPO_ROOT, 'dist');

function isInside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(`${dir}/`);
}

function startedByTheSuite(pid: number): boolean {
  try {
    const cwd = readlinkSync(`/proc/${pid}/cwd`).replace(/ \(deleted\)$/, '');
    const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    if (isInside(cwd, WORKSPACES)) return true;
    if (commandLine.some((arg) => arg.includes(`${BUILD}/`) || arg.includes(`${WORKSPACES}/`))) return true;
    const environment = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    return isInside(cwd, REPO_ROOT) && environment.some((entry) => entry.startsWith('TAP_CHILD_ID='));
  } catch {
    return false; // gone meanwhile, or another user's
  }
}

const table = processTable();
const ancestors = new Set<number>();
for (let pid = process.pid; pid > 1; pid = table.get(pid)?.ppid ?? 0) ancestors.add(pid);
const left = [...table.keys()].filter((pid) => !ancestors.has(pid) && isAlive(pid) && startedByTheSuite(pid));

if (left.length === 0) {
  console.log(`processes: none of the suite's is left (${table.size} running on this machine)`);
} else {
  console.error(`processes: ${left.length} started by the suite outlived it:`);
  for (const pid of left) {
    const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    console.error(`- pid ${pid}, parent ${table.get(pid)?.ppid}: ${commandLine}`);
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  console.error(
    'Fix: find the test that started it (its workspace or config is in the command line) and end it there.',
  );
  process.exitCode = 1;
}
