import { Worker } from 'node:worker_threads';
import { createInterface } from 'node:readline';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';
import type { LevelWithSilent } from 'pino';
import { pluginWhere } from '../../config/problem-wording.js';
import type { ResolvedConfig } from '../../config/types.js';
import { HostError, ProblemsError, describeThrown, type Problem } from '../../errors.js';
import type { InProcessSpec } from '../../loader/types.js';
import type { Logger } from '../../log.js';
import type { SendOptions } from '../channel.js';
import { describeMount, mountName } from '../mount.js';
import type { ExplainedChannel, Outage } from '../supervisor.js';
import { logPluginLines } from '../plugin-output.js';
import { Heartbeat } from './heartbeat.js';
import { SENT } from '../../vocabulary/sent.js';

/** What the host gives a plugin's worker to start it (`workerData`). */
export interface WorkerStart {
  spec: InProcessSpec;
  /** The mount's name (its logger's `plugin`) and how messages name it: given, so the worker need not load the mount layer. */
  name: string;
  description: string;
  importTag: string;
  logLevel: LevelWithSilent;
}

/** Host → worker: a JSON-RPC message for the plugin's server, or a heartbeat to echo. */
export type ToWorker = { type: 'rpc'; message: JSONRPCMessage; headers?: Record<string, string> } | { type: 'beat' };

/** Worker → host. */
export type FromWorker =
  /** The plugin's server is connected: the handshake may begin; `modern` when it is linked at 2026-07-28 (plugin-era.ts). */
  | { type: 'ready'; modern: boolean }
  /** Loading or creating the plugin failed: it is refused, with these problems. */
  | { type: 'refused'; problems: Problem[] }
  /** A message from the plugin's server, with the id of the host's request it concerns when known. */
  | { type: 'rpc'; message: JSONRPCMessage; related?: RequestId }
  /** The answer to a heartbeat: the worker's thread is not blocked. */
  | { type: 'beat' }
  /** The plugin closed its server. */
  | { type: 'closed' };

const ENTRY = new URL('./worker-entry.js', import.meta.url);
const HEARTBEAT: ToWorker = { type: 'beat' };
/** What the supervisor does about a worker that ended while serving; said with every fault but a refusal. */
const RESTARTS = ' mcp-host restarts it with backoff.';

/**
 * An mcp-host plugin run in a worker thread of its own (`isolation:
 * 'worker'`), spoken to over the worker's port: JSON-RPC messages go as
 * structured-cloned objects, and what the plugin sends while serving a
 * request comes back with that request's id (`related`), as in process.
 *
 * What goes wrong in the worker is the plugin's alone: running out of its
 * heap (`memoryLimitMb`, V8's `resourceLimits`), throwing or rejecting
 * outside any request, calling `process.exit` (which ends only the worker),
 * or blocking its thread past `upstreams.heartbeatTimeoutMs` (then the host
 * terminates it). The channel closes, `explain()` names the cause, and the
 * supervisor withdraws the mount and creates the plugin afresh with backoff.
 * Closing the channel terminates the worker, so a replaced plugin's code
 * and memory go with it.
 */
export class WorkerChannel implements ExplainedChannel {
  /** Known once the worker is ready: its server is not linked at 2026-07-28, so it is not probed. */
  legacyOnly = false;
  onmessage?: (message: JSONRPCMessage, related?: RequestId) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  private worker?: Worker;
  /** Why the worker is gone, or going. */
  private ended?: Outage;
  /** Its plugin's server was connected: a fault since is restarted, not refused. */
  private served = false;
  private exited: Promise<void> = Promise.resolve();
  private heartbeat?: Heartbeat;

  constructor(
    private readonly spec: InProcessSpec,
    private readonly importTag: string,
    private readonly config: ResolvedConfig,
    private readonly logger: Logger,
  ) {}

  /** Why the worker ended; once it had served, that the supervisor restarts it. */
  explain(): Outage | undefined {
    if (!this.ended || !this.served) return this.ended;
    return { cause: this.ended.cause, fix: this.ended.fix + RESTARTS };
  }

  /** Resolves once the plugin's server is connected in its worker; rejects with its refusal. */
  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const workerData: WorkerStart = {
        spec: this.spec,
        name: mountName(this.spec),
        description: describeMount(this.spec),
        importTag: this.importTag,
        logLevel: this.logger.level as LevelWithSilent,
      };
      let worker: Worker;
      try {
        worker = new Worker(ENTRY, {
          workerData,
          name: `mcp-host plugin ${this.spec.label}`,
          resourceLimits: { maxOldGenerationSizeMb: this.spec.memoryLimitMb },
          env: workerEnvironment(),
          // Its console.log would otherwise reach the host's stdout, which in stdio mode is JSON-RPC only;
          // and what it prints to stderr, the host's log, is marked as its own (plugin-output.ts).
          stdout: true,
          stderr: true,
        });
      } catch (error) {
        // Options a JavaScript config builds (a function, a class instance holding a socket) cannot cross.
        this.ended = {
          cause: `its options cannot be sent to a worker thread: ${describeThrown(error)}`,
          fix: 'give the entry options that are plain data, or run the plugin with isolation: "none".',
        };
        reject(this.refusal(this.ended));
        return;
      }
      this.worker = worker;
      const { threadId } = worker;
      for (const stream of ['stdout', 'stderr'] as const) {
        createInterface({ input: worker[stream] }).on('line', (line) => logPluginLines(this.logger, stream, line));
      }
      worker.on('message', (message: FromWorker) => {
        switch (message.type) {
          case 'rpc':
            this.onmessage?.(message.message, message.related);
            return;
          case 'beat':
            this.heartbeat?.answered();
            return;
          case 'ready':
            this.served = true;
            this.legacyOnly = !message.modern;
            clearTimeout(starting);
            // Its thread ran to say so: that counts as an answer, so that a plugin that blocks before its first
            // heartbeat came back is caught too (as process-channel.ts does). Without it, a call that blocked
            // within a fifth of the timeout of the worker's start was never ended.
            this.heartbeat?.answered();
            resolve();
            return;
          case 'refused':
            this.ended ??= { cause: message.problems.map((p) => p.what).join(' '), fix: 'see the host log.' };
            reject(
              message.problems.length === 1 ? new HostError(message.problems[0]!) : new ProblemsError(message.problems),
            );
            void worker.terminate();
            return;
          case 'closed':
            this.ended ??= {
              cause: 'the plugin closed its server.',
              fix: 'leave the server open: the host closes it when it removes the plugin.',
            };
            void worker.terminate();
        }
      });
      worker.on('error', (error) => {
        this.ended ??= faultOutage(error, this.spec);
        this.logger.error({ err: error }, `plugin code failed in its worker: ${this.ended.cause}`);
      });
      this.exited = new Promise((exited) =>
        worker.once('exit', (code) => {
          this.heartbeat?.stop();
          this.ended ??= {
            cause: `its worker exited with code ${code} (plugin code called process.exit).`,
            fix: "remove the process.exit call from the plugin: a plugin's work ends when the host closes its server.",
          };
          this.logger.debug(`worker thread ${threadId} ended`);
          // Before its server was connected, a fault refuses the plugin as it would in the host's thread.
          if (!this.served) reject(this.refusal(this.ended));
          exited();
          this.onclose?.();
        }),
      );
      this.keepBeating(worker);
      // A create() that never settles would hold its worker forever: ended
      // after upstreams.startTimeoutMs, as in the host's thread.
      const { startTimeoutMs } = this.config.upstreams;
      const starting = setTimeout(() => {
        this.ended ??= {
          cause: `it was not ready within ${startTimeoutMs} ms (upstreams.startTimeoutMs): create() did not return, or the plugin took that long to load.`,
          fix: 'find what create() waits for that never comes (a connection, a promise nobody settles), or raise upstreams.startTimeoutMs in the host config if it is merely slow.',
        };
        void worker.terminate();
      }, startTimeoutMs);
      starting.unref();
    });
  }

  send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (!this.worker || this.ended) {
      return Promise.reject(new Error(this.ended?.cause ?? `the worker of "${this.spec.label}" is not running.`));
    }
    const toWorker: ToWorker = { type: 'rpc', message, ...(options?.headers && { headers: options.headers }) };
    this.worker.postMessage(toWorker);
    return SENT;
  }

  /** Terminate the worker; resolves once it has exited. */
  async close(): Promise<void> {
    this.ended ??= { cause: 'mcp-host closed it.', fix: 'none needed.' };
    await this.worker?.terminate();
    await this.exited;
  }

  /** A thread blocked by plugin code answers no heartbeat: the host terminates it (heartbeat.ts). */
  private keepBeating(worker: Worker): void {
    const timeoutMs = this.config.upstreams.heartbeatTimeoutMs;
    this.heartbeat = new Heartbeat(
      timeoutMs,
      () => worker.postMessage(HEARTBEAT),
      () => this.blocked(worker, timeoutMs),
    );
    this.heartbeat.start();
  }

  private blocked(worker: Worker, timeoutMs: number): void {
    this.ended ??= {
      cause: `its worker thread did not answer a heartbeat for ${timeoutMs} ms (upstreams.heartbeatTimeoutMs): plugin code is blocking it.`,
      fix: 'find what blocks the thread (a long synchronous loop, synchronous I/O) and make it asynchronous, or raise upstreams.heartbeatTimeoutMs if the work is merely long.',
    };
    this.logger.error(`terminating its worker: ${this.ended.cause}`);
    void worker.terminate();
  }

  private refusal(outage: Outage): HostError {
    return new HostError({ where: pluginWhere(this.spec.path, this.spec.label), what: outage.cause, fix: outage.fix });
  }
}

/** A worker's fault, from the error its thread ended with. */
function faultOutage(error: Error & { code?: string }, spec: InProcessSpec): Outage {
  if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return {
      cause: `its worker ran out of memory (memoryLimitMb: ${spec.memoryLimitMb}).`,
      fix: "raise the entry's memoryLimitMb if the plugin needs more, or find what it keeps allocating.",
    };
  }
  return {
    cause: `plugin code threw outside any request, in its worker: ${describeThrown(error)}`,
    fix: 'catch the error in the plugin (a timer, an event emitter, a stream callback or a promise nobody awaits).',
  };
}

/**
 * What a worker's `process.env` holds: the host's environment as a plugin
 * in the host's thread sees it, whose bearer-token variables the host has
 * already withheld (secret-env.ts). An explicit copy, never shared, so
 * nothing the plugin sets reaches the host.
 */
function workerEnvironment(): NodeJS.ProcessEnv {
  return { ...process.env };
}
