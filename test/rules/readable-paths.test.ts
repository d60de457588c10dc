// What an isolated plugin may read (host/mounts/isolation/readable-paths.ts),
// computed in-process over packages written to a workspace: its package and
// its npm dependencies, by link and real path; never a name that is no npm
// name, nor a link to the config's directory or above it. test/process-isolation.test.ts
// runs plugins under these paths; this file is quick enough for `npm run mutation`.
import { mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import Module from 'node:module';
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

t.test('a dependency is its nearest node_modules entry with a package.json, not a bare directory', async (t) => {
  const ws = makeWorkspace(t);
  const plugin = ws.writePackage('node_modules/plug', { name: 'plug', dependencies: { near: '1' } });
  // A directory of that name nearer the plugin, without a package.json: Node passes it over, and so must the grant.
  mkdirSync(join(plugin, 'node_modules/near'), { recursive: true });
  const near = ws.writePackage('node_modules/near', { name: 'near' });
  const refused: RefusedDependency[] = [];
  const paths = readablePaths(plugin, ws.dir, (dependency) => refused.push(dependency));
  t.ok(paths.includes(near), 'the one with a package.json');
  t.notOk(paths.includes(join(plugin, 'node_modules/near')), 'not the bare directory');
  t.same(refused, []);
});

t.test('a dependency found in a global folder (NODE_PATH), outside any node_modules, is refused', async (t) => {
  const ws = makeWorkspace(t);
  const plugin = ws.writePackage('node_modules/plug', { name: 'plug', dependencies: { 'mcp-host-global-only': '1' } });
  const global = ws.writePackage('global/mcp-host-global-only', { name: 'mcp-host-global-only' });
  // Node reads NODE_PATH into its global folders once, at startup; _initPaths reads it again (and, at teardown, back).
  const initPaths = (Module as unknown as { _initPaths(): void })._initPaths;
  const before = process.env.NODE_PATH;
  process.env.NODE_PATH = join(ws.dir, 'global');
  initPaths();
  t.teardown(() => {
    if (before === undefined) delete process.env.NODE_PATH;
    else process.env.NODE_PATH = before;
    initPaths();
  });
  const refused: RefusedDependency[] = [];
  const paths = readablePaths(plugin, ws.dir, (dependency) => refused.push(dependency));
  t.notOk(paths.includes(global), 'not readable');
  t.notOk(paths.includes(realpathSync(global)));
  t.same(refused, [
    {
      name: 'mcp-host-global-only',
      of: realpathSync(plugin),
      why: `it was found at ${global}, outside any node_modules directory`,
    },
  ]);
});

t.test('a package.json that is not JSON, or not an object, names no dependency', async (t) => {
  const ws = makeWorkspace(t);
  const plugin = ws.writePackage('node_modules/plug', {
    name: 'plug',
    dependencies: { broken: '1', 'null-json': '1', 'text-json': '1' },
  });
  const broken = join(ws.dir, 'node_modules/broken');
  ws.writeFile('node_modules/broken/package.json', '{"dependencies": {"after": "1"');
  const nullJson = join(ws.dir, 'node_modules/null-json');
  ws.writeFile('node_modules/null-json/package.json', 'null');
  const textJson = join(ws.dir, 'node_modules/text-json');
  ws.writeFile('node_modules/text-json/package.json', '"dependencies"');
  ws.writePackage('node_modules/after', { name: 'after' });
  const refused: RefusedDependency[] = [];
  const paths = readablePaths(plugin, ws.dir, (dependency) => refused.push(dependency));
  t.ok(paths.includes(broken), 'the packages themselves are readable');
  t.ok(paths.includes(nullJson));
  t.ok(paths.includes(textJson));
  t.notOk(paths.includes(join(ws.dir, 'node_modules/after')), 'but what the broken one seems to name is not');
  t.same(refused, [], 'and nothing is made up from them');
  const unparsable = ws.writePackage('node_modules/lone', { name: 'lone' });
  ws.writeFile('node_modules/lone/package.json', '{');
  t.same(
    readablePaths(unparsable, ws.dir, (dependency) => refused.push(dependency)).slice(0, 1),
    [realpathSync(unparsable)],
    "a plugin whose own package.json is broken: its package and the host's code only",
  );
  t.same(refused, []);
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
