// What a plugin author and an operator import from the package by its name,
// through package.json "exports" (resolved here by the package's own name,
// as a file inside it may): `mcp-host` and `mcp-host/plugin`. Imported in a
// process of their own, as an author's code imports them, which is also how
// tap measures a child's coverage of host/index.ts and host/plugin.ts. The
// child runs a module file kept in test/fixtures/: tap recorded no coverage
// of the same code run as a `-e` script, nor from a temporary workspace.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import * as main from '../host/index.js';
import * as plugin from '../host/plugin.js';
import { REPO_ROOT } from './helpers/packages.js';

const run = promisify(execFile);

t.test('definePlugin, from mcp-host and from mcp-host/plugin, returns the definition it is given', async (t) => {
  const author = join(REPO_ROOT, 'test', 'fixtures', 'public-exports', 'author.js');
  const { stdout } = await run(process.execPath, [author]);
  const seen = JSON.parse(stdout) as { same: boolean; unchanged: boolean };
  t.ok(seen.same, 'one function under both names');
  t.ok(seen.unchanged, 'unchanged: it is there for the types');
});

// The same modules in this process too: tap measures a test's own process on every run, while a child's coverage
// went missing in one full run beside two busy processes (host/plugin.ts then counted as never loaded, failing the
// per-file gate though the child had run it).
t.test('the modules the package exports, loaded in the test itself', async (t) => {
  const definition = { create: () => ({}) as never };
  t.equal(main.definePlugin, plugin.definePlugin, 'one function under both names');
  t.equal(plugin.definePlugin(definition), definition, 'unchanged');
});
