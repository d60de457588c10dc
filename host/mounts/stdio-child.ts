import { spawn, type ChildProcess } from 'node:child_process';
import {
  parseJSONRPCMessage,
  serializeMessage,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/client';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { formatProblem } from '../errors.js';
import { LineSplitter } from '../line-splitter.js';
import { settlesWithin } from '../settles-within.js';
import type { Grants, StdioSpec } from '../loader/types.js';
import type { Logger } from '../log.js';
import { ErrorCode } from '../rpc-error.js';
import type { ExplainedChannel, Outage } from './supervisor.js';
import { describeMount, mountName } from './mount.js';
import { TOO_BIG_FIX } from './result-check.js';
import { echoesUnroutable } from './unroutable-request.js';
import { ENV, sandboxedCommand } from './isolation/sandbox.js';
import { readablePaths, warnOfRefusedDependency } from './isolation/readable-paths.js';

/**
 * How long a child may take to exit once its input ends, before SIGTERM;
 * and after SIGTERM, before SIGKILL. Short: clients give the host itself
 * only a few seconds to stop before they kill it, and a host killed
 * mid-shutdown would leave its children behind.
 */
const EOF_GRACE_MS = 1000;
const TERM_GRACE_MS = 2000;

/** How many of a child's last stderr lines are kept to explain why it exited. */
const STDERR_TAIL = 20;
/** A longer stderr line is logged by its ends. */
const STDERR_LINE_BYTES = 64 * 1024;
const NEWLINE = Buffer.from('\n');

/**
 * Room on a line of the child's stdout for the JSON-RPC envelope around a
 * result: a result within the mount's `maxResultBytes` always arrives whole,
 * to be checked and refused precisely (result-check.ts), and nothing
 * longer is ever held in memory.
 */
const ENVELOPE_BYTES = 64 * 1024;

/**
 * Children whose process groups may still be alive: killed if the host
 * exits without closing them (a crash, `process.exit`), so that no server
 * outlives the host that started it.
 */
const liveGroups = new Set<number>();
process.once('exit', () => {
  for (const pid of liveGroups) signalGroup(pid, 'SIGKILL');
});

/**
 * An MCP server run as a child process, spoken to over its stdin and stdout
 * (newline-delimited JSON-RPC); its stderr goes to the host's log under the
 * mount's name.
 *
 * The child leads a process group of its own, because `npx`, `uvx` and shell
 * wrappers run the real server as a grandchild: closing the channel, or the
 * child exiting, ends the whole group.
 *
 * The wire carries no link between a server's request and the call that
 * caused it, so `related` is never set: the peer routes by "the only call
 * in flight" or refuses with a reason.
 */
export class ChildChannel implements ExplainedChannel {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  private child?: ChildProcess;
  private lines!: LineSplitter;
  private readonly stderrTail: string[] = [];
  /** Why the child is gone: it could not start, or it exited. */
  private ended?: Outage;
  private exited: Promise<void> = Promise.resolve();
  /** Settles on 'close': the child has exited and its pipes are drained, so `ended` says all it can. */
  private drained: Promise<void> = Promise.resolve();
  private closing?: Promise<void>;
  /** close() was called: the channel is done, and a reopen under way (the probe's fallback) starts no child. */
  private closed = false;

  constructor(
    private readonly spec: StdioSpec,
    private readonly logger: Logger,
  ) {}

  explain(): Outage | undefined {
    return this.ended;
  }

  /** Run the command again once the child that ended is gone: nothing of the old process carries over. */
  async reopen(): Promise<void> {
    await this.end();
    await this.drained;
    if (this.closed) throw new Error(`the process of "${this.spec.label}" was closed by mcp-host.`);
    this.ended = undefined;
    this.closing = undefined;
    this.stderrTail.length = 0;
    return this.start();
  }

  /**
   * The child as bubblewrap runs it. A command sees its cwd; a server
   * package sees its package and the packages it depends on, and starts in
   * the config's directory without seeing it (relative paths in its args
   * mean what they mean unsandboxed, and reach what its entry grants). A
   * server package's Node starts without the NODE_OPTIONS that whatever
   * wraps the host's spawns (an APM agent, a test harness) may have added:
   * preloads from outside its view, which it could not read, nor should run.
   */
  private sandboxed(grants: Grants): [string, string[]] {
    const { command, args, cwd, env, packageDir } = this.spec;
    if (packageDir === undefined) return sandboxedCommand(command, args, cwd, grants);
    const own = env.NODE_OPTIONS === undefined ? [] : [`NODE_OPTIONS=${env.NODE_OPTIONS}`];
    const withoutPreloads = ['-u', 'NODE_OPTIONS', ...own, command, ...args];
    // A server package starts in the config's directory (resolve-plugins.ts), which it must not read.
    const readable = readablePaths(packageDir, cwd, warnOfRefusedDependency(this.logger));
    return sandboxedCommand(ENV, withoutPreloads, cwd, grants, readable, { seesCwd: false });
  }

  start(): Promise<void> {
    this.lines = new LineSplitter(this.spec.maxResultBytes + ENVELOPE_BYTES, {
      line: (text) => this.parse(text),
      oversized: (head, tail) => this.dropped(head, tail),
    });
    const [file, argv] = this.spec.sandbox ? this.sandboxed(this.spec.sandbox) : [this.spec.command, this.spec.args];
    const child = spawn(file, argv, {
      cwd: this.spec.cwd,
      // The SDK's convention: a server sees a safe subset of the host's
      // environment (PATH, HOME, …) plus what its config entry gives it.
      env: { ...getDefaultEnvironment(), ...this.spec.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
      windowsHide: true,
    });
    this.child = child;
    // Counted at once, not on 'spawn': a host that exits in between still ends it.
    if (child.pid !== undefined) liveGroups.add(child.pid);
    this.exited = new Promise((resolve) => {
      child.once('exit', () => {
        if (child.pid !== undefined) this.reapGroup(child.pid);
        resolve();
      });
    });
    child.stdout!.on('data', (chunk: Buffer) => this.lines.push(chunk));
    child.stdin!.on('error', (error) => this.logger.debug({ err: error }, 'writing to the child failed'));
    this.captureStderr(child);
    // 'close' comes after 'exit' once the pipes are drained: the last answers
    // the child wrote still reach the peer before it hears of the end, and
    // the last words on its stderr are read before they are quoted as why.
    this.drained = new Promise((resolve) =>
      child.once('close', (code, signal) => {
        this.ended ??= this.exitOutage(code, signal);
        resolve();
        this.onclose?.();
      }),
    );

    return new Promise((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.on('error', (error: NodeJS.ErrnoException) => {
        if (child.pid !== undefined) {
          this.onerror?.(error);
          return;
        }
        this.ended = this.spawnOutage(error);
        reject(new Error(this.ended.cause));
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (this.ended || !stdin?.writable) {
      return Promise.reject(new Error(this.ended?.cause ?? `the process of "${this.spec.label}" is not running.`));
    }
    return new Promise((resolve, reject) => {
      stdin.write(serializeMessage(message), (error) => {
        if (!error) return resolve();
        // A write fails (EPIPE) when the child is exiting: its exit, and what
        // it said on stderr, explain the failure better than the errno does.
        void settlesWithin(this.drained, EOF_GRACE_MS).then(() =>
          reject(this.ended ? new Error(this.ended.cause) : error),
        );
      });
    });
  }

  /**
   * End the child the way a terminal would, escalating: close its input (a
   * well-behaved server exits then), SIGTERM its group, SIGKILL its group.
   * Resolves once it has exited.
   */
  close(): Promise<void> {
    this.closed = true;
    return this.end();
  }

  private end(): Promise<void> {
    this.closing ??= this.terminate();
    return this.closing;
  }

  private async terminate(): Promise<void> {
    const child = this.child;
    if (!child || child.pid === undefined) return;
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin?.end();
      if (!(await settlesWithin(this.exited, EOF_GRACE_MS))) {
        signalGroup(child.pid, 'SIGTERM');
        if (!(await settlesWithin(this.exited, TERM_GRACE_MS))) signalGroup(child.pid, 'SIGKILL');
      }
    }
    await this.exited;
  }

  /**
   * One line of the child's stdout. What is not a JSON-RPC message (a banner
   * printed to the wrong stream, a stray line) is skipped and reported; the
   * messages around it are still in step.
   */
  private parse(line: string): void {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.onerror?.(new Error('the server wrote a line to stdout that is not JSON; it was skipped'));
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch {
      this.onerror?.(new Error('the server wrote a line to stdout that is JSON but not JSON-RPC; it was skipped'));
      return;
    }
    this.onmessage?.(message);
  }

  /**
   * A line over the bound was dropped unread. When it was an answer, the
   * request it answers is failed now, saying why, rather than left to time out.
   */
  private dropped(head: string, tail: string): void {
    const limit = this.spec.maxResultBytes + ENVELOPE_BYTES;
    const id = answeredId(head, tail);
    if (id === undefined) {
      this.onerror?.(new Error(`the server wrote a message of over ${limit} bytes to stdout; it was dropped unread`));
      return;
    }
    const problem = {
      where: describeMount(this.spec),
      what: `answered with a message of over ${limit} bytes, more than its maxResultBytes (${this.spec.maxResultBytes}) allows; mcp-host dropped it unread.`,
      fix: TOO_BIG_FIX,
    };
    this.onmessage?.({ jsonrpc: '2.0', id, error: { code: ErrorCode.InternalError, message: formatProblem(problem) } });
  }

  /** The child's stderr, line by line; a line that never ends is bounded like any other. */
  private captureStderr(child: ChildProcess): void {
    const lines = new LineSplitter(STDERR_LINE_BYTES, {
      line: (text) => this.stderrLine(text),
      oversized: (head, tail) => this.stderrLine(`${head}…${tail}`),
    });
    child.stderr!.on('data', (chunk: Buffer) => lines.push(chunk));
    // The last line may end without a newline.
    child.stderr!.once('end', () => lines.push(NEWLINE));
  }

  private stderrLine(line: string): void {
    const trimmed = line.trimEnd();
    if (trimmed === '') return;
    // A server quoting the host's own answer that no client can be asked says nothing new (unroutable-request.ts).
    this.logger[echoesUnroutable(trimmed) ? 'debug' : 'info']({ stream: 'stderr' }, trimmed);
    this.stderrTail.push(trimmed);
    if (this.stderrTail.length > STDERR_TAIL) this.stderrTail.shift();
  }

  /**
   * After the child exits, whatever it started is ended too (SIGTERM, then
   * SIGKILL if it lingers): a grandchild left behind would be an orphan.
   */
  private reapGroup(pid: number): void {
    if (!signalGroup(pid, 'SIGTERM')) {
      liveGroups.delete(pid);
      return;
    }
    setTimeout(() => {
      signalGroup(pid, 'SIGKILL');
      liveGroups.delete(pid);
    }, TERM_GRACE_MS).unref();
  }

  private spawnOutage(error: NodeJS.ErrnoException): Outage {
    const command = JSON.stringify(this.spec.command);
    return {
      cause: `could not start ${command}: ${error.message}.`,
      fix:
        error.code === 'ENOENT'
          ? `install ${command} or put it on the PATH the host runs with (or give its absolute path), and check the entry's cwd "${this.spec.cwd}".`
          : `make ${command} runnable by the user the host runs as.`,
    };
  }

  private exitOutage(code: number | null, signal: NodeJS.Signals | null): Outage {
    const how = signal ? `was killed by signal ${signal}` : `exited with code ${code}`;
    const said = this.lastError();
    return {
      cause: `its process (pid ${this.child?.pid}) ${how}${said ? `; its stderr said: ${JSON.stringify(said)}` : ''}.`,
      fix: `its stderr is in the host log under plugin "${mountName(this.spec)}"; to reproduce, run ${JSON.stringify([this.spec.command, ...this.spec.args].join(' '))} in ${this.spec.cwd}.`,
    };
  }

  /** The line of the child's last words most likely to say why: the last naming an error, else the last. */
  private lastError(): string | undefined {
    return this.stderrTail.findLast((line) => /error|exception|fatal/i.test(line)) ?? this.stderrTail.at(-1);
  }
}

/** Signal a child's process group (the child alone on Windows); false when nothing is left to signal. */
function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(process.platform === 'win32' ? pid : -pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** A JSON-RPC id: a number or a JSON string. */
const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
/** An answer serialised as the SDKs do, `{"result": …, "jsonrpc": "2.0", "id": 7}`: the id is last. */
const ANSWER_FIRST = /^\s*\{\s*"(?:result|error)"\s*:/;
const ID_LAST = new RegExp(String.raw`"id"\s*:\s*${ID}\s*\}\s*$`);
/** Or with the envelope first, `{"jsonrpc": "2.0", "id": 7, "result": …}`. */
const ID_FIRST = new RegExp(
  String.raw`^\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*${ID}\s*,\s*"(?:result|error)"\s*:`,
);

/**
 * The id of the request a dropped line answered, told from its ends alone.
 * Only a line that begins as an answer counts: a child's own request ends
 * with an id too, from its own numbering, and failing the host's request
 * of that number would fail the wrong call.
 */
function answeredId(head: string, tail: string): RequestId | undefined {
  const found = ANSWER_FIRST.test(head) ? ID_LAST.exec(tail) : ID_FIRST.exec(head);
  return found ? (JSON.parse(found[1]!) as RequestId) : undefined;
}
