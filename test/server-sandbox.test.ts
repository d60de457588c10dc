/**
 * A server package (an npm MCP server run as a stdio child) with
 * `sandbox: true`: its bin runs inside bubblewrap, granted what `allow` says,
 * as a `sandbox: true` command runs. The filesystem server from npm, told
 * that the config's directory is one it may use, still cannot read the
 * config: the sandbox does not show it. The entries that ask for the sandbox
 * the way a plugin does, or a plugin that asks the way a server does, are
 * refused with the spelling that works.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { runCli, startStdioHost } from './helpers/host.js';
import { makeWorkspace } from './helpers/packages.js';
import { writePlugin } from './helpers/readme.js';
import { firstText } from './helpers/results.js';

const FILESYSTEM = '@modelcontextprotocol/server-filesystem';
const SECRET = 'config-secret-7f3a';

t.test('a sandboxed filesystem server writes where it is granted and cannot read the config', async (t) => {
  const ws = makeWorkspace(t);
  mkdirSync(join(ws.dir, 'data'));
  const config = ws.writeConfig(
    `// ${SECRET}\n` +
      `export default ${JSON.stringify({
        plugins: [
          // The server is told both the data directory and the config's own ('.') are its to use.
          { package: FILESYSTEM, prefix: 'fs', sandbox: true, args: ['./data', '.'], allow: { write: ['./data'] } },
        ],
      })};\n`,
  );
  const host = await startStdioHost(t, config);
  const call = (name: string, args: Record<string, unknown>) =>
    host.client.callTool({ name: `fs.${name}`, arguments: args });

  const note = join(ws.dir, 'data', 'note.txt');
  const written = await call('write_file', { path: note, content: 'written from the sandbox' });
  t.notOk(written.isError, firstText(written));
  t.equal(readFileSync(note, 'utf8'), 'written from the sandbox', 'the granted directory is written for real');

  const allowed = firstText(await call('list_allowed_directories', {}));
  t.match(allowed, ws.dir, "the server itself allows the config's directory");
  for (const path of [config, join(ws.dir, 'data', '..', 'mcp-host.config.js')]) {
    const read = await call('read_text_file', { path });
    t.ok(read.isError, `${path}: refused`);
    t.match(firstText(read), /ENOENT|no such file/i, 'by the sandbox, where the file is not in view');
    t.notMatch(firstText(read), SECRET);
  }
  const listed = firstText(await call('list_directory', { path: ws.dir }));
  t.notMatch(listed, 'mcp-host.config.js', "the config's directory shows only what was granted in it");
  t.match(listed, '[DIR] data');
});

t.test(
  'the sandbox asked for as a plugin asks, or a server as a server asks, is refused with the spelling that works',
  async (t) => {
    const ws = makeWorkspace(t);
    writePlugin(ws, 'node_modules/plug', 'plug', { prefix: 'plug' }, []);
    const config = ws.writeConfig({
      plugins: [
        { package: FILESYSTEM, prefix: 'fs', isolation: 'sandbox', args: ['.'] },
        { package: 'plug', sandbox: true },
        { package: FILESYSTEM, prefix: 'fs2', args: ['.'], allow: { write: ['./data'] }, isolation: 'process' },
      ],
    });
    const { code, stdout } = await runCli(['check', '--config', config]);
    t.equal(code, 1);
    t.match(
      stdout,
      `plugins[0].isolation: "isolation" is for mcp-host plugins, but "${FILESYSTEM}" is an MCP server package run over stdio (its package.json has a "bin" and no "mcp-host" field). Fix: write sandbox: true in its place: the server already runs in a process of its own, and sandbox: true runs it inside the OS sandbox (granted what allow says: read, write, net).`,
    );
    t.match(
      stdout,
      'plugins[1].sandbox: "sandbox" is for MCP server packages run over stdio, but "plug" is an mcp-host plugin (its package.json has an "mcp-host" field). Fix: write isolation: "sandbox" in its place',
    );
    t.match(stdout, 'plugins[2].allow: "allow" is for mcp-host plugins');
    t.match(
      stdout,
      'Fix: add sandbox: true to run the server inside the OS sandbox with these grants, or remove allow.',
    );

    // A sandboxed server is granted as a command is: no env (its entry's env is all it gets), no childProcess.
    const granted = ws.writeConfig({
      plugins: [{ package: FILESYSTEM, prefix: 'fs', sandbox: true, args: ['.'], allow: { env: ['HOME'] } }],
    });
    const refused = await runCli(['check', '--config', granted]);
    t.equal(refused.code, 1);
    t.match(refused.stdout, "plugins[0].allow.env: a command's environment is its entry's env");
  },
);
