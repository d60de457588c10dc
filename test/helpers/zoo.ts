/**
 * A zoo of faulty plugins, written as real packages into a test workspace:
 *
 * - `@zoo/good`: a well-behaved SDK v2 plugin (`good.echo`), the witness that
 *   the other mounts keep answering while one misbehaves.
 * - `@zoo/faulty`: an in-process plugin whose server is written by hand (no
 *   SDK), so it can break every rule. `options.fault` picks how it fails at
 *   start-up; its `fault` tool switches how its lists fail afterwards; most
 *   other tools each fail a call in one way; `progress` reports progress
 *   (slowly, or as a flood) before answering, and `grow` adds or removes a
 *   tool, announcing it.
 * - `zoo-child`: a stdio MCP server written by hand, run as a child: it
 *   writes garbage to stdout, exits mid-call, and floods.
 *
 *   const ws = makeWorkspace(t);
 *   writeZoo(ws);
 *   ws.writeConfig({ plugins: [{ package: '@zoo/good' }, { package: '@zoo/faulty', prefix: 'bad', options: { fault: 'list-hangs' } }] });
 */
import type { Workspace } from './packages.js';

/** How `@zoo/faulty` fails when it starts (`options.fault`) or lists (its `fault` tool). */
export type ZooFault =
  | 'none'
  | 'create-throws'
  | 'create-hangs'
  | 'list-throws'
  | 'list-error'
  | 'list-hangs'
  | 'list-forever'
  | 'list-repeats'
  | 'list-no-array'
  | 'list-bad-items';

const GOOD_PLUGIN = `import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
export default {
  create() {
    const server = new McpServer({ name: 'good', version: '1.0.0' });
    server.registerTool('echo', { description: 'Echo text', inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({
      content: [{ type: 'text', text }],
    }));
    return server;
  },
};
`;

/**
 * The hand-written in-process server. It implements only what the host's
 * link drives (connect, close, the transport's onmessage/send), answers
 * initialize and ping, and misbehaves everywhere else on request.
 */
const FAULTY_PLUGIN = `const tool = (name) => ({ name, description: name, inputSchema: { type: 'object' } });
const TOOLS = ['fault', 'echo', 'boom', 'throw', 'reject', 'hang', 'malformed', 'missing', 'huge', 'flood', 'storm', 'progress', 'grow']
  .map(tool);
const text = (text) => ({ content: [{ type: 'text', text }] });

class FaultyServer {
  constructor(fault) {
    this.fault = fault;
    this.pages = 0;
    this.tools = [...TOOLS]; // each instance its own: grow changes one mount only
  }
  async connect(transport) {
    this.transport = transport;
    transport.onmessage = (message) => this.receive(message);
    await transport.start();
  }
  async close() {
    await this.transport?.close();
  }
  send(message) {
    return this.transport.send({ jsonrpc: '2.0', ...message });
  }
  receive(message) {
    const { id, method, params } = message;
    if (id === undefined || method === undefined) return;
    const answer = (result) => this.send({ id, result });
    switch (method) {
      case 'initialize':
        return answer({
          protocolVersion: params.protocolVersion,
          capabilities: { tools: {}, logging: {} },
          serverInfo: { name: 'zoo-faulty', version: '1.0.0' },
        });
      case 'ping':
        return answer({});
      case 'tools/list':
        return this.list(id, params?.cursor, answer);
      case 'tools/call':
        return this.call(id, params, answer);
      default:
        return this.send({ id, error: { code: -32601, message: 'Method not found' } });
    }
  }
  list(id, cursor, answer) {
    switch (this.fault) {
      case 'list-throws':
        throw new Error('zoo: the list handler threw');
      case 'list-error':
        return this.send({ id, error: { code: -32603, message: 'zoo: listing failed' } });
      case 'list-hangs':
        return undefined;
      case 'list-forever':
        return answer({ tools: [], nextCursor: 'page-' + ++this.pages });
      case 'list-repeats':
        return answer({ tools: cursor ? [] : this.tools, nextCursor: 'again' });
      case 'list-no-array':
        return answer({ tools: 'none' });
      case 'list-bad-items':
        return answer({ tools: [{ name: 42, description: ['not', 'a', 'string'] }] });
      default:
        return answer({ tools: this.tools });
    }
  }
  call(id, params, answer) {
    const args = params.arguments ?? {};
    switch (params.name) {
      case 'fault':
        this.fault = args.fault;
        return answer(text('fault: ' + args.fault));
      case 'echo':
        return answer(text(String(args.text)));
      case 'boom':
        return this.send({ id, error: { code: -32000, message: 'zoo: boom' } });
      case 'throw':
        throw new Error('zoo: the call handler threw');
      case 'reject':
        // A rejection nobody handles: the process's unhandledRejection.
        Promise.reject(new Error('zoo: a rejection nobody handles'));
        return undefined;
      case 'hang':
        return undefined;
      case 'malformed':
        return answer({ content: 'not a list', isError: 'maybe' });
      case 'missing':
        return answer({ content: [{ type: 'text' }] });
      case 'huge':
        return answer(text('x'.repeat(args.bytes ?? 10 * 1024 * 1024)));
      case 'flood':
        for (let i = 0; i < args.count; i++) {
          this.send({ method: 'notifications/message', params: { level: 'info', data: 'zoo flood ' + i } });
        }
        return answer(text('flooded ' + args.count));
      case 'storm':
        for (let i = 0; i < args.count; i++) this.send({ method: 'notifications/tools/list_changed' });
        return answer(text('stormed ' + args.count));
      case 'progress': {
        // count progress notifications, everyMs apart (0: all at once), then the answer.
        const progressToken = params._meta?.progressToken;
        const step = (progress) => {
          if (progressToken === undefined) return;
          this.send({ method: 'notifications/progress', params: { progressToken, progress, total: args.count } });
        };
        if (!(args.everyMs > 0)) {
          for (let i = 1; i <= args.count; i++) step(i);
          return answer(text('progressed ' + args.count));
        }
        let sent = 0;
        const tick = () => {
          if (sent === args.count) return answer(text('progressed ' + args.count));
          step(++sent);
          setTimeout(tick, args.everyMs);
        };
        return tick();
      }
      case 'grow': {
        // Adds the tool "grown", or takes it away again, and says so.
        const at = this.tools.findIndex((t) => t.name === 'grown');
        if (at === -1) this.tools.push(tool('grown'));
        else this.tools.splice(at, 1);
        this.send({ method: 'notifications/tools/list_changed' });
        return answer(text(at === -1 ? 'grown' : 'shrunk'));
      }
      default:
        return this.send({ id, error: { code: -32602, message: 'Unknown tool ' + params.name } });
    }
  }
}

export default {
  async create({ options }) {
    const fault = options.fault ?? 'none';
    if (fault === 'create-throws') throw new Error('zoo: create failed on purpose');
    if (fault === 'create-hangs') return new Promise(() => {});
    return new FaultyServer(fault);
  },
};
`;

/**
 * The hand-written stdio child: \`echo\`; \`garbage\` writes a line that is not
 * JSON and one that is JSON but not JSON-RPC, then its answer, all in one
 * write; \`exit\` exits mid-call; \`flood\` writes \`count\` log messages, then
 * answers; \`big\` answers with \`bytes\` of text, the envelope first, and
 * \`big-id-last\` the way the SDKs serialise (the id last), each followed in
 * the same write by a log message.
 */
const CHILD_SERVER = `#!/usr/bin/env node
import { createInterface } from 'node:readline';
const line = (message) => JSON.stringify({ jsonrpc: '2.0', ...message }) + '\\n';
const tools = ['echo', 'garbage', 'exit', 'flood', 'big', 'big-id-last'].map((name) => ({ name, inputSchema: { type: 'object' } }));
const text = (text) => ({ content: [{ type: 'text', text }] });
const after = { method: 'notifications/message', params: { level: 'info', data: 'after the big answer' } };
createInterface({ input: process.stdin }).on('line', (raw) => {
  const { id, method, params } = JSON.parse(raw);
  const answer = (result) => process.stdout.write(line({ id, result }));
  switch (method) {
    case 'initialize':
      return answer({ protocolVersion: params.protocolVersion, capabilities: { tools: {}, logging: {} }, serverInfo: { name: 'zoo-child', version: '1.0.0' } });
    case 'ping':
      return answer({});
    case 'tools/list':
      return answer({ tools });
    case 'tools/call': {
      const args = params.arguments ?? {};
      switch (params.name) {
        case 'echo':
          return answer(text(String(args.text)));
        case 'garbage':
          return process.stdout.write('this is not JSON\\n{"neither":"is this JSON-RPC"}\\n' + line({ id, result: text('after the garbage') }));
        case 'exit':
          process.stderr.write('zoo-child: exiting mid-call on purpose\\n');
          return process.exit(3);
        case 'flood': {
          let out = '';
          for (let i = 0; i < args.count; i++) out += line({ method: 'notifications/message', params: { level: 'info', data: 'child flood ' + i } });
          return process.stdout.write(out + line({ id, result: text('flooded ' + args.count) }));
        }
        case 'big':
          return process.stdout.write(line({ id, result: text('x'.repeat(args.bytes)) }) + line(after));
        case 'big-id-last':
          return process.stdout.write(JSON.stringify({ result: text('x'.repeat(args.bytes)), jsonrpc: '2.0', id }) + '\\n' + line(after));
      }
      return process.stdout.write(line({ id, error: { code: -32602, message: 'Unknown tool' } }));
    }
    default:
      if (id !== undefined) process.stdout.write(line({ id, error: { code: -32601, message: 'Method not found' } }));
  }
});
`;

/** Write the zoo's three packages into `ws`'s node_modules. */
export function writeZoo(ws: Workspace): void {
  ws.writePackage(
    'node_modules/@zoo/good',
    { name: '@zoo/good', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': { prefix: 'good' } },
    { 'index.js': GOOD_PLUGIN },
  );
  ws.writePackage(
    'node_modules/@zoo/faulty',
    { name: '@zoo/faulty', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': { prefix: 'bad' } },
    { 'index.js': FAULTY_PLUGIN },
  );
  ws.writePackage(
    'node_modules/zoo-child',
    { name: 'zoo-child', version: '1.0.0', type: 'module', bin: { 'zoo-child': 'server.js' } },
    { 'server.js': CHILD_SERVER },
  );
}
