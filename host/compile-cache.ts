/**
 * Node's module compile cache for the host's own start: V8's compiled code
 * of each module loaded (the host's, the SDK's, zod's, pino's) is kept on
 * disk, and the next start reads it in place of compiling the source again.
 * It lives where Node puts it by default, `node-compile-cache` in the OS
 * temp dir (NODE_COMPILE_CACHE names another), keyed by each file's path
 * and checked against its content, so an upgraded package is compiled anew.
 *
 * A quiet optimisation: where that directory cannot be made or written
 * (a read-only temp dir, one another user owns), Node says why and the host
 * compiles as it always did. Off under V8 coverage (NODE_V8_COVERAGE, as the
 * test suite runs the host), which Node documents as less precise for a
 * function read from the cache.
 */
import { constants, enableCompileCache } from 'node:module';

/** Where the compile cache is, or why there is none: the host's debug log says which. */
export type CompileCacheState = { directory: string } | { off: string };

/** Turn the compile cache on for the modules this process loads from now on. */
export function startCompileCache(): CompileCacheState {
  if (process.env.NODE_V8_COVERAGE) return { off: 'V8 coverage is being collected (NODE_V8_COVERAGE)' };
  const { status, directory, message } = enableCompileCache();
  if (directory !== undefined) return { directory };
  if (status === constants.compileCacheStatus.DISABLED) return { off: 'NODE_DISABLE_COMPILE_CACHE is set' };
  return { off: message ?? 'Node could not enable it' };
}

export function describeCompileCache(state: CompileCacheState): string {
  return 'directory' in state
    ? `compile cache: ${state.directory}`
    : `no compile cache (${state.off}): every module is compiled from its source`;
}
