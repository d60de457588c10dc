// Containment, plugin side (DESIGN.md, "Containment"): a fault in one
// in-process plugin's code is that plugin's alone. The host runs as a child
// process; the plugins are real packages in a temporary workspace.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { assertLogged, runCli, startHttpHost, startStdioHost, type StdioHost, type Teardown } from './helpers/host.js';
import { makeWorkspace, type Workspace } from './helpers/packages.js';
import { firstText } from './helpers/results.js';

t.setTimeout(300_000);

function manifest(name: string, prefix: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': { prefix }, ...extra };
}

/**
 * A workspace with a steady plugin, a faulty one (each tool is one kind of
 * fault, raised outside the request that asks for it unless it is an exit),
 * and a private control directory for `mcp-host reload`.
 */
function workspace(t: Teardown): Workspace & { env: NodeJS.ProcessEnv } {
  const ws = makeWorkspace(t);
  const runtimeDir = join(ws.dir, 'run');
  mkdirSync(runtimeDir, { mode: 0o700 });
  ws.writePackage('node_modules/@t/steady', manifest('@t/steady', 'steady'), {
    'index.js': `import { McpServer } from '@modelcontextprotocol/server';
export default {
  create() {
    const server = new McpServer({ name: 'steady', version: '1.0.0' });
    server.registerTool('ping', { description: 'Answer pong.' }, async () => ({ content: [{ type: 'text', text: 'pong' }] }));
    return server;
  },
};
`,
  });
  ws.writePackage('node_modules/@t/faulty', manifest('@t/faulty', 'faulty'), {
    'index.js': `import { EventEmitter } from 'node:events';
import { Readable } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/server';
let instances = 0;
const text = (text) => ({ content: [{ type: 'text', text }] });
const later = (fn) => setTimeout(fn, 5);
export default {
  create() {
    const instance = ++instances;
    const server = new McpServer({ name: 'faulty', version: '1.0.0' });
    server.registerTool('instance', { description: 'Which instance answers.' }, async () => text(String(instance)));
    server.registerTool('timer', { description: 'Throw from a timer.' }, async () => {
      later(() => { throw new Error('thrown from a timer'); });
      return text('scheduled');
    });
    server.registerTool('emitter', { description: 'Emit an error nobody listens to.' }, async () => {
      later(() => new EventEmitter().emit('error', new Error('emitted with no listener')));
      return text('scheduled');
    });
    server.registerTool('reject', { description: 'Reject a promise nobody handles.' }, async () => {
      later(() => void Promise.reject(new Error('rejected and forgotten')));
      return text('scheduled');
    });
    server.registerTool('microtask', { description: 'Throw from a microtask.' }, async () => {
      later(() => queueMicrotask(() => { throw new Error('thrown from a microtask'); }));
      return text('scheduled');
    });
    server.registerTool('stream', { description: 'Throw from a stream callback.' }, async () => {
      later(() => {
        const stream = new Readable({ read() {} });
        stream.on('data', () => { throw new Error('thrown from a stream callback'); });
        stream.push('data');
      });
      return text('scheduled');
    });
    server.registerTool('exit', { description: 'End the process.' }, async () => {
      process.exit(5);
    });
    server.registerTool('abort', { description: 'Abort the process.' }, async () => {
      process.abort();
    });
    server.registerTool('kill', { description: 'Signal the process.' }, async () => {
      later(() => process.kill(process.pid, 'SIGTERM'));
      return text('scheduled');
    });
    return server;
  },
};
`,
  });
  ws.writePackage('node_modules/@t/exit-at-import', manifest('@t/exit-at-import', 'quitter'), {
    'index.js': `process.exit(0);\nexport default { create() {} };\n`,
  });
  ws.writePackage('node_modules/@t/exit-in-create', manifest('@t/exit-in-create', 'quitter2'), {
    'index.js': `export default { create() { try { process.exit(3); } catch { /* swallowed */ } return {}; } };\n`,
  });
  ws.writePackage('node_modules/@t/snoop', manifest('@t/snoop', 'snoop'), {
    'index.js': `import { McpServer } from '@modelcontextprotocol/server';
const atImport = process.env.MCP_HOST_HTTP_TOKENS ?? process.env.OTHER_TOKENS ?? null;
export default {
  create() {
    const server = new McpServer({ name: 'snoop', version: '1.0.0' });
    server.registerTool('env', { description: 'What the plugin sees.' }, async () => ({
      content: [{ type: 'text', text: JSON.stringify({ atImport, now: process.env.MCP_HOST_HTTP_TOKENS ?? process.env.OTHER_TOKENS ?? null }) }],
    }));
    return server;
  },
};
`,
  });
  return Object.assign(ws, { env: { ...process.env, XDG_RUNTIME_DIR: runtimeDir, MCP_HOST_LOG_LEVEL: 'debug' } });
}

const FAST_BACKOFF = { reconnectDelayMs: 20, maxReconnectDelayMs: 100 };

function config(plugins: string[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    plugins: plugins.map((name) => ({ package: `@t/${name}` })),
    upstreams: FAST_BACKOFF,
    reload: { watch: false },
    ...extra,
  };
}

async function call(host: StdioHost, name: string): Promise<string> {
  return firstText(await host.client.callTool({ name, arguments: {} }));
}

t.test('a fault in plugin code outside a request restarts that plugin only', async (t) => {
  const ws = workspace(t);
  const host = await startStdioHost(t, ws.writeConfig(config(['steady', 'faulty'])), { env: ws.env });
  let expected = 1;
  const causes: Record<string, string> = {
    timer: 'an exception was thrown outside any request: thrown from a timer.',
    emitter: 'an exception was thrown outside any request: emitted with no listener.',
    reject: 'a promise was rejected with nothing to handle it: rejected and forgotten.',
    microtask: 'its microtask threw: thrown from a microtask.',
    stream: 'an exception was thrown outside any request: thrown from a stream callback.',
    exit: 'its code called process.exit(5), which would have ended the host',
    abort: 'its code called process.abort(), which would have ended the host',
    kill: `its code called process.kill(${host.pid}, SIGTERM) on the host's own process`,
  };
  for (const [tool, cause] of Object.entries(causes)) {
    const notified = host.notified.tools;
    if (tool === 'exit' || tool === 'abort') {
      // The call that faults fails, naming the plugin and the cause.
      await t.rejects(host.client.callTool({ name: `faulty.${tool}`, arguments: {} }), {
        message: `mount "faulty" closed the connection before answering tools/call: ${cause}`,
      });
    } else {
      t.equal(await call(host, `faulty.${tool}`), 'scheduled');
    }
    await host.until(`the ${tool} fault in the log`, () => host.log().includes(cause));
    await assertLogged(t, host.log, `(@t/faulty) faulted: ${cause}`, `the log names the plugin and the ${tool} fault`);
    // Withdrawn, then restored: two list_changed.
    await host.until(`faulty back after ${tool}`, () => host.notified.tools >= notified + 2);
    t.equal(await call(host, 'steady.ping'), 'pong', `the other mount answers after ${tool}`);
    expected++;
    t.equal(await call(host, 'faulty.instance'), String(expected), `a fresh instance after ${tool}`);
  }
  await assertLogged(t, host.log, /went down: .*Reconnecting in \d+ ms/);
  t.notOk(host.transport.pid === undefined, 'the host is still running');
});

/**
 * `@t/lingering` at `version`: 1.0.0 leaves behind, from its import, a timer
 * that throws once a file named `fire` appears in its directory, and says in
 * the host's log when its server is closed.
 */
function writeLingering(ws: Workspace, version: string): void {
  const leftBehind = `import { existsSync } from 'node:fs';
const fire = new URL('./fire', import.meta.url);
const timer = setInterval(() => {
  if (!existsSync(fire)) return;
  clearInterval(timer);
  throw new Error('left behind by ${version}');
}, 20);
timer.unref();
`;
  ws.writePackage(
    'node_modules/@t/lingering',
    { ...manifest('@t/lingering', 'lingering'), version },
    {
      'index.js': `import { McpServer } from '@modelcontextprotocol/server';
${version === '1.0.0' ? leftBehind : ''}let instances = 0;
export default {
  create({ logger }) {
    const instance = ++instances;
    const server = new McpServer({ name: 'lingering', version: '${version}' });
    server.registerTool('instance', { description: 'Which code and instance answers.' }, async () => ({
      content: [{ type: 'text', text: '${version} #' + instance }],
    }));
    const close = server.close.bind(server);
    server.close = async () => {
      logger.info('lingering ${version} closed');
      await close();
    };
    return server;
  },
};
`,
    },
  );
}

t.test('a fault of code a reload replaced is logged, and the instance that replaced it keeps serving', async (t) => {
  const ws = workspace(t);
  writeLingering(ws, '1.0.0');
  const configFile = ws.writeConfig(config(['lingering']));
  const host = await startStdioHost(t, configFile, { env: ws.env });
  t.equal(await call(host, 'lingering.instance'), '1.0.0 #1');
  writeLingering(ws, '2.0.0');
  const reload = await runCli(['reload', '--config', configFile], { env: ws.env });
  t.equal(reload.code, 0, 'the upgrade is reloaded');
  await host.until('1.0.0 closed', () => host.log().includes('lingering 1.0.0 closed'));
  ws.writeFile('node_modules/@t/lingering/fire', '');
  const cause = 'an exception was thrown outside any request: left behind by 1.0.0.';
  await host.until('the fault of 1.0.0 in the log', () => host.log().includes(cause));
  t.match(
    host.log(),
    `(@t/lingering), no longer mounted, faulted: ${cause} Nothing to restart.`,
    'blamed on the code it came from, which nothing runs any more',
  );
  t.notMatch(host.log(), '(@t/lingering) faulted:', 'not on the instance of 2.0.0');
  t.equal(await call(host, 'lingering.instance'), '2.0.0 #1', 'the instance of 2.0.0 still serves, never restarted');
});

t.test('a plugin that exits at import or in create() is refused by check, start and reload', async (t) => {
  const ws = workspace(t);
  const atImport = ws.writeConfig(config(['steady', 'exit-at-import']), 'import.config.js');
  const checked = await runCli(['check', '--config', atImport], { env: ws.env });
  t.equal(checked.code, 1, 'check exits 1, not with the plugin’s 0');
  t.match(
    checked.stdout,
    'plugin "@t/exit-at-import" (plugins[1]): faulted while starting: its code called process.exit(0), which would have ended the host and every plugin in it. Fix: a plugin must not end or signal the host process, nor throw or reject outside a request: throw an error from create() or from a handler instead. The host did not mount it.',
  );

  const inCreate = ws.writeConfig(config(['steady', 'exit-in-create']), 'create.config.js');
  const created = await runCli(['check', '--config', inCreate], { env: ws.env });
  t.equal(created.code, 1);
  t.match(
    created.stdout,
    'plugin "@t/exit-in-create" (plugins[1]): faulted while starting: its code called process.exit(3)',
    'a refusal it swallowed still refuses it',
  );

  const started = await runCli(['start', '--config', atImport], { env: ws.env });
  t.equal(started.code, 1, 'start refuses to serve it');
  t.match(
    started.stderr,
    'plugin "@t/exit-at-import" (plugins[1]): faulted while starting: its code called process.exit(0)',
  );

  const configFile = ws.writeConfig(config(['steady']));
  const host = await startStdioHost(t, configFile, { env: ws.env });
  ws.writeConfig(config(['steady', 'exit-at-import']));
  const reload = await runCli(['reload', '--config', configFile], { env: ws.env });
  t.equal(reload.code, 1, 'the reload is refused');
  t.match(reload.stderr, /reload refused \(a problem\); generation 1 keeps serving unchanged/);
  t.match(
    reload.stderr,
    'plugin "@t/exit-at-import" (plugins[1]): faulted while starting: its code called process.exit(0)',
  );
  t.notMatch(reload.stdout + reload.stderr, /not JSON/);
  t.equal(await call(host, 'steady.ping'), 'pong', 'the live catalogue keeps serving');
  const { tools } = await host.client.listTools();
  t.same(
    tools.map((tool) => tool.name),
    ['steady.ping'],
  );
});

/** A stdio MCP server by hand, whose one tool answers what it sees of the token variables. */
const SNOOPING_CHILD = `import { createInterface } from 'node:readline';
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\\n');
createInterface({ input: process.stdin }).on('line', (line) => {
  const { id, method, params } = JSON.parse(line);
  if (method === 'initialize') {
    send({ id, result: { protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'kid', version: '1.0.0' } } });
  } else if (method === 'tools/list') {
    send({ id, result: { tools: [{ name: 'env', inputSchema: { type: 'object' } }] } });
  } else if (method === 'tools/call') {
    const seen = process.env.MCP_HOST_HTTP_TOKENS ?? process.env.OTHER_TOKENS ?? null;
    send({ id, result: { content: [{ type: 'text', text: JSON.stringify({ now: seen }) }] } });
  } else if (id !== undefined) {
    send({ id, error: { code: -32601, message: 'Method not found' } });
  }
});
`;

t.test('neither plugin code nor a child can read the host’s token variables', async (t) => {
  const ws = workspace(t);
  const child = ws.writeFile('kid.mjs', SNOOPING_CHILD);
  const configFile = ws.writeConfig({
    ...config(['snoop']),
    plugins: [{ package: '@t/snoop' }, { command: process.execPath, args: [child], prefix: 'kid' }],
    http: { port: 0, auth: { tokensEnv: 'OTHER_TOKENS' } },
  });
  const host = await startStdioHost(t, configFile, {
    env: { ...ws.env, MCP_HOST_HTTP_TOKENS: 'default-secret', OTHER_TOKENS: 'other-secret' },
    args: ['--stdio'],
  });
  t.same(JSON.parse(await call(host, 'snoop.env')), { atImport: null, now: null }, 'in process');
  t.same(JSON.parse(await call(host, 'kid.env')), { now: null }, 'in a child');
});

t.test('a fault no plugin can be blamed for is the host’s own: logged, exit 1', async (t) => {
  const ws = workspace(t);
  // A diagnostics channel calls its subscribers in the context of whoever publishes: here the host's HTTP server.
  ws.writePackage('node_modules/@t/anonymous', manifest('@t/anonymous', 'anonymous'), {
    'index.js': `import { subscribe } from 'node:diagnostics_channel';
import { McpServer } from '@modelcontextprotocol/server';
subscribe('http.server.request.start', () => { throw 'no stack, no context'; });
export default { create: () => new McpServer({ name: 'anonymous', version: '1.0.0' }) };
`,
  });
  const host = await startHttpHost(t, ws.writeConfig(config(['steady', 'anonymous'])), { env: ws.env });
  await fetch(host.url).catch(() => {});
  t.equal(await host.exited, 1);
  await assertLogged(
    t,
    host.log,
    /"msg":"an exception was thrown outside any request, in no plugin's async context nor in a callback a plugin registered: the host's own fault; exiting with status 1"/,
  );
});
