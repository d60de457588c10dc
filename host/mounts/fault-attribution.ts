/**
 * Whose fault is it? In-process plugins share the host's process, so an
 * exception thrown from a plugin's timer, an `'error'` event nobody listens
 * to, a promise it rejects and forgets, or its call to `process.exit` would
 * otherwise end the host and every client on it (DESIGN.md, "Containment").
 *
 * The process-wide hooks live here, installed once by the CLI before any
 * plugin code runs, with the registry of which plugin owns which code:
 *
 * - a fault is the plugin's when its stack runs through a file inside that
 *   plugin's package directory (real paths; the closest frame to the throw
 *   wins), or failing that, when it happened in a plugin's async context
 *   (its import, its `create()`, a request it was serving, and every timer
 *   or promise those started: see in-process-link.ts);
 * - an attributed fault goes to the plugin's live instances (`FaultOwner`),
 *   whose supervisor withdraws and re-creates them; code of a plugin no
 *   longer mounted (a timer left by an instance a reload replaced) is
 *   logged and otherwise ignored, as nothing is left to restart;
 * - anything else is the host's own fault: logged, then exit 1, rather than
 *   running on in a state nobody knows.
 *
 * `process.exit`, `abort`, `reallyExit` and `kill` of the host's own pid
 * throw when called from plugin code, in every phase (import, create,
 * serving), and fault the plugin; the host's own calls pass through.
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeThrown } from '../errors.js';
import { endSentence } from '../config/problem-wording.js';
import type { Logger } from '../log.js';
import { TAG_PARAM } from '../fresh-import-hooks.js';
import { tagLoadedInPlace } from '../fresh-import.js';
import { pluginInContext } from './isolation/in-process-link.js';
import { PluginCodeClaim, type FaultOwner, type PluginFault } from './plugin-code-claim.js';

/** Package directories (real paths) and the live claims on them; a directory stays known once claimed. */
const claimsByDir = new Map<string, Set<PluginCodeClaim>>();
/** Each directory's last description, for faults of code whose instances are gone. */
const described = new Map<string, string>();

/** Register `owner` as running the code in `packageDir` (imported under `importTag`) until the claim is released. */
export function claimPluginCode(packageDir: string, importTag: string, owner: FaultOwner): PluginCodeClaim {
  // The native call, as fresh-import.ts makes it: one system call rather than an lstat per path segment, and the same path.
  const dir = realpathSync.native(packageDir);
  const claims = claimsByDir.get(dir) ?? new Set<PluginCodeClaim>();
  claimsByDir.set(dir, claims);
  described.set(dir, owner.description);
  return new PluginCodeClaim(owner, owner.description, importTag, claims);
}

interface Culprit {
  /** The live instances to fault: none when the code's instances are all gone. */
  owners: FaultOwner[];
  description: string;
}

/** Which plugin a stack (or, failing that, the current async context) belongs to. */
function attribute(stack: string | undefined): Culprit | undefined {
  const inContext = pluginInContext();
  const only = (claim: PluginCodeClaim): Culprit => ({
    owners: claim.live ? [claim.live] : [],
    description: claim.description,
  });
  for (const frame of stackFiles(stack)) {
    const dir = owningDir(frame.file);
    if (dir === undefined) continue;
    const live = [...claimsByDir.get(dir)!];
    // Two versions of one package (a reload beside the live one) differ by import tag.
    // Code loaded in place (fresh-import.ts) runs at its plain URL: its tag is the one it was loaded for.
    const tag = frame.tag ?? tagLoadedInPlace(dir);
    const sameCode = tag === undefined ? live : live.filter((claim) => claim.importTag === tag);
    // Two mounts of one version run the same files: the async context tells them apart.
    if (inContext && sameCode.includes(inContext)) return only(inContext);
    return { owners: sameCode.flatMap((claim) => claim.live ?? []), description: described.get(dir)! };
  }
  return inContext && only(inContext);
}

/** The deepest registered package directory holding `file`. */
function owningDir(file: string): string | undefined {
  let found: string | undefined;
  for (const dir of claimsByDir.keys()) {
    if ((file === dir || file.startsWith(dir + sep)) && dir.length > (found?.length ?? 0)) found = dir;
  }
  return found;
}

/**
 * The files of a V8 stack, innermost first: `at fn (file:///x.js?tag:1:2)`,
 * `at /x.cjs:1:2`, `at async file:///x.js:1:2`. Node's own frames
 * (`node:internal/…`) are not files and are skipped.
 */
function stackFiles(stack: string | undefined): { file: string; tag?: string }[] {
  if (!stack) return [];
  const files: { file: string; tag?: string }[] = [];
  for (const line of stack.split('\n')) {
    const match = /^\s+at (?:.*?\()?((?:file:\/\/|\/).*?)(?::\d+){1,2}\)?$/.exec(line);
    if (!match) continue;
    const location = match[1]!;
    if (location.startsWith('file://')) {
      try {
        const url = new URL(location);
        files.push({
          file: fileURLToPath(url),
          ...(url.searchParams.has(TAG_PARAM) && { tag: url.searchParams.get(TAG_PARAM)! }),
        });
      } catch {
        // not a URL after all
      }
    } else if (isAbsolute(location)) {
      files.push({ file: location });
    }
  }
  return files;
}

/** The stack of whoever called `skip`, deep enough to reach past a library's frames into the plugin's. */
function callerStack(skip: (...args: never[]) => unknown): string | undefined {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 50;
  const holder: { stack?: string } = {};
  Error.captureStackTrace(holder, skip);
  Error.stackTraceLimit = limit;
  return holder.stack;
}

let installed = false;

/**
 * Install the process-wide hooks, once, before any plugin code runs. The
 * host ends itself for a fault it cannot attribute with the real
 * `process.exit`, kept before it is guarded.
 */
export function installFaultAttribution(logger: Logger): void {
  if (installed) return;
  installed = true;
  const exit = process.exit.bind(process);
  const hostFault = (kind: string, thrown: unknown) => {
    logger.fatal(
      { err: thrown },
      `${kind}, and no plugin's code is on its stack or in its async context: the host's own fault; exiting with status 1`,
    );
    exit(1);
  };
  const pluginFault = (culprit: Culprit, fault: PluginFault) => {
    if (culprit.owners.length === 0) {
      logger.error(
        { plugin: culprit.description, stack: fault.stack },
        `${culprit.description}, no longer mounted, faulted: ${fault.cause} Nothing to restart.`,
      );
      return;
    }
    for (const owner of culprit.owners) owner.fault(fault);
  };
  const onThrown = (kind: string, thrown: unknown) => {
    // Its plugin was faulted when it was thrown (see `refuse`).
    if (thrown instanceof PluginExitRefused) return;
    const stack = thrown instanceof Error ? thrown.stack : undefined;
    const culprit = attribute(stack);
    if (!culprit) return hostFault(kind, thrown);
    pluginFault(culprit, { cause: `${kind}: ${endSentence(describeThrown(thrown))}`, ...(stack && { stack }) });
  };
  // With a listener for each, Node no longer ends the process on either.
  process.on('uncaughtException', (error) => onThrown('an exception was thrown outside any request', error));
  process.on('unhandledRejection', (reason) => onThrown('a promise was rejected with nothing to handle it', reason));

  guard('exit', (code?: unknown) => `called process.exit(${code === undefined ? '' : describeThrown(code)})`);
  guard('reallyExit', (code?: unknown) => `called process.reallyExit(${describeThrown(code)})`);
  guard('abort', () => 'called process.abort()');
  const kill = process.kill.bind(process);
  process.kill = function guardedKill(pid: number, signal?: string | number) {
    // Signal 0 only asks whether a process exists; a plugin may signal its own children.
    if ((pid === process.pid || pid === 0) && signal !== 0)
      refuse(guardedKill, `called process.kill(${pid}, ${String(signal ?? 'SIGTERM')}) on the host's own process`);
    return kill(pid, signal);
  };

  function guard(name: 'exit' | 'reallyExit' | 'abort', what: (...args: unknown[]) => string): void {
    const original = (process as unknown as Record<string, (...args: unknown[]) => never>)[name]!;
    const guarded = function (this: unknown, ...args: unknown[]) {
      refuse(guarded, what(...args));
      return original.apply(this, args);
    };
    (process as unknown as Record<string, unknown>)[name] = guarded;
  }

  /** Throw into plugin code that tried to end or signal the host, faulting the plugin; the host's own calls return. */
  function refuse(caller: (...args: never[]) => unknown, what: string): void {
    const stack = callerStack(caller);
    const culprit = attribute(stack);
    if (!culprit) return;
    const cause = `its code ${what}, which would have ended the host and every plugin in it.`;
    pluginFault(culprit, { cause, ...(stack && { stack }) });
    throw new PluginExitRefused(
      `${culprit.description} ${what}: mcp-host refuses process exits and signals from plugin code.`,
    );
  }
}

/** Thrown into plugin code in place of ending the host's process. */
export class PluginExitRefused extends Error {
  override name = 'PluginExitRefused';
}
