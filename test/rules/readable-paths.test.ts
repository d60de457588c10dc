// What an isolated plugin may read (host/mounts/isolation/readable-paths.ts),
// computed in-process over packages written to a workspace: its package and
// its npm dependencies, by link and real path; never a name that is no npm
// name, nor a link to the config's directory or above it. test/process-isolation.test.ts
// runs plugins under these paths; this file is quick enough for `npm run mutation`.
import { realpathSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import type { Logger } from '../../host/log.js';
import {
  readablePaths,
  warnOfRefusedDependency,
  type RefusedDependency,
} from '../../host/mounts/isolation/readable-paths.js';
import { REPO_ROOT, makeWorkspace } from '../helpers/packages.js';

const HOST_CODE = realpathSync(join(dirname(fileURLToPath(import.meta.url)), '../../host'));

t.test('a plugin reads its package and its dependencies, never the operator’s directory', async (t) => {
  const ws = makeWorkspace(t);
  const plugin = ws.writePackage('node_modules/plug', {
    name: 'plug',
    dependencies: { 'dep-a': '1', missing: '1', '../..': '1', 'mcp-host': '1' },
    optionalDependencies: { linked: '1' },
    peerDependencies: { sibling: '1', up: '1' },
  });
  const depA = ws.writePackage('node_modules/dep-a', { name: 'dep-a', dependencies: { 'dep-b': '1', plug: '1' } });
  const depB = ws.writePackage('node_modules/dep-a/node_modules/dep-b', { name: 'dep-b', dependencies: 'nonsense' });
  ws.writePackage('node_modules/mcp-host', { name: 'mcp-host' });
  symlinkSync(ws.dir, join(ws.dir, 'node_modules/linked'));
  // An ancestor of the config's directory with a package.json: the repository itself.
  symlinkSync(REPO_ROOT, join(ws.dir, 'node_modules/up'));
  ws.writePackage('elsewhere', { name: 'sibling' });
  symlinkSync(join(ws.dir, 'elsewhere'), join(ws.dir, 'node_modules/sibling'));
  const refused: RefusedDependency[] = [];
  const paths = readablePaths(plugin, ws.dir, (dependency) => refused.push(dependency));
  const real = (path: string) => realpathSync(path);
  t.ok(paths.includes(real(plugin)), 'its package');
  t.ok(paths.includes(real(depA)), 'a dependency');
  t.ok(paths.includes(real(depB)), "a dependency's dependency");
  t.ok(paths.includes(join(ws.dir, 'node_modules/dep-a')), 'by its link');
  t.ok(paths.includes(real(join(ws.dir, 'elsewhere'))), 'a linked dependency by its real path');
  t.ok(paths.includes(join(ws.dir, 'node_modules/sibling')), 'and its link');
  t.notOk(paths.includes(ws.dir), 'never the config directory');
  t.notOk(paths.includes(real(ws.dir)));
  t.notOk(paths.includes(join(ws.dir, 'node_modules/mcp-host')), 'the host package: only its code');
  t.notOk(paths.includes(real(REPO_ROOT)), 'nor an ancestor of it');
  t.ok(paths.includes(HOST_CODE), "the host's code");
  t.equal(paths.at(-1), join(dirname(dirname(HOST_CODE)), 'package.json'), 'and its package.json, last');
  t.ok(
    paths.some((path) => path.endsWith(join('node_modules', 'pino'))),
    "the host's link packages",
  );
  t.ok(paths.some((path) => path.endsWith(join('node_modules', '@modelcontextprotocol', 'server'))));
  t.equal(new Set(paths).size, paths.length, 'each once');
  t.same(
    refused.sort((a, b) => a.name.localeCompare(b.name)),
    [
      { name: '../..', of: real(plugin), why: 'it is not an npm package name, so it could name any directory' },
      {
        name: 'linked',
        of: real(plugin),
        why: `it resolves to ${real(ws.dir)}, which holds the config's directory (${real(ws.dir)}) and the operator's files`,
      },
      {
        name: 'up',
        of: real(plugin),
        why: `it resolves to ${real(REPO_ROOT)}, which holds the config's directory (${real(ws.dir)}) and the operator's files`,
      },
    ],
  );
});

t.test('warnOfRefusedDependency: at warn, naming it, its package, why and the fix', async (t) => {
  const warnings: unknown[][] = [];
  const logger = { warn: (...args: unknown[]) => warnings.push(args) } as unknown as Logger;
  warnOfRefusedDependency(logger)({ name: '../..', of: '/x/plug', why: 'it is not an npm package name' });
  t.same(warnings, [
    [
      { dependency: '../..', package: '/x/plug' },
      `its process may not read dependency "../.." of /x/plug: it is not an npm package name. Fix: install it under its npm name into node_modules (npm install), not as a link to the operator's directories; grant what the plugin must read in the entry's allow.read.`,
    ],
  ]);
});
