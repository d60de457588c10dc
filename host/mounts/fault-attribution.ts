/**
 * Whose fault is it? In-process plugins share the host's process, so an
 * exception thrown from a plugin's timer, an `'error'` event nobody listens
 * to, a promise it rejects and forgets, or its call to `process.exit` would
 * otherwise end the host and every client on it (DESIGN.md, "Containment").
 *
 * The process-wide hooks live here, installed once by the CLI before any
 * plugin code runs:
 *
 * - a fault is the plugin's when it happened in that plugin's async context
 *   (its import, its `create()`, a request it was serving, and every timer
 *   or promise those started: see in-process-link.ts), or in a callback it
 *   registered where Node would run it in no one's context (a process
 *   listener, a finalizer: see plugin-callbacks.ts). Never by a stack: its
 *   text is the plugin's to write (a thrown error's `stack`,
 *   `Error.prepareStackTrace`), and the host's own files may lie inside a
 *   plugin's directory (the author kit installs mcp-host in its
 *   node_modules);
 * - an attributed fault goes to the plugin's live instance (`FaultOwner`),
 *   whose supervisor withdraws and re-creates it; code of an instance no
 *   longer mounted (a timer left by an instance a reload replaced) is
 *   logged and otherwise ignored, as nothing is left to restart;
 * - anything else is the host's own fault: logged, then exit 1, rather than
 *   running on in a state nobody knows.
 *
 * `process.exit`, `abort`, `reallyExit` and `kill` of the host's own pid
 * throw when called from plugin code, in every phase (import, create,
 * serving), and fault the plugin; the host's own calls pass through, with
 * the status the host chose (`exitHost`) whatever an `'exit'` listener sets.
 */
import { describeThrown } from '../errors.js';
import { endSentence } from '../config/problem-wording.js';
import type { Logger } from '../log.js';
import { pluginInContext, runAsHost } from './isolation/in-process-link.js';
import { runPluginCallbacksInContext } from './plugin-callbacks.js';
import { PluginCodeClaim, type FaultOwner, type PluginFault } from './plugin-code-claim.js';

/** Register `owner` as the instance whose code runs under the claim, until it is released. */
export function claimPluginCode(owner: FaultOwner, logger: Logger): PluginCodeClaim {
  return new PluginCodeClaim(owner, logger);
}

/** The stack of whoever called `skip`, for the log: where a plugin's code tried to end the host. */
function callerStack(skip: (...args: never[]) => unknown): string | undefined {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 50;
  const holder: { stack?: string } = {};
  Error.captureStackTrace(holder, skip);
  Error.stackTraceLimit = limit;
  return holder.stack;
}

let installed = false;
/** The status the host chose to exit with: what it exits with, whatever an `'exit'` listener sets. */
let hostExitStatus: number | undefined;

/**
 * End the host with `status`. Node runs the `'exit'` listeners before it
 * ends the process with `process.exitCode`, which a plugin's listener could
 * set: the guarded `reallyExit` below exits with `status` instead.
 */
export function exitHost(status: number): never {
  hostExitStatus = status;
  return process.exit(status);
}

/**
 * Install the process-wide hooks, once, before any plugin code runs.
 */
export function installFaultAttribution(logger: Logger): void {
  if (installed) return;
  installed = true;
  const hostFault = (kind: string, thrown: unknown) => {
    logger.fatal(
      { err: thrown },
      `${kind}, in no plugin's async context nor in a callback a plugin registered: the host's own fault; exiting with status 1`,
    );
    exitHost(1);
  };
  const pluginFault = (claim: PluginCodeClaim, fault: PluginFault) => {
    const owner = claim.live;
    // Withdrawing and re-creating it is the host's work, whatever context the fault came from.
    if (owner) return runAsHost(() => owner.fault(fault));
    logger.error(
      { plugin: claim.description, stack: fault.stack },
      `${claim.description}, no longer mounted, faulted: ${fault.cause} Nothing to restart.`,
    );
  };
  const thrownFault = (claim: PluginCodeClaim, kind: string, thrown: unknown) => {
    // Its plugin was faulted when it was thrown (see `refuse`).
    if (thrown instanceof PluginExitRefused) return;
    const stack = thrown instanceof Error ? thrown.stack : undefined;
    pluginFault(claim, { cause: `${kind}: ${endSentence(describeThrown(thrown))}`, ...(stack && { stack }) });
  };
  const onThrown = (kind: string, thrown: unknown) => {
    const claim = pluginInContext();
    if (claim) thrownFault(claim, kind, thrown);
    else if (!(thrown instanceof PluginExitRefused)) hostFault(kind, thrown);
  };
  // With a listener for each, Node no longer ends the process on either.
  process.on('uncaughtException', (error) => onThrown('an exception was thrown outside any request', error));
  process.on('unhandledRejection', (reason) => onThrown('a promise was rejected with nothing to handle it', reason));
  runPluginCallbacksInContext((claim, where, thrown) => thrownFault(claim, `${where} threw`, thrown));

  guard('exit', (code?: unknown) => `called process.exit(${code === undefined ? '' : describeThrown(code)})`);
  guard(
    'reallyExit',
    (code?: unknown) => `called process.reallyExit(${describeThrown(code)})`,
    (args) => (hostExitStatus === undefined ? args : [hostExitStatus]),
  );
  guard('abort', () => 'called process.abort()');
  const kill = process.kill.bind(process);
  process.kill = function guardedKill(pid: number, signal?: string | number) {
    // Signal 0 only asks whether a process exists; a plugin may signal its own children.
    if ((pid === process.pid || pid === 0) && signal !== 0)
      refuse(guardedKill, `called process.kill(${pid}, ${String(signal ?? 'SIGTERM')}) on the host's own process`);
    return kill(pid, signal);
  };

  function guard(
    name: 'exit' | 'reallyExit' | 'abort',
    what: (...args: unknown[]) => string,
    hostArgs: (args: unknown[]) => unknown[] = (args) => args,
  ): void {
    const original = (process as unknown as Record<string, (...args: unknown[]) => never>)[name]!;
    const guarded = function (this: unknown, ...args: unknown[]) {
      refuse(guarded, what(...args));
      return original.apply(this, hostArgs(args));
    };
    (process as unknown as Record<string, unknown>)[name] = guarded;
  }

  /** Throw into plugin code that tried to end or signal the host, faulting the plugin; the host's own calls return. */
  function refuse(caller: (...args: never[]) => unknown, what: string): void {
    const claim = pluginInContext();
    if (!claim) return;
    const stack = callerStack(caller);
    const cause = `its code ${what}, which would have ended the host and every plugin in it.`;
    pluginFault(claim, { cause, ...(stack && { stack }) });
    throw new PluginExitRefused(
      `${claim.description} ${what}: mcp-host refuses process exits and signals from plugin code.`,
    );
  }
}

/** Thrown into plugin code in place of ending the host's process. */
export class PluginExitRefused extends Error {
  override name = 'PluginExitRefused';
}
