import { spawn, type ChildProcess } from 'node:child_process';
import { dirname } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parseJSONRPCMessage, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/client';
import { pino, type LevelWithSilent } from 'pino';
import { pluginWhere } from '../../config/problem-wording.js';
import type { ResolvedConfig } from '../../config/types.js';
import { HostError, ProblemsError, describeThrown, type Problem } from '../../errors.js';
import { LineSplitter } from '../../line-splitter.js';
import type { InProcessSpec } from '../../loader/types.js';
import type { Logger } from '../../log.js';
import { isPlainObject } from '../../plain-object.js';
import { settlesWithin } from '../../settles-within.js';
import type { SendOptions } from '../channel.js';
import { describeMount, mountName } from '../mount.js';
import type { ExplainedChannel, Outage } from '../supervisor.js';
import { Heartbeat } from './heartbeat.js';
import { watchMemory } from './memory-watch.js';
import { grantFix, permissionFlags, pluginEnvironment, withoutFlagHint } from './permissions.js';
import { LINK_FD, type FromProcess, type ProcessStart, type ToProcess } from './process-link.js';
import { SENT } from '../../vocabulary/sent.js';
import { readablePaths, warnOfRefusedDependency } from './readable-paths.js';
import { ENV, sandboxedCommand } from './sandbox.js';

const ENTRY = fileURLToPath(new URL('./process-entry.js', import.meta.url));
/** Room on a line of the link for the envelope around a result within maxResultBytes. */
const ENVELOPE_BYTES = 64 * 1024;
/** A line of a plugin's stdout or stderr longer than this is logged by its ends. */
const OUTPUT_LINE_BYTES = 64 * 1024;
/** How many of its last stderr lines say why a plugin process ended. */
const STDERR_TAIL = 20;
/** How long a plugin process may take to exit once its link is closed, before it is killed. */
const EXIT_GRACE_MS = 2000;
/** Log fields a plugin's record may not set: the host's own, which say who wrote the line. */
const HOST_LOG_FIELDS = ['level', 'time', 'pid', 'hostname', 'name', 'plugin', 'msg'];
const RESTARTS = ' mcp-host restarts it with backoff.';

/**
 * The process groups of plugin processes still running: killed if the host
 * exits without closing them (a fatal error, `process.exit`). A process
 * whose event loop is free exits by itself when its link closes; one that
 * is blocked would not.
 */
const liveGroups = new Set<number>();
process.once('exit', () => {
  for (const pid of liveGroups) killGroup(pid);
});

/**
 * An mcp-host plugin run in a Node process of its own (`isolation:
 * 'process'`), or that process inside bubblewrap (`'sandbox'`, sandbox.ts).
 * The process runs process-entry.ts, which loads and creates the plugin as
 * a worker does, and speaks to the host over a pipe on its fd 3: one JSON
 * object a line, what the plugin sends while serving a request carrying
 * that request's id (`related`), as in process. Its stdout and stderr are
 * its own, logged under its name: nothing it writes reaches a client.
 *
 * It runs under Node's permission model (permissions.ts): it reads its
 * package and its dependencies (readable-paths.ts), writes nothing, starts
 * no process or worker, unless its entry grants more (`allow`); its
 * environment holds only what the entry names. Its memory (all of it, and
 * its children's: memory-watch.ts) is held within `memoryLimitMb`.
 *
 * Whatever ends the process (a throw nobody catches, `process.exit`, a
 * signal, running over its memory) ends this plugin alone: the channel
 * closes, `explain()` says why, and the supervisor withdraws the mount and
 * starts a fresh process with backoff. Before it was ready, the same
 * refuses the plugin.
 */
export class ProcessChannel implements ExplainedChannel {
  legacyOnly = false;
  onmessage?: (message: JSONRPCMessage, related?: RequestId) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  private child?: ChildProcess;
  private ended?: Outage;
  private served = false;
  private exited: Promise<void> = Promise.resolve();
  private readonly stderrTail: string[] = [];
  private heartbeat?: Heartbeat;
  private readonly description: string;

  constructor(
    private readonly spec: InProcessSpec,
    private readonly importTag: string,
    private readonly config: ResolvedConfig,
    private readonly logger: Logger,
  ) {
    this.description = describeMount(spec);
  }

  explain(): Outage | undefined {
    if (!this.ended || !this.served) return this.ended;
    return { cause: this.ended.cause, fix: this.ended.fix + RESTARTS };
  }

  /** Resolves once the plugin's server is connected in its process; rejects with its refusal. */
  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const maxLineBytes = this.spec.maxResultBytes + ENVELOPE_BYTES;
      const start: ProcessStart = {
        spec: this.spec,
        name: mountName(this.spec),
        description: this.description,
        importTag: this.importTag,
        logLevel: this.logger.level as LevelWithSilent,
        maxLineBytes,
      };
      let startLine: string;
      try {
        startLine = JSON.stringify({ type: 'start', start } satisfies ToProcess, plainData) + '\n';
      } catch (error) {
        this.ended = {
          cause: `its options cannot be sent to its process: ${describeThrown(error)}`,
          fix: `give the entry options that are plain data, or run the plugin with isolation: "none".`,
        };
        reject(this.refusal(this.ended));
        return;
      }
      const child = this.spawn();
      this.child = child;
      if (child.pid !== undefined) liveGroups.add(child.pid);
      const links = new LineSplitter(maxLineBytes, {
        line: (text) => this.fromProcess(text, () => guards.ready(), reject),
        oversized: () =>
          this.logger.error(
            `dropped a message of over ${maxLineBytes} bytes from its process unread (maxResultBytes ${this.spec.maxResultBytes}).`,
          ),
      });
      const link = child.stdio[LINK_FD] as Readable;
      link.on('data', (chunk: Buffer) => links.push(chunk));
      link.on('error', (error) => this.logger.debug({ err: error }, 'the link to its process failed'));
      this.logLines(child.stdout!, 'stdout');
      this.logLines(child.stderr!, 'stderr');
      const guards = this.guard(child, resolve);
      this.exited = new Promise((exited) =>
        // 'close': its pipes are drained too, so its last answers and its last words on stderr are in.
        child.once('close', (code, signal) => {
          guards.stop();
          if (child.pid !== undefined) liveGroups.delete(child.pid);
          this.ended ??= this.exitOutage(code, signal);
          this.logger.debug(`its process ${child.pid} ended`);
          if (!this.served) reject(this.refusal(this.ended));
          exited();
          this.onclose?.();
        }),
      );
      child.once('error', (error) => {
        // Spawning failed (bwrap or /usr/bin/env gone since check): nothing runs.
        this.ended ??= { cause: `its process could not start: ${describeThrown(error)}`, fix: 'see the host log.' };
      });
      (child.stdio[LINK_FD] as NodeJS.WritableStream).write(startLine);
    });
  }

  /**
   * What ends a plugin's process that does not keep to its bounds: its
   * memory (memory-watch.ts), a blocked event loop (heartbeat.ts), and until
   * it is ready, upstreams.startTimeoutMs. `ready` ends the start timer and
   * resolves `start`; `stop` ends them all once the process is gone.
   */
  private guard(child: ChildProcess, resolve: () => void): { ready: () => void; stop: () => void } {
    const stopWatching = watchMemory(child.pid ?? 0, this.spec.memoryLimitMb, (usedMb) => {
      this.ended ??= {
        cause: `its process used ${usedMb} MB of memory, over its memoryLimitMb (${this.spec.memoryLimitMb}): mcp-host ended it.`,
        fix: "raise the entry's memoryLimitMb if the plugin needs more, or find what it keeps allocating.",
      };
      this.logger.error(`ending its process: ${this.ended.cause}`);
      this.kill();
    });
    const { startTimeoutMs, heartbeatTimeoutMs } = this.config.upstreams;
    const heartbeat = new Heartbeat(
      heartbeatTimeoutMs,
      () => this.write({ type: 'beat' }),
      () => {
        this.ended ??= {
          cause: `its process did not answer a heartbeat for ${heartbeatTimeoutMs} ms (upstreams.heartbeatTimeoutMs): plugin code is blocking it.`,
          fix: 'find what blocks its event loop (a long synchronous loop, synchronous I/O) and make it asynchronous, or raise upstreams.heartbeatTimeoutMs if the work is merely long.',
        };
        this.logger.error(`ending its process: ${this.ended.cause}`);
        this.kill();
      },
    );
    this.heartbeat = heartbeat;
    const starting = setTimeout(() => {
      this.ended ??= {
        cause: `it was not ready within ${startTimeoutMs} ms (upstreams.startTimeoutMs): create() did not return, or the plugin took that long to load.`,
        fix: 'find what create() waits for that never comes (a connection, a promise nobody settles), or raise upstreams.startTimeoutMs in the host config if it is merely slow.',
      };
      this.kill();
    }, startTimeoutMs);
    starting.unref();
    // Its event loop ran to say so: that counts as an answer, so that a plugin that blocks before its
    // first heartbeat came back is caught too.
    const ready = () => {
      clearTimeout(starting);
      heartbeat.answered();
      resolve();
    };
    heartbeat.start();
    return {
      ready,
      stop: () => {
        clearTimeout(starting);
        stopWatching();
        heartbeat.stop();
      },
    };
  }

  send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (!this.child || this.ended) {
      return Promise.reject(new Error(this.ended?.cause ?? `the process of ${this.description} is not running.`));
    }
    this.write({ type: 'rpc', message, ...(options?.headers && { headers: options.headers }) });
    return SENT;
  }

  private write(message: ToProcess): void {
    (this.child?.stdio[LINK_FD] as NodeJS.WritableStream | undefined)?.write(JSON.stringify(message) + '\n');
  }

  /** End its link (the plugin's server closes and the process exits), killing it if it lingers. */
  async close(): Promise<void> {
    this.ended ??= { cause: 'mcp-host closed it.', fix: 'none needed.' };
    (this.child?.stdio[LINK_FD] as NodeJS.WritableStream | undefined)?.end();
    if (!(await settlesWithin(this.exited, EXIT_GRACE_MS))) this.kill();
    await this.exited;
  }

  /** The plugin's process, its sandbox and whatever it started: they share its process group. */
  private spawn(): ChildProcess {
    const readable = readablePaths(
      this.spec.packageDir,
      dirname(this.config.file),
      warnOfRefusedDependency(this.logger),
    );
    // Through env: whatever wraps the host's own spawns (an APM agent, a test harness) may add preloads to
    // NODE_OPTIONS, which the plugin's process could not read under its permissions, nor should run.
    const node = [
      '-u',
      'NODE_OPTIONS',
      process.execPath,
      ...permissionFlags(readable, this.spec.grants, this.spec.memoryLimitMb),
      ENTRY,
    ];
    const sandboxed = this.spec.isolation === 'sandbox';
    const [command, args] = sandboxed
      ? sandboxedCommand(ENV, node, this.spec.packageDir, this.spec.grants, readable)
      : [ENV, node];
    this.logger.debug({ command, args }, `starting its ${sandboxed ? 'sandbox' : 'process'}`);
    return spawn(command, args, {
      cwd: this.spec.packageDir,
      env: pluginEnvironment(this.spec.grants),
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      detached: true,
    });
  }

  private fromProcess(text: string, ready: () => void, refused: (error: Error) => void): void {
    let message: FromProcess;
    try {
      message = JSON.parse(text) as FromProcess;
      if (!isPlainObject(message)) throw new Error('not a JSON object');
    } catch (error) {
      this.logger.warn(`skipped a line from its process that is not a message: ${describeThrown(error)}`);
      return;
    }
    switch (message.type) {
      case 'rpc': {
        let rpc: JSONRPCMessage;
        try {
          rpc = parseJSONRPCMessage(message.message);
        } catch {
          this.logger.warn('skipped a message from its process that is not JSON-RPC.');
          return;
        }
        const related = message.related;
        this.onmessage?.(rpc, typeof related === 'string' || typeof related === 'number' ? related : undefined);
        return;
      }
      case 'log':
        this.relog(message.record);
        return;
      case 'beat':
        this.heartbeat?.answered();
        return;
      case 'ready':
        if (this.served) return;
        this.served = true;
        this.legacyOnly = message.modern !== true;
        ready();
        return;
      case 'refused': {
        const problems = (Array.isArray(message.problems) ? message.problems : []).map(asProblem);
        this.ended ??= { cause: problems.map((p) => p.what).join(' '), fix: 'see the host log.' };
        refused(problems.length === 1 ? new HostError(problems[0]!) : new ProblemsError(problems));
        this.kill();
        return;
      }
      case 'closed':
        this.ended ??= {
          cause: 'the plugin closed its server.',
          fix: 'leave the server open: the host closes it when it removes the plugin.',
        };
        this.kill();
        return;
      default:
        this.logger.warn('skipped a message of an unknown type from its process.');
    }
  }

  /** A record of the plugin's logger, logged by the host under the plugin's name, at its level. */
  private relog(record: unknown): void {
    if (!isPlainObject(record)) return;
    const level = pino.levels.labels[Number(record.level)] ?? 'info';
    const fields = Object.fromEntries(Object.entries(record).filter(([key]) => !HOST_LOG_FIELDS.includes(key)));
    (this.logger[level as 'info'] ?? this.logger.info).call(this.logger, fields, String(record.msg ?? ''));
  }

  /** Its stdout and stderr, line by line, into the host's log under its name; stderr's tail says why it ended. */
  private logLines(stream: Readable, name: 'stdout' | 'stderr'): void {
    const log = (line: string) => {
      const trimmed = line.trimEnd();
      if (trimmed === '') return;
      this.logger.info({ stream: name }, trimmed);
      if (name !== 'stderr') return;
      this.stderrTail.push(trimmed);
      if (this.stderrTail.length > STDERR_TAIL) this.stderrTail.shift();
    };
    const lines = new LineSplitter(OUTPUT_LINE_BYTES, { line: log, oversized: (head, tail) => log(`${head}…${tail}`) });
    stream.on('data', (chunk: Buffer) => lines.push(chunk));
    stream.once('end', () => lines.push(Buffer.from('\n')));
  }

  private kill(): void {
    if (this.child?.pid !== undefined) killGroup(this.child.pid);
  }

  private exitOutage(code: number | null, signal: NodeJS.Signals | null): Outage {
    const how = signal ? `was killed by signal ${signal}` : `exited with code ${code}`;
    const last = this.stderrTail.findLast((line) => /error|exception|fatal/i.test(line)) ?? this.stderrTail.at(-1);
    const said = last && withoutFlagHint(last);
    // Node's permission model names what was refused on a line of its own: `resource: '/path'`.
    const denied = this.stderrTail.some((line) => line.includes('ERR_ACCESS_DENIED'));
    const resource = this.stderrTail.map((line) => /^\s*resource: '(.*)',?$/.exec(line)?.[1]).findLast(Boolean);
    const output = `its output is in the host log under plugin "${mountName(this.spec)}".`;
    return {
      cause: `its process ${how}${said ? `; its stderr said: ${JSON.stringify(said)}` : ''}.`,
      fix: denied ? grantFix(resource, `; ${output.slice(0, -1)}`) : output,
    };
  }

  private refusal(outage: Outage): HostError {
    return new HostError({ where: pluginWhere(this.spec.path, this.spec.label), what: outage.cause, fix: outage.fix });
  }
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** JSON.stringify's replacer for options: a function or symbol would vanish on the way, so it is refused instead. */
function plainData(key: string, value: unknown): unknown {
  if (typeof value === 'function' || typeof value === 'symbol') {
    throw new Error(`"${key}" is a ${typeof value}, which cannot leave the host's process`);
  }
  return value;
}

function asProblem(value: unknown): Problem {
  const problem = isPlainObject(value) ? value : {};
  return {
    where: String(problem.where ?? 'its process'),
    what: String(problem.what ?? 'refused to start.'),
    ...(problem.fix !== undefined && { fix: String(problem.fix) }),
  };
}
