// scripts/check-layers.js, the check in `npm test` that host/ imports one way
// down: it passes on the host's sources, and fails, naming the import and the
// rule, on a tree with a planted cycle and a planted upward import.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';

const root = resolve(import.meta.dirname, '../..');
const script = join(root, 'scripts/check-layers.js');
const run = promisify(execFile);

/** Run the check over `folder`: its exit code and what it wrote. */
async function check(folder: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [script, folder]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

/** Check a host folder holding `files` (path → source), which must fail with `count` problems: what it wrote. */
async function refused(t: Test, files: Record<string, string>, count: number): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'mcp-host-layers-'));
  t.teardown(() => rm(folder, { recursive: true, force: true }));
  for (const [path, source] of Object.entries(files)) {
    await mkdir(dirname(join(folder, path)), { recursive: true });
    await writeFile(join(folder, path), source);
  }
  const result = await check(folder);
  t.equal(result.code, 1);
  t.match(result.stderr, `layers: ${count} problem(s) in ${folder}; the layers are drawn in docs/architecture.md`);
  return result.stderr;
}

t.test('the host imports one way down, with no cycles', async (t) => {
  const result = await check(join(root, 'host'));
  t.equal(result.code, 0, result.stderr);
  t.match(result.stdout, /imports one way down, with no cycles/);
});

t.test('an import of a layer above is refused, naming the import and the rule', async (t) => {
  const stderr = await refused(
    t,
    {
      'mounts/mount.ts': "import { ALL } from '../catalogue/lists.js';\nexport const mount = ALL;\n",
      'catalogue/lists.ts': "import { mount } from '../mounts/other.js';\nexport const ALL = [mount];\n",
      'mounts/other.ts': 'export const mount = 1;\n',
      // Dynamic imports count too: a lazily loaded layer above is still one.
      'config/load.ts': "export const later = () => import('../serve/http.js');\n",
      'serve/http.ts': 'export interface Http {}\n',
      // So do type-only ones, which the compiler erases: the sink would be defined by what calls it.
      'sinks/telemetry.ts': "import type { Http } from '../serve/http.js';\nexport type Seen = Http;\n",
    },
    3,
  );
  t.match(
    stderr,
    'layers: upward import: host/mounts/mount.ts → host/catalogue/lists.ts (mounts/ may not import catalogue/, a layer above it)',
  );
  t.match(stderr, 'upward import: host/config/load.ts → host/serve/http.ts (config/ may not import serve/');
  t.match(stderr, 'upward import: host/sinks/telemetry.ts → host/serve/http.ts (sinks/ may not import serve/');
  t.match(stderr, /Fix: move what both need down to a layer below mounts\/, or report through an interface in sinks\//);
  t.match(
    stderr,
    /Layers, top first: cli · command-line · index · testing → commands · admin-console → .* → config → sinks → vocabulary/,
  );
});

t.test('files that import each other, even through others, are refused as a cycle', async (t) => {
  const stderr = await refused(
    t,
    {
      'catalogue/a.ts': "export { b } from './b.js';\nexport const a = 1;\n",
      'catalogue/b.ts': "import { c } from './c.js';\nexport const b = c;\n",
      'catalogue/c.ts':
        "import type { A } from './a.js';\nimport { shared } from '../errors.js';\nexport const c: A = shared;\n",
      // A file below all three, imported by them, is no part of the circle.
      'errors.ts': 'export const shared = 1;\n',
    },
    1,
  );
  t.match(
    stderr,
    'layers: import cycle: host/catalogue/a.ts → host/catalogue/b.ts → host/catalogue/c.ts → host/catalogue/a.ts (no files may import each other, even through others). Fix: move what one of them takes from the next into a file of its own, below both.',
  );
});

t.test('a circle inside a larger tied group says how many files it ties', async (t) => {
  const stderr = await refused(
    t,
    {
      'mounts/a.ts': "import './b.js';\n",
      'mounts/b.ts': "import './a.js';\nimport './c.js';\n",
      'mounts/c.ts': "import './b.js';\n",
    },
    1,
  );
  t.match(
    stderr,
    'import cycle: host/mounts/a.ts → host/mounts/b.ts → host/mounts/a.ts (no files may import each other, even through others; 3 files are tied together, and another circle shows once this one is broken)',
  );
});

t.test('a folder named in no layer is refused until it is given its place', async (t) => {
  const stderr = await refused(
    t,
    {
      'ledger/file-sink.ts': "import { shared } from '../errors.js';\nexport const sink = shared;\n",
      'ledger/format.ts': 'export {};\n',
      'errors.ts': 'export const shared = 1;\n',
    },
    1,
  );
  t.match(
    stderr,
    "layers: host/ledger/ is in no layer. Fix: add 'ledger' to LAYERS in scripts/check-layers.js at its place in the order, and to the drawing in docs/architecture.md.",
  );
});

t.test('a top-level file not named in the layers is on the lowest floor, below vocabulary/', async (t) => {
  const stderr = await refused(
    t,
    {
      'stable-json.ts': "import { LIST } from './vocabulary/list-kinds.js';\nexport const x = LIST;\n",
      'vocabulary/list-kinds.ts': "import { plain } from '../plain-object.js';\nexport const LIST = plain;\n",
      'plain-object.ts': 'export const plain = 1;\n',
      // Declarations beside the sources are no sources.
      'types.d.ts': "import type { LIST } from './vocabulary/list-kinds.js';\nexport type L = typeof LIST;\n",
    },
    1,
  );
  t.match(stderr, 'upward import: host/stable-json.ts → host/vocabulary/list-kinds.ts');
});
