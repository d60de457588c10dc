// A TypeScript config (.ts, .mts, .cts) loads whichever TypeScript the
// project installed, or none (DESIGN.md, "The config file"): the host strips
// the types itself (jiti) and never calls the compiler's JavaScript API, which
// TypeScript 7 no longer has. Proved with the repository's TypeScript 5 in
// reach, and with TypeScript 7 installed from npm into the project.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { loadConfigExport } from '../host/config/load.js';
import { runCli } from './helpers/host.js';
import { makeWorkspace, type Workspace } from './helpers/packages.js';
import { writePlugin } from './helpers/readme.js';

const run = promisify(execFile);

const TYPED_CONFIG = (name: string) =>
  `import type { HostConfig } from 'mcp-host';\nconst config: HostConfig = { name: '${name}', plugins: [{ package: 'hello' }] };\nexport default config;\n`;

/** The version of `typescript` that Node resolves from the workspace. */
function typescriptVersion(ws: Workspace): string {
  const require = createRequire(join(ws.dir, 'package.json'));
  return (require('typescript/package.json') as { version: string }).version;
}

async function listedTools(t: Test, args: string[], cwd: string): Promise<string[]> {
  const listed = await runCli(['list', '--json', ...args], { cwd });
  t.equal(listed.code, 0, `${args.join(' ')} lists: ${listed.stdout}${listed.stderr}`);
  return (JSON.parse(listed.stdout) as { mounts: { tools: { name: string }[] }[] }).mounts[0]!.tools.map((x) => x.name);
}

t.test('.ts, .mts and .cts configs load with TypeScript 5 in reach, found by the search', async (t) => {
  const ws = makeWorkspace(t);
  ws.writeFile('package.json', JSON.stringify({ name: 'npm-init-project', version: '1.0.0', type: 'commonjs' }));
  writePlugin(ws, 'node_modules/hello', 'hello', { prefix: 'hello' }, ['greet']);
  t.match(typescriptVersion(ws), /^5\./, "the repository's TypeScript 5 is the one in reach");
  for (const name of ['mcp-host.config.ts', 'mcp-host.config.mts', 'mcp-host.config.cts']) {
    const file = ws.writeFile(name, TYPED_CONFIG(name));
    t.same(await listedTools(t, [], ws.dir), ['hello.greet'], `${name}, found by the search`);
    t.same((await loadConfigExport({ cwd: ws.dir })).filepath, file, `${name} is the file found`);
    await run('rm', [file]);
  }
});

t.test('a TypeScript config that does not parse names its line and what it reads', async (t) => {
  const ws = makeWorkspace(t);
  const file = ws.writeFile('mcp-host.config.ts', 'const config = { plugins: [] ;\nexport default config;\n');
  const checked = await runCli(['check', '--config', file]);
  t.equal(checked.code, 1);
  t.match(
    checked.stdout,
    `${file}:1: syntax error: Unexpected token, expected ",". Fix: correct line 1, which reads: const config = { plugins: [] ;`,
  );
});

t.test('a TypeScript config missing a comma at the end of a line names that line', async (t) => {
  const ws = makeWorkspace(t);
  const file = ws.writeFile(
    'mcp-host.config.ts',
    "export default {\n  plugins: [\n    { package: 'x' }\n    { package: 'y' },\n  ],\n};\n",
  );
  const checked = await runCli(['check', '--config', file]);
  t.equal(checked.code, 1);
  t.match(
    checked.stdout,
    `${file}:3: syntax error: Unexpected token, expected "," at the start of line 4, so the mistake is at the end of line 3: a comma or a closing bracket missing there? Fix: correct line 3, which reads: { package: 'x' }`,
  );
});

t.test('a TypeScript config that throws, or imports a file that does not parse, says so naming the file', async (t) => {
  const ws = makeWorkspace(t);
  const throws = ws.writeFile('mcp-host.config.ts', "throw new Error('no config today');\nexport default {};\n");
  const thrown = await runCli(['check', '--config', throws]);
  t.equal(thrown.code, 1);
  t.match(thrown.stdout, `${throws}: the config cannot be loaded: no config today. Fix: correct the config file.`);
  ws.writeFile('shared.ts', 'export const plugins = [;\n');
  const imports = ws.writeFile(
    'mcp-host.config.mts',
    "import { plugins } from './shared.ts';\nexport default { plugins };\n",
  );
  const imported = await runCli(['check', '--config', imports]);
  t.equal(imported.code, 1);
  t.match(imported.stdout, `${imports}: the config cannot be loaded: ParseError: Unexpected token`);
  t.match(imported.stdout, join(ws.dir, 'shared.ts'), 'the file that does not parse is named');
});

t.test('a .ts config loads in a project with TypeScript 7 installed, and each load reads it afresh', async (t) => {
  const ws = makeWorkspace(t);
  // The compiler's native binary is an optional dependency no config loader needs; its package is what Node resolves.
  await run('npm', ['install', 'typescript@7.0.2', '--omit=optional', '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd: ws.dir,
  });
  t.equal(typescriptVersion(ws), '7.0.2');
  writePlugin(ws, 'node_modules/hello', 'hello', { prefix: 'hello' }, ['greet']);
  const file = ws.writeFile('mcp-host.config.ts', TYPED_CONFIG('first'));
  t.same(await listedTools(t, ['--config', file], ws.dir), ['hello.greet']);
  t.same(((await loadConfigExport({ cwd: ws.dir })).config as { name: string }).name, 'first');
  ws.writeFile('mcp-host.config.ts', TYPED_CONFIG('edited'));
  t.same(((await loadConfigExport({ cwd: ws.dir })).config as { name: string }).name, 'edited', 'an edit is seen');
});
