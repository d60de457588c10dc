import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { dirname, sep } from 'node:path';
import { findBubblewrap } from '../../loader/sandbox-available.js';
import type { Grants } from '../../loader/types.js';

/**
 * The system's own files a program needs to run at all: the dynamic
 * linker and shared libraries, and the Node install the host runs on (its
 * prefix, such as /usr or ~/.nvm/versions/node/v20.20.2). No /etc, no
 * home directory: nothing the operator keeps there is in view.
 */
const SYSTEM_DIRS = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  dirname(dirname(realpathSync(process.execPath))),
];
/** env(1), in the system's files every sandbox sees: what starts a program with a variable unset. */
export const ENV = '/usr/bin/env';
/** When the network is granted, what name resolution and TLS read. */
const NETWORK_FILES = ['/etc/resolv.conf', '/etc/hosts', '/etc/nsswitch.conf', '/etc/ssl', '/etc/ca-certificates'];

/**
 * `bwrap` arguments that run a program inside an OS sandbox (Linux,
 * bubblewrap): its own PID namespace (it sees and can signal only its own
 * processes: not the host, not other plugins), IPC and UTS namespaces, and
 * a mount namespace holding a read-only view of the system's files and of
 * `readable`, a private /tmp and /dev, and its own /proc (so
 * `/proc/<pid>/environ` of the host does not exist for it); what the
 * entry grants to write is bound writable, and without `net` it has no
 * network (a namespace of its own holding only a loopback). All
 * capabilities are dropped (the host may run as root), and the sandbox
 * ends with the host. It starts in `cwd` (one of `readable`); the command
 * to run follows.
 */
export function sandboxArguments(readable: readonly string[], grants: Grants, cwd: string): string[] {
  const view = [...SYSTEM_DIRS, ...(grants.net ? NETWORK_FILES : [])].filter((path) => existsSync(path));
  // A readable path that is a symlink (a dependency as pnpm and npm workspaces install it) is shown as the
  // same link to its real path, bound too: bound in its place, it would be a plain directory, and Node would
  // look for that package's own dependencies beside it rather than beside its real path, where the installer
  // put them. A link inside a directory already bound is seen there as it is.
  const links = readable.flatMap((path) => {
    const real = linkTarget(path);
    return real ? [[path, real] as const] : [];
  });
  const linked = new Set(links.map(([path]) => path));
  const dirs = [...new Set([...readable.filter((path) => !linked.has(path)), ...links.map(([, real]) => real)])];
  const bound = [...view, ...dirs, ...grants.read, ...grants.write];
  return [
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(grants.net ? [] : ['--unshare-net']),
    '--die-with-parent',
    // Its own session: it cannot push input into a terminal the host holds (TIOCSTI).
    '--new-session',
    '--cap-drop',
    'ALL',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    // Bound after /tmp is made private, so that a granted path under /tmp is still seen.
    '--tmpfs',
    '/tmp',
    // The directory it starts in exists even where it is not in view (a server package's, the config's):
    // empty then, but for what is bound inside it.
    '--dir',
    cwd,
    ...[...view, ...dirs, ...grants.read].flatMap((path) => ['--ro-bind-try', path, path]),
    ...grants.write.flatMap((path) => ['--bind-try', path, path]),
    ...links
      .filter(([path]) => !bound.some((dir) => path.startsWith(dir + sep)))
      .flatMap(([path, real]) => ['--symlink', real, path]),
    '--chdir',
    cwd,
    '--',
  ];
}

/** The real path of `path` if it is a symlink that leads somewhere (existsSync follows it). */
function linkTarget(path: string): string | undefined {
  const isLink = lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
  return isLink && existsSync(path) ? realpathSync(path) : undefined;
}

/**
 * `command args` as bubblewrap runs it, starting in `cwd`: it sees `cwd`
 * (unless `seesCwd` is false), `readable` and what its entry grants to read,
 * read-only, besides the system's files. A `sandbox: true` command sees its
 * cwd; a plugin's process, its package and dependencies; a server package,
 * its package and dependencies, and of the config's directory it starts in
 * only what its entry grants: never the config file.
 */
export function sandboxedCommand(
  command: string,
  args: readonly string[],
  cwd: string,
  grants: Grants,
  readable: readonly string[] = [],
  { seesCwd = true }: { seesCwd?: boolean } = {},
): [string, string[]] {
  const inView = seesCwd ? [cwd, ...readable] : readable;
  return [findBubblewrap() ?? 'bwrap', [...sandboxArguments(inView, grants, cwd), command, ...args]];
}
