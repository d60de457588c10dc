/**
 * Containment under load: one host, many clients, and the clients and the
 * plugin that should not be able to hurt the others.
 *
 * `mcp-host start --http` runs as a child process with one in-process
 * plugin, `chatty`, that logs 1,000 lines a second outside any call and
 * sends 200 resource updates a second (of an 8 KB URI). Against it, for LOAD_SECONDS:
 *
 * - LOAD_ACTIVE SDK clients call `chatty.echo` in a loop (their latency is
 *   what is reported);
 * - LOAD_QUIET raw 2025-era sessions initialize and go quiet;
 * - one reader opens its GET stream, subscribes to the updates and stops
 *   reading (the host must close its stream over http.maxStreamQueueBytes);
 * - the config is reloaded (SIGHUP) every LOAD_RELOAD_MS;
 * - /healthz is probed every 50 ms, the host's RSS sampled every 100 ms.
 *
 * It reports the active clients' p50/p99 latency, the worst /healthz, the
 * peak RSS, and whether the unread stream was closed. Loopback only; every
 * loop ends at the deadline. `npm run load` (after a build).
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { makeWorkspace } from '../test/helpers/packages.js';
import { percentile, round, rssMiB, startHost, waitUntilReady } from './soak.js';

export interface LoadOptions {
  seconds: number;
  active: number;
  quiet: number;
  reloadEveryMs: number;
}

export interface LoadReport {
  options: LoadOptions;
  calls: number;
  failedCalls: number;
  latencyMs: { p50: number; p99: number };
  healthzWorstMs: number;
  healthzProbes: number;
  peakRssMiB: number;
  reloads: number;
  unreadStreamClosed: boolean;
}

const FEED_URI = `chat://feed/${'x'.repeat(8000)}`;

const CHATTY_PLUGIN = `import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
export default {
  create() {
    const server = new McpServer({ name: 'chatty', version: '1.0.0' }, { capabilities: { logging: {}, resources: { subscribe: true } } });
    server.registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
    server.registerResource('feed', ${JSON.stringify(FEED_URI)}, {}, async (uri) => ({ contents: [{ uri: uri.href, text: 'feed' }] }));
    server.server.setRequestHandler('resources/subscribe', async () => ({}));
    server.server.setRequestHandler('resources/unsubscribe', async () => ({}));
    let line = 0;
    const timer = setInterval(() => {
      for (let i = 0; i < 10; i++) void server.sendLoggingMessage({ level: 'info', data: 'chatter ' + line++ }).catch(() => {});
      for (let i = 0; i < 2; i++) void server.server.sendResourceUpdated({ uri: ${JSON.stringify(FEED_URI)} }).catch(() => {});
    }, 10);
    timer.unref();
    return server;
  },
};
`;

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function openSession(url: string): Promise<string> {
  const response = await fetch(url, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'quiet', version: '1' } },
    }),
  });
  await response.text();
  const session = response.headers.get('mcp-session-id')!;
  const post = (body: object) =>
    fetch(url, {
      method: 'POST',
      headers: { ...HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify(body),
    }).then((r) => r.text());
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return session;
}

/** A session that subscribes to the feed, opens its GET stream, and never reads it. */
async function stopsReading(url: string): Promise<void> {
  const session = await openSession(url);
  await fetch(url, {
    method: 'POST',
    headers: { ...HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: FEED_URI } }),
  }).then((r) => r.text());
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = httpRequest(url, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    });
    req.on('response', resolve).on('error', reject).end();
  });
  // Paused, its socket does not even notice when the host cuts it: the host's log says so.
  response.pause();
}

export async function runLoad(options: LoadOptions, log: (line: string) => void = () => {}): Promise<LoadReport> {
  const ws = makeWorkspace();
  ws.writeFile('run/.keep', '');
  ws.writePackage(
    'node_modules/@load/chatty',
    { name: '@load/chatty', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': { prefix: 'chatty' } },
    { 'index.js': CHATTY_PLUGIN },
  );
  const config = ws.writeConfig({
    plugins: [{ package: '@load/chatty' }],
    reload: { watch: false },
    http: { port: 0, maxSessions: options.quiet + options.active + 10, maxStreamQueueBytes: 256 * 1024 },
  });
  // At info: the host says where it listens (and its log is the chatter's sink: it goes to stderr, unread here).
  const host = await startHost(config, { XDG_RUNTIME_DIR: join(ws.dir, 'run'), MCP_HOST_LOG_LEVEL: 'info' });
  const pid = host.child.pid!;
  const clients: Client[] = [];
  try {
    await waitUntilReady(host.url, 10_000);
    for (let opened = 0; opened < options.quiet; opened += 50) {
      await Promise.all(Array.from({ length: Math.min(50, options.quiet - opened) }, () => openSession(host.url)));
    }
    log(`load: ${options.quiet} quiet sessions open`);
    await stopsReading(host.url);
    for (let i = 0; i < options.active; i++) {
      const client = new Client({ name: 'active', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(host.url)));
      clients.push(client);
    }
    log(`load: ${options.active} active clients; running ${options.seconds} s`);

    const deadline = Date.now() + options.seconds * 1000;
    const latencies: number[] = [];
    let failedCalls = 0;
    const callLoops = clients.map(async (client, index) => {
      for (let n = 0; Date.now() < deadline; n++) {
        const started = performance.now();
        try {
          await client.callTool({ name: 'chatty.echo', arguments: { text: `${index}:${n}` } });
          latencies.push(performance.now() - started);
        } catch {
          failedCalls++;
        }
      }
    });
    let reloads = 0;
    const reloadLoop = (async () => {
      while (options.reloadEveryMs > 0 && Date.now() + options.reloadEveryMs < deadline) {
        await sleep(options.reloadEveryMs);
        process.kill(pid, 'SIGHUP');
        reloads++;
      }
    })();
    const health = host.url.replace(/\/mcp$/, '/healthz');
    let healthzWorstMs = 0;
    let healthzProbes = 0;
    const healthLoop = (async () => {
      while (Date.now() < deadline) {
        const started = performance.now();
        await fetch(health).then((r) => r.text());
        healthzWorstMs = Math.max(healthzWorstMs, performance.now() - started);
        healthzProbes++;
        await sleep(50);
      }
    })();
    let peakRssMiB = 0;
    const rssLoop = (async () => {
      while (Date.now() < deadline) {
        peakRssMiB = Math.max(peakRssMiB, rssMiB(pid));
        await sleep(100);
      }
    })();
    await Promise.all([...callLoops, reloadLoop, healthLoop, rssLoop]);
    latencies.sort((a, b) => a - b);
    return {
      options,
      calls: latencies.length + failedCalls,
      failedCalls,
      latencyMs: { p50: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)) },
      healthzWorstMs: round(healthzWorstMs),
      healthzProbes,
      peakRssMiB,
      reloads,
      unreadStreamClosed: /closed an HTTP stream whose client left more than/.test(host.log()),
    };
  } finally {
    await Promise.allSettled(clients.map((client) => client.close()));
    host.child.kill('SIGKILL');
    ws.cleanup();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
  const report = await runLoad(
    {
      seconds: env('LOAD_SECONDS', 30),
      active: env('LOAD_ACTIVE', 10),
      quiet: env('LOAD_QUIET', 1000),
      reloadEveryMs: env('LOAD_RELOAD_MS', 1000),
    },
    (line) => process.stderr.write(`${line}\n`),
  );
  const { options } = report;
  process.stdout.write(
    [
      `mcp-host containment load: ${options.seconds} s, ${options.active} active clients, ${options.quiet} quiet sessions, a chatty plugin, a reload every ${options.reloadEveryMs} ms (${report.reloads} done), one reader that stops reading`,
      `  calls: ${report.calls} (${report.failedCalls} failed); latency p50 ${report.latencyMs.p50} ms, p99 ${report.latencyMs.p99} ms`,
      `  /healthz worst: ${report.healthzWorstMs} ms over ${report.healthzProbes} probes`,
      `  host peak RSS: ${report.peakRssMiB} MiB`,
      `  unread stream closed by the host (http.maxStreamQueueBytes): ${report.unreadStreamClosed ? 'yes' : 'no'}`,
    ].join('\n') + '\n',
  );
  process.exit(report.failedCalls === 0 ? 0 : 1);
}
