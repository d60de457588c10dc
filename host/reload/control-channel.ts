import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readdirSync, realpathSync, unlinkSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HostError } from '../errors.js';
import type { Logger } from '../log.js';
import type { HostStatus } from '../host-status.js';
import type { HostRuntime } from '../runtime.js';
import type { Reloader, ReloadOutcome } from './reloader.js';

/**
 * How `mcp-host reload` reaches the hosts running a config: a unix domain
 * socket per host process, never a network port. The sockets live in a
 * directory only this user can enter (`$XDG_RUNTIME_DIR/mcp-host`, else
 * `<tmpdir>/mcp-host-<uid>`, mode 0700, checked before use) and are mode
 * 0600 themselves, so only the same user on the same machine can ask.
 *
 * A socket is named `<hash of the config's real path>-<pid>.sock`: the
 * command finds every host serving that config (several stdio clients may
 * each have started one) without reading the config.
 *
 * The protocol is one JSON line each way: `{"command":"reload"}` (with
 * `"plugin":"NAME"` to start that mount afresh: `mcp-host reload --plugin`),
 * answered with a `HostReply` once the reload finished or was refused, or
 * `{"command":"status"}` (`mcp-host status`), answered with a
 * `HostStatusReply` at once.
 */

export interface HostReply {
  pid: number;
  configFile: string;
  outcome: ReloadOutcome;
}

export interface HostStatusReply {
  pid: number;
  configFile: string;
  status: HostStatus;
}

/** What each command of the control channel is answered with. */
export interface ControlReplies {
  reload: HostReply;
  status: HostStatusReply;
}

export type ControlCommand = keyof ControlReplies;

/** What a request may be at most: anything longer is not the command. */
const MAX_REQUEST_BYTES = 4096;
/** How long a connection may take to send its command: one that sends nothing is not kept. */
const COMMAND_TIMEOUT_MS = 5_000;

/** The directory holding this user's control sockets, created private if missing. */
function controlDirectory(): string {
  const runtimeDir = process.env.XDG_RUNTIME_DIR;
  const dir = runtimeDir ? join(runtimeDir, 'mcp-host') : join(tmpdir(), `mcp-host-${process.getuid?.() ?? 'user'}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = lstatSync(dir);
  const uid = process.getuid?.();
  // In a shared /tmp another user could have made the directory first.
  if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid) || (stat.mode & 0o077) !== 0) {
    throw new HostError({
      where: dir,
      what: `the control directory is not private to this user (owner uid ${stat.uid}, mode ${(stat.mode & 0o777).toString(8)}${stat.isDirectory() ? '' : ', not a directory'}).`,
      fix: `remove it (mcp-host recreates it with mode 700), or set XDG_RUNTIME_DIR to a directory only you can enter.`,
    });
  }
  return dir;
}

/** The name every socket of hosts running this config starts with. */
function socketStem(configFile: string): string {
  return createHash('sha256').update(realpathSync(configFile)).digest('hex').slice(0, 16);
}

export interface ControlChannel {
  readonly path: string;
  close(): Promise<void>;
}

/** Listen for `mcp-host reload` and `mcp-host status` on this host's socket. */
export async function openControlChannel(
  configFile: string,
  runtime: HostRuntime,
  reloader: Reloader,
  logger: Logger,
): Promise<ControlChannel> {
  if (process.platform === 'win32') {
    throw new HostError({
      where: 'mcp-host reload',
      what: 'the control channel needs unix domain sockets, which this platform lacks.',
      fix: 'reload by saving the config file (reload.watch) instead.',
    });
  }
  const path = join(controlDirectory(), `${socketStem(configFile)}-${process.pid}.sock`);
  // A socket left by an earlier process with this pid (it cannot be running: the pid is ours).
  removeQuietly(path);
  const server = createServer((socket) => serve(socket, configFile, runtime, reloader, logger));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  // The directory already keeps other users out; the mode says so on the socket too.
  chmodSync(path, 0o600);
  server.on('error', (error) => logger.warn({ err: error }, 'control channel error'));
  // However the process ends (a fatal error's exit 1 included), its socket
  // goes with it; only a SIGKILL leaves one, which `mcp-host reload` removes.
  const removeAtExit = () => removeQuietly(path);
  process.once('exit', removeAtExit);
  return {
    path,
    close: async () => {
      process.off('exit', removeAtExit);
      await closeServer(server, path);
    },
  };
}

function serve(socket: Socket, configFile: string, runtime: HostRuntime, reloader: Reloader, logger: Logger): void {
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('error', (error) => logger.debug({ err: error }, 'control channel connection error'));
  socket.setTimeout(COMMAND_TIMEOUT_MS, () => socket.destroy());
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    if (buffered.length > MAX_REQUEST_BYTES) {
      socket.destroy();
      return;
    }
    const newline = buffered.indexOf('\n');
    if (newline < 0) return;
    socket.pause();
    // The command is in: a reload may take longer than the wait for it.
    socket.setTimeout(0);
    let request: { command?: unknown; plugin?: unknown };
    try {
      request = JSON.parse(buffered.slice(0, newline)) as typeof request;
    } catch {
      request = {};
    }
    const { command, plugin } = request ?? {};
    if (command === 'status') {
      // Loaded at the first `mcp-host status`, not by every start.
      void import('../host-status.js').then(({ hostStatus }) => {
        const reply: HostStatusReply = { pid: process.pid, configFile, status: hostStatus(runtime) };
        socket.end(`${JSON.stringify(reply)}\n`);
      });
      return;
    }
    if (command !== 'reload' || (plugin !== undefined && typeof plugin !== 'string')) {
      socket.end(
        `${JSON.stringify({ error: 'unknown command: expected {"command":"reload"} (with "plugin": a mount\'s name) or {"command":"status"}' })}\n`,
      );
      return;
    }
    const trigger = plugin === undefined ? 'mcp-host reload' : `mcp-host reload --plugin ${plugin}`;
    void reloader.reload(trigger, plugin).then((outcome) => {
      const reply: HostReply = { pid: process.pid, configFile, outcome };
      socket.end(`${JSON.stringify(reply)}\n`);
    });
  });
}

async function closeServer(server: Server, path: string): Promise<void> {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  removeQuietly(path);
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}

/** The sockets of the hosts running this config, as pid → path. */
export function hostSockets(configFile: string): Map<number, string> {
  const stem = `${socketStem(configFile)}-`;
  const dir = controlDirectory();
  const sockets = new Map<number, string>();
  for (const name of readdirSync(dir)) {
    const pid = Number(name.slice(stem.length, -'.sock'.length));
    if (name.startsWith(stem) && name.endsWith('.sock') && Number.isInteger(pid)) sockets.set(pid, join(dir, name));
  }
  return sockets;
}

/**
 * Ask one host `command` (with the request's other fields, `options`) and
 * wait for its reply. Undefined when nothing listens there (a host that died
 * without removing its socket, which is then removed).
 */
export function askHost<C extends ControlCommand>(
  path: string,
  command: C,
  timeoutMs: number,
  options: { plugin?: string } = {},
): Promise<ControlReplies[C] | undefined> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    let answer = '';
    socket.setEncoding('utf8');
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      const still = command === 'reload' ? "the reload may still be running; see the host's log" : "see the host's log";
      reject(new Error(`no answer within ${timeoutMs / 1000} s (${still})`));
    });
    socket.on('connect', () => socket.write(`${JSON.stringify({ command, ...options })}\n`));
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED' || error.code === 'ENOENT') {
        removeQuietly(path);
        resolve(undefined);
      } else reject(error);
    });
    socket.on('end', () => {
      try {
        const reply = JSON.parse(answer) as ControlReplies[C] | { error: string };
        if ('error' in reply) reject(new Error(reply.error));
        else resolve(reply);
      } catch {
        reject(new Error(`the host's answer is not JSON: ${answer.slice(0, 200)}`));
      }
    });
  });
}
