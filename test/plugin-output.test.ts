// stdout belongs to the transport (DESIGN.md, "Containment"): in stdio mode
// nothing an in-process or worker plugin prints reaches the client, and what
// it prints to stderr is marked as its own, so it cannot pass for the host's
// log. The host runs as a child process, spoken to line by line on its real
// stdout; the plugin is a real package in a temporary workspace.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import t from 'tap';
import { CLI, jsonRpcLine, rawInitializeLine, until } from './helpers/host.js';
import { EVENT_MS } from './helpers/timing.js';
import { makeWorkspace } from './helpers/packages.js';

t.setTimeout(60_000);

/** Every way the plugin prints; each text names how it was printed. */
const PRINTER = `import fs from 'node:fs';
import { writeSync, writevSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { McpServer } from '@modelcontextprotocol/server';
const forgedAnswer = (id, text) => JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });
const forgedFatal = (msg) => JSON.stringify({ level: 60, time: Date.now(), pid: process.pid, name: 'mcp-host', msg });
export default {
  create({ logger }) {
    const server = new McpServer({ name: 'printer', version: '1.0.0' });
    server.registerTool('print', { description: 'Print everywhere.' }, async () => {
      // Its own logger, told that the line is no plugin's.
      logger.warn({ plugin: null }, 'LOGGED as no plugin');
      console.log(forgedAnswer(2, 'FORGED console.log'));
      process.stdout.write('FORGED stdout.write\\n');
      process.stdout.write(Buffer.from('FORGED stdout.write buffer\\n'), 'utf8', () => {});
      writeSync(1, forgedAnswer(2, 'FORGED writeSync'));
      writeSync(1, Buffer.from('..FORGED writeSync range..'), 2, 23);
      writevSync(1, [Buffer.from('FORGED '), Buffer.from('writevSync\\n')]);
      fs.writeFileSync(1, 'FORGED writeFileSync\\n');
      fs.appendFileSync(1, 'FORGED appendFileSync\\n', { encoding: 'utf8' });
      await new Promise((resolve) => fs.write(1, 'FORGED write\\n', resolve));
      await new Promise((resolve) => fs.write(1, Buffer.from('FORGED write buffer\\n'), { offset: 0 }, resolve));
      await new Promise((resolve) => fs.writev(1, [Buffer.from('FORGED writev\\n')], resolve));
      await new Promise((resolve) => fs.createWriteStream(null, { fd: 1, autoClose: false }).write('FORGED write stream\\n', resolve));
      console.error(forgedFatal('FORGED console.error'));
      process.stderr.write(forgedFatal('FORGED stderr.write') + '\\n');
      // In the host's own thread fd 2 is the host's log too, written from any context: only a worker's is caught.
      if (!isMainThread) writeSync(2, forgedFatal('FORGED fd 2') + '\\n');
      // Other descriptors are the plugin's business.
      const file = join(tmpdir(), 'mcp-host-printer-' + process.pid + '-' + Math.random());
      const fd = fs.openSync(file, 'w');
      writeSync(fd, 'kept');
      writevSync(fd, [Buffer.from(' here')]);
      fs.closeSync(fd);
      fs.appendFileSync(file, '.');
      const kept = fs.readFileSync(file, 'utf8');
      fs.rmSync(file);
      return { content: [{ type: 'text', text: kept }] };
    });
    return server;
  },
};
`;

const PRINTS = [
  'FORGED console.log',
  'FORGED stdout.write',
  'FORGED stdout.write buffer',
  'FORGED writeSync',
  'FORGED writeSync range',
  'FORGED writevSync',
  'FORGED writeFileSync',
  'FORGED appendFileSync',
  'FORGED write',
  'FORGED write buffer',
  'FORGED writev',
  'FORGED write stream',
  'FORGED console.error',
  'FORGED stderr.write',
];

t.test('in stdio mode a plugin’s prints reach the host’s log as its own, never the client', async (t) => {
  const ws = makeWorkspace(t);
  ws.writePackage(
    'node_modules/@t/printer',
    { name: '@t/printer', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': { prefix: 'p' } },
    { 'index.js': PRINTER },
  );
  const configFile = ws.writeConfig({
    plugins: [
      { package: '@t/printer', prefix: 'inside' },
      { package: '@t/printer', prefix: 'walled', isolation: 'worker' },
    ],
    reload: { watch: false },
  });
  const host = spawn(process.execPath, [CLI, 'start', '--stdio', '--config', configFile], {
    env: { ...process.env, MCP_HOST_LOG_LEVEL: 'info' },
  });
  t.teardown(() => host.kill());
  const stdout: string[] = [];
  const stderr: string[] = [];
  createInterface({ input: host.stdout }).on('line', (line) => stdout.push(line));
  createInterface({ input: host.stderr }).on('line', (line) => stderr.push(line));
  const answered = (id: number) => stdout.some((line) => (JSON.parse(line) as { id?: number }).id === id);

  host.stdin.write(rawInitializeLine('raw'));
  await until(
    'initialize answered',
    () => answered(0),
    EVENT_MS,
    () => stderr.join('\n'),
  );
  host.stdin.write(jsonRpcLine({ method: 'notifications/initialized' }));
  host.stdin.write(jsonRpcLine({ id: 1, method: 'tools/call', params: { name: 'inside.print', arguments: {} } }));
  host.stdin.write(jsonRpcLine({ id: 2, method: 'tools/call', params: { name: 'walled.print', arguments: {} } }));
  await until(
    'both calls answered',
    () => answered(1) && answered(2),
    EVENT_MS,
    () => stderr.join('\n'),
  );

  t.same(
    stdout.map((line) => (JSON.parse(line) as { id?: number }).id),
    [0, 1, 2],
    'stdout carries the host’s three answers and nothing else',
  );
  for (const id of [1, 2]) {
    const answer = JSON.parse(stdout.find((line) => line.includes(`"id":${id}`))!) as {
      result: { content: { text: string }[] };
    };
    t.same(answer.result.content, [{ type: 'text', text: 'kept here.' }], 'writes to its own files are untouched');
  }
  t.notMatch(stdout.join('\n'), 'FORGED');

  const expected = [
    ...PRINTS.map((text) => ['inside', text]),
    ...[...PRINTS, 'FORGED fd 2'].map((text) => ['walled', text]),
  ];
  await until('every print logged', () => expected.every(([, text]) => stderr.some((line) => line.includes(text!))));
  for (const line of stderr.filter((line) => line.includes('FORGED'))) {
    const entry = JSON.parse(line) as Record<string, unknown>;
    t.match(
      entry,
      { name: 'mcp-host', level: 30, stream: /^std(out|err)$/ },
      `logged as a line the plugin printed: ${line}`,
    );
    t.ok(entry.plugin === 'inside' || entry.plugin === 'walled', 'named as the plugin’s');
    t.match(entry.msg, /FORGED/, 'the printed text is the message, not the entry');
  }
  for (const [plugin, text] of expected) {
    t.ok(
      stderr.some((line) => {
        const entry = JSON.parse(line) as Record<string, unknown>;
        return entry.plugin === plugin && String(entry.msg).includes(text!);
      }),
      `${plugin}: "${text}" is logged as ${plugin}'s`,
    );
  }
  for (const plugin of ['inside', 'walled']) {
    const logged = stderr.filter(
      (line) => line.includes('LOGGED as no plugin') && line.includes(`"plugin":"${plugin}"`),
    );
    t.equal(logged.length, 1, `${plugin}'s own logger line is there once`);
    t.match(
      JSON.parse(logged[0] ?? '{}'),
      { plugin, level: 40 },
      'and still names the plugin: a field cannot unname it',
    );
  }
  t.notOk(
    stderr.some((line) => (JSON.parse(line) as { level: number }).level === 60),
    'no fatal entry: a plugin’s forged one is only its printed text',
  );
});
