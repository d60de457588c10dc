import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Workspace } from './packages.js';

/** What `traceLoadedModules` gives a test: the env to start a host with, and what it loaded. */
export interface ModuleTrace {
  /** NODE_OPTIONS that import the tracer into the host's process. */
  env: { NODE_OPTIONS: string };
  /** Every module loaded since the trace began or was cleared, by URL, one a line. */
  loaded(): string;
  clear(): void;
}

/**
 * Traces every module a host started with `env` loads, by URL, as Node's
 * in-thread hooks (`registerHooks`) see it: a test asserts what a start
 * loads and what it leaves alone.
 */
export function traceLoadedModules(ws: Workspace): ModuleTrace {
  const file = join(ws.dir, 'loaded.txt');
  const tracer = ws.writeFile(
    'trace-loads.mjs',
    `import { registerHooks } from 'node:module';\nimport { appendFileSync } from 'node:fs';\nregisterHooks({ load(url, context, next) { appendFileSync(${JSON.stringify(file)}, url + '\\n'); return next(url, context); } });\n`,
  );
  writeFileSync(file, '');
  return {
    env: { NODE_OPTIONS: `--import ${tracer}` },
    loaded: () => readFileSync(file, 'utf8'),
    clear: () => writeFileSync(file, ''),
  };
}
