// Resumable 2025-era streams and SEP-2243 custom headers, over HTTP on
// 127.0.0.1 with the host a child process: a 2025-era SDK client whose GET
// stream or call's SSE answer the plugin closes mid-call reconnects with
// Last-Event-ID and gets what it missed; a session's event store is bounded
// (http.eventStoreBytes) and a resumption after a dropped event is refused
// naming the key; a 2026-07-28 tools/call of a tool with x-mcp-header
// arguments is accepted only when its Mcp-Param-* headers carry them.
import t, { type Test } from 'tap';
import { Client, StreamableHTTPClientTransport, type FetchLike } from '@modelcontextprotocol/client';
import { assertLogged, startHttpHost, until, watchingNotificationStream } from './helpers/host.js';
import { EVENT_MS } from './helpers/timing.js';
import { makeWorkspace } from './helpers/packages.js';

const MODERN = '2026-07-28';
const BEAT_URI = 'pulse://beat';

/**
 * An in-process plugin (SDK v2) whose tools close the caller's streams
 * mid-call, as the SDK lets a server ask for polling: `pulse` closes the
 * GET stream, then sends `count` updates of BEAT_URI; `late_answer` closes
 * its own call's SSE stream, then answers. `routed` declares its `region`
 * argument as the `Mcp-Param-Region` header.
 */
const RESUMABLE_PLUGIN = `import { McpServer, fromJsonSchema } from '@modelcontextprotocol/server';
import { z } from 'zod';
export default {
  create() {
    const server = new McpServer({ name: 'resumable', version: '1.0.0' }, { capabilities: { resources: { subscribe: true } } });
    server.registerResource('beat', '${BEAT_URI}', {}, async (uri) => ({ contents: [{ uri: uri.href, text: 'beat' }] }));
    server.server.setRequestHandler('resources/subscribe', async () => ({}));
    server.server.setRequestHandler('resources/unsubscribe', async () => ({}));
    server.registerTool('pulse', { inputSchema: z.object({ count: z.number() }) }, async ({ count }, ctx) => {
      ctx.http?.closeStandaloneSSE?.();
      for (let i = 0; i < count; i++) await server.server.sendResourceUpdated({ uri: '${BEAT_URI}' });
      return { content: [{ type: 'text', text: 'pulsed ' + count }] };
    });
    server.registerTool('late_answer', {}, async (ctx) => {
      ctx.http?.closeSSE?.();
      return { content: [{ type: 'text', text: 'answered after the stream closed' }] };
    });
    server.registerTool(
      'routed',
      {
        inputSchema: fromJsonSchema({
          type: 'object',
          properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, size: { type: 'integer', 'x-mcp-header': 'Size' } },
          required: ['region'],
        }),
      },
      async ({ region }) => ({ content: [{ type: 'text', text: 'routed to ' + region }] }),
    );
    return server;
  },
};
`;

const RESUMABLE_MANIFEST = {
  name: '@t/resumable',
  version: '1.0.0',
  type: 'module',
  exports: './index.js',
  'mcp-host': { prefix: 'resumable' },
};

async function startHost(t: Test, http: Record<string, unknown> = {}) {
  const ws = makeWorkspace(t);
  ws.writePackage('node_modules/@t/resumable', RESUMABLE_MANIFEST, { 'index.js': RESUMABLE_PLUGIN });
  const config = ws.writeConfig({
    reload: { watch: false },
    http: { port: 0, ...http },
    plugins: [{ package: '@t/resumable' }],
  });
  return startHttpHost(t, config);
}

/** A fetch that records the Last-Event-ID of every GET it makes. */
function recordingResumptions(): { fetch: FetchLike; resumedAfter: string[] } {
  const resumedAfter: string[] = [];
  return {
    resumedAfter,
    fetch: (input, init) => {
      const lastEventId = new Headers(init?.headers).get('last-event-id');
      if ((init?.method ?? 'GET') === 'GET' && lastEventId) resumedAfter.push(lastEventId);
      return fetch(input, init);
    },
  };
}

/** A 2025-era SDK client (the default negotiation) whose GET stream is open. */
async function legacyClient(t: Test, url: string) {
  const recording = recordingResumptions();
  const stream = watchingNotificationStream(recording.fetch);
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: stream.fetch });
  const client = new Client({ name: 'legacy-client', version: '1.0.0' });
  await client.connect(transport);
  t.teardown(() => client.close());
  await stream.opened;
  return { client, transport, resumedAfter: recording.resumedAfter };
}

t.test('a GET stream closed mid-call is resumed with Last-Event-ID and delivers what was missed', async (t) => {
  const host = await startHost(t);
  const { client, resumedAfter } = await legacyClient(t, host.url);
  let beats = 0;
  client.setNotificationHandler('notifications/resources/updated', () => {
    beats += 1;
  });
  await client.subscribeResource({ uri: BEAT_URI });
  const result = await client.callTool({ name: 'resumable.pulse', arguments: { count: 5 } });
  t.match(result.content, [{ text: 'pulsed 5' }]);
  await until('the five updates sent while the GET stream was closed', () => beats >= 5, EVENT_MS, host.log);
  t.equal(beats, 5, 'each update arrived once');
  t.ok(resumedAfter.length > 0, `the client resumed its GET stream after event ${resumedAfter[0]}`);
});

t.test('a call whose SSE answer was closed before it answered gets its answer on resumption', async (t) => {
  const host = await startHost(t);
  const { client, resumedAfter } = await legacyClient(t, host.url);
  const result = await client.callTool({ name: 'resumable.late_answer', arguments: {} });
  t.match(result.content, [{ text: 'answered after the stream closed' }]);
  t.ok(resumedAfter.length > 0, `the answer came on a stream resumed after event ${resumedAfter[0]}`);
});

t.test('the event store is bounded: the oldest events are dropped, and resuming before them is refused', async (t) => {
  const host = await startHost(t, { eventStoreBytes: 2000 });
  const { client, transport } = await legacyClient(t, host.url);
  await client.subscribeResource({ uri: BEAT_URI });
  // 40 updates of ~100 bytes push the session's first events out of 2000 bytes.
  const headers = {
    accept: 'text/event-stream',
    'mcp-session-id': transport.sessionId!,
    'mcp-protocol-version': transport.protocolVersion!,
  };
  await client.callTool({ name: 'resumable.pulse', arguments: { count: 40 } });
  await until('the host saying it dropped events', () => /http.eventStoreBytes/.test(host.log()), EVENT_MS, host.log);
  await assertLogged(
    t,
    host.log,
    /HTTP session [\w-]+: dropped its \d+ oldest SSE events over 2000 bytes \(http.eventStoreBytes\); a client resuming before them is refused/,
  );
  const tooLate = await fetch(host.url, { headers: { ...headers, 'last-event-id': '_GET_stream_1' } });
  t.equal(tooLate.status, 400);
  t.match(await tooLate.json(), {
    error: {
      code: -32000,
      message:
        'Bad Request: cannot resume: the events after _GET_stream_1 are no longer held: this session keeps its last 2000 bytes of events (http.eventStoreBytes), and older ones were dropped. Open a new GET stream without Last-Event-ID and list again what may have changed, or raise http.eventStoreBytes in the host config',
    },
  });
  const { tools } = await client.listTools();
  t.ok(
    tools.some((tool) => tool.name === 'resumable.late_answer'),
    'the session serves on',
  );
});

/** A raw 2026-07-28 tools/call of `resumable.routed`, with the given Mcp-Param-* headers. */
async function routedCall(url: string, args: Record<string, unknown>, paramHeaders: Record<string, string>) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': 'resumable.routed',
      ...paramHeaders,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: {
        name: 'resumable.routed',
        arguments: args,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
        },
      },
    }),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: JSON.parse(/^data: (.+)$/m.exec(text)?.[1] ?? text) as Record<string, unknown>,
  };
}

t.test('SEP-2243: Mcp-Param-* headers must carry the x-mcp-header arguments of a 2026-07-28 call', async (t) => {
  const host = await startHost(t);
  const modern = new Client(
    { name: 'modern-client', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN } } },
  );
  await modern.connect(new StreamableHTTPClientTransport(new URL(host.url)));
  t.teardown(() => modern.close());
  t.match(
    await modern.callTool({ name: 'resumable.routed', arguments: { region: 'eu-west', size: 3 } }),
    { content: [{ text: 'routed to eu-west' }] },
    'the SDK client mirrors the arguments and the host accepts them',
  );

  const accepted = [
    [{ region: 'Hello' }, { 'mcp-param-region': `=?base64?${Buffer.from('Hello').toString('base64')}?=` }],
    [{ region: 'SGVsbG8=' }, { 'mcp-param-region': 'SGVsbG8=' }],
    [{ region: '=?base64?SGVsbG8=' }, { 'mcp-param-region': '=?base64?SGVsbG8=' }],
    [
      { region: 'eu', size: 42 },
      { 'mcp-param-region': 'eu', 'mcp-param-size': '42.0' },
    ],
    [{ region: 'eu' }, { 'mcp-param-region': 'eu' }],
  ] as const;
  for (const [args, headers] of accepted) {
    const { status, body } = await routedCall(host.url, args, headers);
    t.equal(status, 200, `accepted: ${JSON.stringify(headers)}`);
    t.match(body, { result: { content: [{ text: `routed to ${args.region}` }] } });
  }

  const refused = [
    [
      { region: 'eu' },
      {},
      'the body carries region="eu" but the Mcp-Param-Region header is absent; send it with the argument\'s value',
    ],
    [
      { region: 'Hello' },
      { 'mcp-param-region': '=?base64?SGVsbG8?=' },
      "the Mcp-Param-Region header is not valid Base64 inside =?base64?…?= (canonical padding, A-Z a-z 0-9 + / only, UTF-8 text); encode the argument's value again",
    ],
    [
      { region: 'Hello' },
      { 'mcp-param-region': '=?base64?SGVs!!!bG8=?=' },
      "the Mcp-Param-Region header is not valid Base64 inside =?base64?…?= (canonical padding, A-Z a-z 0-9 + / only, UTF-8 text); encode the argument's value again",
    ],
    [
      { region: 'eu', size: 3 },
      { 'mcp-param-region': 'eu', 'mcp-param-size': '4' },
      'the Mcp-Param-Size header says "4" but the body carries size=3; send the same value in both',
    ],
  ] as const;
  for (const [args, headers, why] of refused) {
    const { status, body } = await routedCall(host.url, args, headers);
    t.equal(status, 400, `refused: ${JSON.stringify(headers)}`);
    t.match(body, {
      id: 9,
      error: { code: -32020, message: `Bad Request: the request headers and body disagree: ${why}` },
    });
  }
  t.equal(host.child.exitCode, null, 'the host serves on');
});
