// `npm run build`'s second step: the host's compiled modules (dist/host, one
// file per module as tsc writes them) bundled by esbuild into a few files in
// dist/bundle, which the bin and `npm start` run. Why: a start's cost beyond
// the SDK's is the number of the host's modules, not their work (about 1 ms
// each for Node's loader to resolve, read and link; docs/performance.md, the
// eighth round), and an empty host loads some 130 of them.
//
// - Every file the host starts by its path is an entry, named as it is, so it
//   lies beside the code that names it (`new URL('./worker-entry.js',
//   import.meta.url)` reads the same in either build): the bin, a worker
//   plugin's and a plugin process's entry, the fresh-import hooks.
// - Splitting keeps each lazy `import()` a file of its own, loaded at its
//   first use as in dist/host; shared code goes into chunks beside them.
//   Every file is directly in dist/bundle, as host/code-location.ts requires.
// - Packages stay external: they are loaded from node_modules as the host's
//   dependencies, the same copies plugins and the SDK resolve.
// - Source maps chain to tsc's, so a stack trace and the suite's coverage
//   name host/*.ts.
// dist/host stays: the package's exports (mcp-host, mcp-host/plugin,
// mcp-host/testing) and its types are there, and tests import its modules.
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const compiled = join(root, 'dist/host');
const outdir = join(root, 'dist/bundle');

const ENTRIES = [
  'cli.js',
  'fresh-import-hooks.js',
  'mounts/isolation/worker-entry.js',
  'mounts/isolation/process-entry.js',
];

// A chunk of an earlier build left beside this one's would be dead weight in the package.
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: ENTRIES.map((entry) => join(compiled, entry)),
  outdir,
  entryNames: '[name]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22.12',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
});
