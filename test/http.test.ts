// Streamable HTTP through `mcp-host start --http`: one endpoint serving
// 2025-era clients (initialize + sessions) and 2026-07-28 clients (stateless
// requests, subscriptions/listen), list_changed reaching both, DNS-rebinding
// protection, the body limit, unknown sessions, cancellation on disconnect,
// bearer auth and a clean shutdown. The host runs as a child process with a
// real plugin package on disk; clients are the SDK's own.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { Agent, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { pino } from 'pino';
import { Client, StreamableHTTPClientTransport, type FetchLike } from '@modelcontextprotocol/client';
import {
  CLI,
  eventually,
  postInitialize,
  runCli,
  startHttpHost,
  until,
  watchingNotificationStream,
  type Teardown,
} from './helpers/host.js';
import { makeWorkspace, type Workspace } from './helpers/packages.js';
import { firstText } from './helpers/results.js';
import { loadConfig } from '../host/config/load.js';
import { serveInProcess } from './helpers/in-process-http.js';
import { progressOnTheWire } from './helpers/wire-progress.js';

const MODERN = '2026-07-28';

/**
 * A v2 plugin with what HTTP serving needs to show: an echo, a counter that
 * reports progress, a call that waits until it is cancelled (and records the
 * cancellation in a marker file), and a tool that adds a tool, so the plugin
 * itself sends tools/list_changed.
 */
const LAB_PLUGIN = `
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

export default {
  create({ options }) {
    const server = new McpServer({ name: 'lab', version: '1.0.0' }, { capabilities: { resources: { subscribe: true } } });
    server.registerTool('echo', { description: 'Echo text', inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({
      content: [{ type: 'text', text }],
    }));
    server.registerTool(
      'count',
      { description: 'Count to n, reporting progress', inputSchema: z.object({ n: z.number().int() }) },
      async ({ n }, ctx) => {
        const progressToken = ctx.mcpReq._meta?.progressToken;
        for (let i = 1; i <= n; i++) {
          if (progressToken !== undefined) {
            await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress: i, total: n } });
          }
          await sleep(5);
        }
        return { content: [{ type: 'text', text: 'counted to ' + n }] };
      },
    );
    server.registerTool(
      'wait',
      { description: 'Wait until cancelled (30 s at most)', inputSchema: z.object({ tag: z.string() }) },
      async ({ tag }, ctx) => {
        const { signal } = ctx.mcpReq;
        writeFileSync(join(options.markers, tag + '.started'), '');
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, 30000);
          signal.addEventListener('abort', () => {
            clearTimeout(timer);
            writeFileSync(join(options.markers, tag + '.cancelled'), String(signal.reason?.message ?? signal.reason));
            resolve();
          }, { once: true });
        });
        return { content: [{ type: 'text', text: signal.aborted ? 'cancelled' : 'not cancelled' }] };
      },
    );
    // A resource clients can watch; bump changes it and tells the subscribers.
    let gauge = 0;
    const watched = new Set();
    server.registerResource('gauge', 'lab://gauge', { description: 'A number', mimeType: 'text/plain' }, async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: String(gauge) }],
    }));
    server.server.setRequestHandler('resources/subscribe', async (request) => {
      watched.add(request.params.uri);
      return {};
    });
    server.server.setRequestHandler('resources/unsubscribe', async (request) => {
      watched.delete(request.params.uri);
      return {};
    });
    server.registerTool('bump', { description: 'Change the gauge' }, async () => {
      gauge += 1;
      if (watched.has('lab://gauge')) await server.server.sendResourceUpdated({ uri: 'lab://gauge' });
      return { content: [{ type: 'text', text: String(gauge) }] };
    });
    server.registerTool('watched', { description: 'What the host subscribed to' }, () => ({
      content: [{ type: 'text', text: [...watched].join(',') || 'nothing' }],
    }));
    let added = 0;
    server.registerTool('grow', { description: 'Register one more tool' }, () => {
      added += 1;
      const name = 'extra_' + added;
      server.registerTool(name, { description: 'Added at run time' }, () => ({ content: [{ type: 'text', text: name }] }));
      return { content: [{ type: 'text', text: name }] };
    });
    return server;
  },
};
`;

function writeLab(ws: Workspace, extra: Record<string, unknown> = {}): { config: string; markers: string } {
  const markers = join(ws.dir, 'markers');
  ws.writeFile('markers/.keep', '');
  ws.writePackage(
    'node_modules/@test/mcp-lab',
    { name: '@test/mcp-lab', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': { prefix: 'lab' } },
    { 'index.js': LAB_PLUGIN },
  );
  const config = ws.writeConfig({
    plugins: [{ package: '@test/mcp-lab', options: { markers } }],
    reload: { watch: false },
    ...extra,
  });
  return { config, markers };
}

/** A 2025-era client; `streamOpen` settles once its notification stream is open. */
async function legacyClient(t: Teardown, url: string, options: { fetch?: FetchLike; requestInit?: RequestInit } = {}) {
  const client = new Client({ name: 'legacy-client', version: '1.0.0' });
  const stream = watchingNotificationStream(options.fetch);
  const transport = new StreamableHTTPClientTransport(new URL(url), { ...options, fetch: stream.fetch });
  await client.connect(transport);
  t.teardown(() => client.close());
  return { client, transport, streamOpen: stream.opened };
}

async function modernClient(t: Teardown, url: string, options: { fetch?: FetchLike } = {}) {
  const client = new Client(
    { name: 'modern-client', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN } } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(url), options);
  await client.connect(transport);
  t.teardown(() => client.close());
  return { client, transport };
}

/** A raw HTTP request, for headers fetch will not let a caller set (Host). */
function rawRequest(
  url: string,
  {
    method = 'POST',
    headers = {},
    body,
    agent,
  }: { method?: string; headers?: Record<string, string>; body?: string; agent?: Agent },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: text, reused: req.reusedSocket }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const TOOLS_LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

t.test('one host over HTTP', async (t) => {
  const ws = makeWorkspace(t);
  const { config, markers } = writeLab(ws);
  const host = await startHttpHost(t, config);
  t.match(host.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/, 'the bound URL is logged with its real port');

  t.test('a 2025-era client lists and calls a tool, with progress', async (t) => {
    const { client, transport } = await legacyClient(t, host.url);
    t.ok(transport.sessionId, 'the host opened a session');
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    t.same(names.filter((name) => !name.startsWith('lab.extra_')).sort(), [
      'lab.bump',
      'lab.count',
      'lab.echo',
      'lab.grow',
      'lab.wait',
      'lab.watched',
    ]);
    t.equal(firstText(await client.callTool({ name: 'lab.echo', arguments: { text: 'hello' } })), 'hello');
    const wire = progressOnTheWire(transport);
    const counted = await client.callTool({ name: 'lab.count', arguments: { n: 3 } }, { onprogress: () => {} });
    t.equal(firstText(counted), 'counted to 3');
    t.same(wire.take(), [1, 2, 3], 'the plugin’s progress reached the caller');
  });

  t.test('a 2026-07-28 client lists and calls a tool, with progress', async (t) => {
    const { client, transport } = await modernClient(t, host.url);
    t.equal(client.getNegotiatedProtocolVersion(), MODERN);
    t.equal(transport.sessionId, undefined, 'no session in the stateless era');
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    t.ok(names.includes('lab.echo'), 'lists the composed names');
    t.equal(firstText(await client.callTool({ name: 'lab.echo', arguments: { text: 'modern' } })), 'modern');
    const wire = progressOnTheWire(transport);
    const counted = await client.callTool({ name: 'lab.count', arguments: { n: 2 } }, { onprogress: () => {} });
    t.equal(firstText(counted), 'counted to 2');
    t.same(wire.take(), [1, 2]);
  });

  t.test('two concurrent 2025-era sessions keep their own progress and outlive each other', async (t) => {
    const a = await legacyClient(t, host.url);
    const b = await legacyClient(t, host.url);
    t.not(a.transport.sessionId, b.transport.sessionId, 'two sessions');
    const wire = { a: progressOnTheWire(a.transport), b: progressOnTheWire(b.transport) };
    const [ra, rb] = await Promise.all([
      a.client.callTool({ name: 'lab.count', arguments: { n: 4 } }, { onprogress: () => {} }),
      b.client.callTool({ name: 'lab.count', arguments: { n: 2 } }, { onprogress: () => {} }),
    ]);
    t.equal(firstText(ra), 'counted to 4');
    t.equal(firstText(rb), 'counted to 2');
    t.same(
      { a: wire.a.take(), b: wire.b.take() },
      { a: [1, 2, 3, 4], b: [1, 2] },
      'each session saw only its own progress',
    );
    await a.transport.terminateSession();
    t.equal(firstText(await b.client.callTool({ name: 'lab.echo', arguments: { text: 'still here' } })), 'still here');
  });

  t.test('a plugin’s own list_changed reaches clients of both eras', async (t) => {
    const legacy = await legacyClient(t, host.url);
    const modern = await modernClient(t, host.url);
    let legacyHeard = 0;
    let modernHeard = 0;
    legacy.client.setNotificationHandler('notifications/tools/list_changed', () => {
      legacyHeard += 1;
    });
    modern.client.setNotificationHandler('notifications/tools/list_changed', () => {
      modernHeard += 1;
    });
    // The marker: a resource update sent after the list_changed on the same streams.
    const markers = { legacy: 0, modern: 0 };
    legacy.client.setNotificationHandler('notifications/resources/updated', () => void markers.legacy++);
    modern.client.setNotificationHandler('notifications/resources/updated', () => void markers.modern++);
    await legacy.client.subscribeResource({ uri: 'lab://gauge' });
    const subscription = await modern.client.listen({ toolsListChanged: true, resourceSubscriptions: ['lab://gauge'] });
    await legacy.streamOpen;
    const added = firstText(await legacy.client.callTool({ name: 'lab.grow', arguments: {} }));
    await until('tools/list_changed on both clients', () => legacyHeard > 0 && modernHeard > 0);
    await legacy.client.callTool({ name: 'lab.bump', arguments: {} });
    await until('the marker on both clients', () => markers.legacy > 0 && markers.modern > 0);
    t.equal(legacyHeard, 1, 'the legacy session heard it once');
    t.equal(modernHeard, 1, 'the listen stream heard it once');
    await legacy.client.unsubscribeResource({ uri: 'lab://gauge' });
    await subscription.close();
    const names = (await modern.client.listTools()).tools.map((tool) => tool.name);
    t.ok(names.includes(`lab.${added}`), 'the new tool is listed');
    t.equal(firstText(await legacy.client.callTool({ name: `lab.${added}`, arguments: {} })), added);
  });

  t.test('resource updates reach the subscribers of both eras, and the plugin is unsubscribed after', async (t) => {
    const legacy = await legacyClient(t, host.url);
    const modern = await modernClient(t, host.url);
    const heard = { legacy: [] as string[], modern: [] as string[] };
    legacy.client.setNotificationHandler('notifications/resources/updated', (n) => {
      heard.legacy.push(n.params.uri);
    });
    modern.client.setNotificationHandler('notifications/resources/updated', (n) => {
      heard.modern.push(n.params.uri);
    });
    // The marker: a tools/list_changed sent after the update on the same streams.
    const markers = { legacy: 0, modern: 0 };
    legacy.client.setNotificationHandler('notifications/tools/list_changed', () => void markers.legacy++);
    modern.client.setNotificationHandler('notifications/tools/list_changed', () => void markers.modern++);
    await legacy.client.subscribeResource({ uri: 'lab://gauge' });
    const stream = await modern.client.listen({ resourceSubscriptions: ['lab://gauge'], toolsListChanged: true });
    await legacy.streamOpen;
    t.equal(firstText(await legacy.client.callTool({ name: 'lab.watched', arguments: {} })), 'lab://gauge');
    await legacy.client.callTool({ name: 'lab.bump', arguments: {} });
    await until('resources/updated on both clients', () => heard.legacy.length > 0 && heard.modern.length > 0);
    await legacy.client.callTool({ name: 'lab.grow', arguments: {} });
    await until('the marker on both clients', () => markers.legacy > 0 && markers.modern > 0);
    t.same(heard, { legacy: ['lab://gauge'], modern: ['lab://gauge'] }, 'once each');

    await legacy.client.unsubscribeResource({ uri: 'lab://gauge' });
    t.equal(
      firstText(await legacy.client.callTool({ name: 'lab.watched', arguments: {} })),
      'lab://gauge',
      'the listen stream still holds the subscription',
    );
    await stream.close();
    const watched = async () => firstText(await legacy.client.callTool({ name: 'lab.watched', arguments: {} }));
    await eventually('the plugin to be unsubscribed', async () => (await watched()) === 'nothing').catch(() => {});
    t.equal(await watched(), 'nothing', 'the last watcher gone, the plugin is unsubscribed');
  });

  t.test('a client that disconnects cancels its call upstream, in either era', async (t) => {
    for (const era of ['legacy', 'modern'] as const) {
      // A fetch whose tools/call connection the test can cut, as a client
      // that crashes or loses its network would: no notifications/cancelled.
      const cut = new AbortController();
      const cancelsSent: string[] = [];
      const fetchWithCut: FetchLike = (input, init) => {
        const body = typeof init?.body === 'string' ? init.body : '';
        if (body.includes('notifications/cancelled')) cancelsSent.push(body);
        const isWait = body.includes('"tools/call"') && body.includes('lab.wait');
        return fetch(input, isWait ? { ...init, signal: cut.signal } : init);
      };
      const { client } =
        era === 'legacy'
          ? await legacyClient(t, host.url, { fetch: fetchWithCut })
          : await modernClient(t, host.url, { fetch: fetchWithCut });
      const call = client.callTool({ name: 'lab.wait', arguments: { tag: era } }).catch((error: unknown) => error);
      await until(`the ${era} call to start`, () => existsSync(join(markers, `${era}.started`)));
      cut.abort();
      // The plugin creates the file, then writes the reason: wait for the reason, not only the file.
      const reason = () => {
        const marker = join(markers, `${era}.cancelled`);
        return existsSync(marker) ? readFileSync(marker, 'utf8') : '';
      };
      await until(`the plugin to see the ${era} call cancelled`, () => reason() !== '');
      t.match(reason(), /cancel/, `${era}: the plugin was told`);
      t.same(cancelsSent, [], `${era}: the client sent no notifications/cancelled: the disconnect did it`);
      if (era === 'modern') {
        t.match(await call, { name: 'AbortError' }, `${era}: the client's call failed with its connection`);
      } else {
        // A 2025-era client's SDK keeps the call pending (its answer would have come on the cut stream)
        // until it closes or its 60 s request timeout: closing fails it. Cut before the host's answer
        // began, the POST itself fails first.
        await client.close();
        const failed = (await call) as Error;
        t.ok(
          /Connection closed/.test(failed.message) || failed.name === 'AbortError',
          `${era}: the call fails, with its connection or when the client closes: ${String(failed)}`,
        );
      }
    }
  });

  t.test('DNS rebinding: a foreign Host or Origin is refused', async (t) => {
    const badHost = await rawRequest(host.url, {
      headers: { ...MCP_HEADERS, host: 'evil.example:80' },
      body: TOOLS_LIST,
    });
    t.equal(badHost.status, 403);
    t.match(JSON.parse(badHost.body), {
      error: { code: -32000, message: /^Invalid Host: evil\.example: .*add it to http\.allowedHosts/ },
    });
    const badOrigin = await fetch(host.url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, origin: 'https://evil.example' },
      body: TOOLS_LIST,
    });
    t.equal(badOrigin.status, 403);
    t.match(await badOrigin.json(), {
      error: { message: /^Invalid Origin: evil\.example: .*add its origin to http\.allowedOrigins/ },
    });
    const localhost = await rawRequest(host.url.replace('127.0.0.1', 'localhost'), {
      headers: { ...MCP_HEADERS, host: `localhost:${new URL(host.url).port}`, origin: 'http://localhost:5173' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: initializeParams() }),
    });
    t.equal(localhost.status, 200, 'loopback names and origins pass');
  });

  t.test('an oversized body is refused with 413', async (t) => {
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'lab.echo', arguments: { text: 'x'.repeat(5 * 1024 * 1024) } },
    });
    const response = await fetch(host.url, { method: 'POST', headers: MCP_HEADERS, body: huge });
    t.equal(response.status, 413);
    t.match(await response.json(), { error: { message: /Request body must not exceed 4194304 bytes/ } });
  });

  t.test('an unknown session id gets 404; a GET without one gets 400', async (t) => {
    const unknown = await fetch(host.url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-session-id': 'no-such-session' },
      body: TOOLS_LIST,
    });
    t.equal(unknown.status, 404);
    t.match(await unknown.json(), {
      error: {
        code: -32001,
        message: /^Session not found: no session "no-such-session".*start a new one with initialize/,
      },
    });
    const get = await fetch(host.url, { headers: { accept: 'text/event-stream' } });
    t.equal(get.status, 400);
    t.match(await get.json(), { error: { message: /GET needs an Mcp-Session-Id header/ } });
  });

  t.test('other paths are 404 with a JSON body', async (t) => {
    const response = await fetch(new URL('/elsewhere', host.url));
    t.equal(response.status, 404);
    t.same(await response.json(), {
      error: 'not_found',
      message: 'mcp-host serves MCP at /mcp; there is nothing at /elsewhere',
    });
  });
});

t.test('bearer auth from MCP_HOST_HTTP_TOKENS', async (t) => {
  const ws = makeWorkspace(t);
  const { config } = writeLab(ws);
  const host = await startHttpHost(t, config, {
    env: { MCP_HOST_HTTP_TOKENS: 'first-token-0123456789, second-token-0123456789' },
  });

  const none = await fetch(host.url, { method: 'POST', headers: MCP_HEADERS, body: TOOLS_LIST });
  t.equal(none.status, 401);
  t.match(none.headers.get('www-authenticate'), /^Bearer error="invalid_token"/);
  t.match(await none.json(), { error: 'invalid_token', error_description: 'Missing Authorization header' });

  const wrong = await fetch(host.url, {
    method: 'POST',
    headers: { ...MCP_HEADERS, authorization: 'Bearer first-token-but-longer' },
    body: TOOLS_LIST,
  });
  t.equal(wrong.status, 401);
  t.match(await wrong.json(), { error_description: /not one this mcp-host accepts.*MCP_HOST_HTTP_TOKENS/ });

  const { client } = await legacyClient(t, host.url, {
    requestInit: { headers: { authorization: 'Bearer second-token-0123456789' } },
  });
  t.equal(firstText(await client.callTool({ name: 'lab.echo', arguments: { text: 'authorized' } })), 'authorized');
});

t.test('shutdown ends sessions and streams, and the host exits 0', async (t) => {
  const ws = makeWorkspace(t);
  const { config } = writeLab(ws);
  const host = await startHttpHost(t, config);
  const legacy = await legacyClient(t, host.url);
  const modern = await modernClient(t, host.url);
  const subscription = await modern.client.listen({ toolsListChanged: true });
  t.teardown(() => subscription.close());
  await legacy.streamOpen;
  // "Promptly" is against what a stop held by its open streams would take: the streams never end by
  // themselves, so such a stop waits out the drain timeout (reload.drainTimeoutMs, the lab's default)
  // or forever. A prompt stop takes well under a second on a quiet machine, a few on a loaded one.
  const { drainTimeoutMs } = (await loadConfig({ configPath: config })).reload;
  const started = Date.now();
  host.child.kill('SIGTERM');
  t.equal(await host.exited, 0, 'exit status 0');
  const took = Date.now() - started;
  t.ok(took < drainTimeoutMs, `promptly, with open streams (${took} ms, not the ${drainTimeoutMs} ms drain timeout)`);
  await t.rejects(
    legacy.client.listTools(),
    { message: 'fetch failed', cause: { code: 'ECONNREFUSED' } },
    'the server is gone: its port refuses connections',
  );
});

t.test('in process: idle 2025-era sessions end, and close() leaves the runtime empty', async (t) => {
  const ws = makeWorkspace(t);
  const { config } = writeLab(ws);
  const { runtime, service } = await serveInProcess(t, config, ws.dir, {
    host: '127.0.0.1',
    port: 0,
    sessionIdleTimeoutMs: 300,
  });
  t.equal(runtime.sessions.size, 0, 'no session before a client opens one (listen streams join as they open)');

  const stray = await fetch(service.url, { method: 'POST', headers: MCP_HEADERS, body: TOOLS_LIST });
  t.equal(stray.status, 400, 'a request that is not initialize opens no session');
  t.match(await stray.json(), { error: { message: 'Bad Request: Server not initialized' } });
  t.equal(runtime.sessions.size, 0, 'and leaves nothing behind');

  const { client, transport, streamOpen } = await legacyClient(t, service.url);
  const id = transport.sessionId!;
  t.equal(runtime.sessions.size, 1, 'the legacy session');
  await streamOpen;
  // A session idle from now on, without a stream: once the sweep ends it, that sweep's cutoff is past
  // the last activity of both, so it found the streamed session idle too, and kept it only for its
  // open stream. A fixed sleep instead could end before any sweep passed the cutoff on a slow machine.
  await (await postInitialize(service.url, { clientName: 'streamless' })).text();
  t.equal(runtime.sessions.size, 2, 'a second session, without a GET stream');
  await until('the session without a stream to end idle', () => runtime.sessions.size < 2);
  t.equal(
    firstText(await client.callTool({ name: 'lab.echo', arguments: { text: 'kept' } })),
    'kept',
    'an open GET stream keeps a session',
  );
  await client.close(); // drops the GET stream without a DELETE, as a crashed client would
  await until('the idle session to end', () => runtime.sessions.size === 0);
  const gone = await fetch(service.url, {
    method: 'POST',
    headers: { ...MCP_HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
    body: TOOLS_LIST,
  });
  t.equal(gone.status, 404, 'its id is now unknown');

  await legacyClient(t, service.url);
  t.equal(runtime.sessions.size, 1);
  await service.close();
  t.equal(runtime.sessions.size, 0, 'close() ended the session');
});

t.test(
  'in process: a stopping host refuses in words on a connection kept alive from before, then closes it',
  async (t) => {
    const ws = makeWorkspace(t);
    const { config } = writeLab(ws);
    const { service } = await serveInProcess(t, config, ws.dir, { host: '127.0.0.1', port: 0 });
    const health = new URL('/healthz', service.url).href;
    // A balancer's connection, kept alive between its probes.
    const balancer = new Agent({ keepAlive: true, maxSockets: 1 });
    t.teardown(() => balancer.destroy());
    t.equal((await rawRequest(health, { method: 'GET', agent: balancer })).status, 200);
    service.stopAccepting();
    const probe = await rawRequest(health, { method: 'GET', agent: balancer });
    t.match(
      probe,
      { status: 503, reused: true, headers: { connection: 'close' } },
      'on the same connection, which it closes',
    );
    t.same(JSON.parse(probe.body), { status: 'stopping' });
    const call = await rawRequest(service.url, { headers: MCP_HEADERS, body: TOOLS_LIST, agent: balancer });
    t.match(call, { status: 503, reused: false }, 'the next request opens a new connection, refused the same way');
    t.match(JSON.parse(call.body), {
      error: {
        message: 'Service Unavailable: mcp-host is stopping; retry (another replica, or this host once it is back)',
      },
    });
  },
);

t.test(
  "in process: bound to every interface, only listed names pass, and the open endpoint (http.auth: 'none') is logged",
  async (t) => {
    const ws = makeWorkspace(t);
    const { config } = writeLab(ws);
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const { service } = await serveInProcess(
      t,
      config,
      ws.dir,
      { host: '0.0.0.0', port: 0, allowedHosts: ['mcp.example.test'] },
      logger,
    );
    t.match(lines.join(''), /is reachable beyond this machine with no auth of its own \(http.auth: 'none'\)/);
    const local = service.url.replace('0.0.0.0', '127.0.0.1');
    const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: initializeParams() });
    const listed = await rawRequest(local, {
      headers: { ...MCP_HEADERS, host: 'mcp.example.test:8080' },
      body: initialize,
    });
    t.equal(listed.status, 200, 'a listed name passes, whatever its port');
    const unlisted = await rawRequest(local, { headers: { ...MCP_HEADERS, host: '0.0.0.0' }, body: initialize });
    t.equal(unlisted.status, 403, 'the wildcard address is not a name clients may use');
  },
);

t.test('the config’s http section: served without --http, its allowed names extend the defaults', async (t) => {
  const ws = makeWorkspace(t);
  const { config } = writeLab(ws, {
    http: {
      host: '127.0.0.1',
      port: 0,
      allowedHosts: ['mcp.example.test'],
      allowedOrigins: ['https://app.example.test'],
    },
  });
  const host = await startHttpHost(t, config, { args: [] });
  const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: initializeParams() });
  const named = await rawRequest(host.url, {
    headers: { ...MCP_HEADERS, host: 'mcp.example.test', origin: 'https://app.example.test' },
    body: initialize,
  });
  t.equal(named.status, 200, 'an allowed Host and Origin pass');
  const other = await rawRequest(host.url, {
    headers: { ...MCP_HEADERS, origin: 'https://other.example.test' },
    body: initialize,
  });
  t.equal(other.status, 403, 'other origins are still refused');
  t.match(JSON.parse(other.body), {
    error: {
      message:
        /^Invalid Origin: other\.example\.test: mcp-host accepts Origin localhost, 127\.0\.0\.1, \[::1\], app\.example\.test/,
    },
  });

  // --stdio wins over the config's http section.
  const stdio = spawn(process.execPath, [CLI, 'start', '--config', config, '--stdio'], {
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  stdio.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => stdio.once('exit', resolve));
  await until('the host to serve over stdio', () => /over stdio/.test(stderr));
  stdio.stdin!.end();
  t.equal(await exited, 0, 'and stops when stdin closes');
});

t.test('start refuses bad serving flags and a busy port', async (t) => {
  const run = (args: string[]) => runCli(['start', ...args]);
  const malformed = await run(['--http', 'localhost:http']);
  t.equal(malformed.code, 2, 'a malformed address is wrong usage');
  t.match(malformed.stderr, /--http expects \[HOST:\]PORT with PORT from 0 to 65535 .* got "localhost:http"/);
  const both = await run(['--stdio', '--http', '3000']);
  t.equal(both.code, 2);
  t.match(both.stderr, /--stdio and --http exclude each other/);

  const ws = makeWorkspace(t);
  const { config } = writeLab(ws);
  const squatter = createServer();
  await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
  t.teardown(() => squatter.close());
  const { port } = squatter.address() as AddressInfo;
  const busy = await run(['--config', config, '--http', `127.0.0.1:${port}`]);
  t.equal(busy.code, 1, 'a busy port is a problem, not a crash');
  t.match(
    busy.stderr,
    `mcp-host: HTTP 127.0.0.1:${port}: the port is already in use. Fix: pick another address with --http [HOST:]PORT`,
  );
});

function initializeParams() {
  return { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } };
}
