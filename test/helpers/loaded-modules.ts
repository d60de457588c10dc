import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Workspace } from './packages.js';

/** What `traceLoadedModules` gives a test: the env to start a host with, and what it loaded. */
export interface ModuleTrace {
  /** NODE_OPTIONS that import the tracer into the host's process. */
  env: { NODE_OPTIONS: string };
  /**
   * Every module loaded since the trace began or was cleared, by URL, one a line; after a file of the bundle
   * (dist/bundle), the modules whose code it holds, as tsc's build names them.
   */
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
    loaded: () => withBundledModules(readFileSync(file, 'utf8')),
    clear: () => writeFileSync(file, ''),
  };
}

/**
 * Each file of the bundle followed by the modules it holds, from its source map (`host/x.ts` named
 * `host/x.js`), so that a test asks whether a module was loaded alike whichever build the host runs.
 */
function withBundledModules(urls: string): string {
  return urls
    .split('\n')
    .flatMap((url) => {
      if (!url.includes('/dist/bundle/') || !url.endsWith('.js')) return [url];
      const file = fileURLToPath(url);
      const { sources } = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
      return [url, ...sources.map((source) => resolve(dirname(file), source).replace(/\.ts$/, '.js'))];
    })
    .join('\n');
}
