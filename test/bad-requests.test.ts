// Bad requests, over stdio (raw lines on the host's stdin) and over HTTP
// (raw fetch): malformed JSON, wrong JSON-RPC shapes, unknown methods, huge
// messages, deep nesting, invalid params, unknown and withdrawn tools,
// cursors from nowhere, requests before initialize, wrong
// MCP-Protocol-Version headers. Each gets the spec's answer and nothing
// else changes; then a seeded fuzzer (test/helpers/fuzz.ts) throws a few
// thousand random and mutated messages, and the host still answers.
import { request as httpRequest } from 'node:http';
import t from 'tap';
import { parseJSONRPCMessage } from '@modelcontextprotocol/server';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startHttpHost, until } from './helpers/host.js';
import { EVENT_MS } from './helpers/timing.js';
import { RawStdioHost, type Message } from './helpers/raw-stdio-host.js';
import { makeWorkspace, type Workspace } from './helpers/packages.js';
import { writeZoo } from './helpers/zoo.js';
import { Fuzzer } from './helpers/fuzz.js';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 'init',
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
};
const INVALID_REQUEST =
  'Invalid Request: expected one JSON-RPC 2.0 request or notification: an object with "jsonrpc": "2.0", a string "method", an object or absent "params", and a string or number "id" for a request';

function zooConfig(ws: Workspace, plugins: Record<string, unknown>[] = [{ package: '@zoo/good' }]): string {
  writeZoo(ws);
  return ws.writeConfig({ reload: { debounceMs: 50 }, plugins });
}

/**
 * How long a fuzzed HTTP request may go unanswered before it counts as a
 * hang: far beyond any answer on a loaded machine, far short of the test's timeout.
 */
const UNANSWERED_AFTER_MS = EVENT_MS;

async function settle(ms = 150): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

t.test('over stdio, each bad message gets the spec’s answer and the connection carries on', async (t) => {
  const ws = makeWorkspace(t);
  ws.writeFile('run/.keep', '');
  const config = zooConfig(ws, [{ package: '@zoo/good' }, { package: '@zoo/faulty', prefix: 'gone' }]);
  const host = new RawStdioHost(t, config);

  // Before initialize, a 2025-era request is served as the SDK's stdio entry does (the spec asks
  // clients not to send one, and defines no error for it); initialize then works as usual.
  const early = await host.request('tools/list');
  t.ok(
    Array.isArray((early.result as { tools?: unknown[] } | undefined)?.tools),
    'a request before initialize is answered',
  );
  host.send(JSON.stringify(INITIALIZE));
  t.match(await host.answer('init'), { result: { protocolVersion: '2025-11-25', serverInfo: { name: 'mcp-host' } } });
  host.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));

  const mark = host.received.length;
  const refusals: [string, string, unknown, number, string][] = [
    ['not JSON', 'garbage{', null, -32700, 'Parse error: the line is not JSON'],
    ['a batch', '[{"jsonrpc":"2.0","id":1,"method":"ping"}]', null, -32600, INVALID_REQUEST],
    ['no "jsonrpc"', '{"id":"a","method":"ping"}', 'a', -32600, INVALID_REQUEST],
    [
      'params a string',
      '{"jsonrpc":"2.0","id":"b","method":"tools/call","params":"str"}',
      'b',
      -32600,
      INVALID_REQUEST,
    ],
    ['an object as id', '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', null, -32600, INVALID_REQUEST],
    ['a null id', '{"jsonrpc":"2.0","id":null,"method":"ping"}', null, -32600, INVALID_REQUEST],
    // At the edges of the wire's own check of a plain request (stdio-wire.ts): each goes to the SDK's schema.
    ['a fractional id', '{"jsonrpc":"2.0","id":1.5,"method":"ping"}', 1.5, -32600, INVALID_REQUEST],
    ['a number as method', '{"jsonrpc":"2.0","id":"c","method":5}', 'c', -32600, INVALID_REQUEST],
    ['a key JSON-RPC has not', '{"jsonrpc":"2.0","id":"d","method":"ping","extra":1}', 'd', -32600, INVALID_REQUEST],
    ['a number', '42', null, -32600, INVALID_REQUEST],
  ];
  for (const [what, line, id, code, message] of refusals) {
    const before = host.received.length;
    host.send(line);
    const ping = await host.request('ping');
    t.same(ping.result, {}, `${what}: the connection carries on`);
    t.same(
      host.since(before).filter((m) => m !== ping),
      [{ jsonrpc: '2.0', id, error: { code, message } }],
      `${what}: ${code}, once`,
    );
  }

  const before = host.received.length;
  host.send('{"jsonrpc":"2.0","id":"not-ours","result":"x","error":1}');
  host.send('{"jsonrpc":"2.0","method":"notifications/nonsense","params":{}}');
  await host.request('ping');
  t.equal(host.since(before).length, 1, 'a malformed response and an unknown notification get no answer');

  t.match(await host.request('no/such/method'), { error: { code: -32601, message: 'Method not found' } });
  t.match(await host.request('tools/call', {}), {
    error: { code: -32602, message: /^Invalid tools\/call request: .*"path": \[\s*"params",\s*"name"\s*\]/s },
  });
  t.same((await host.request('tools/call', { name: 'nope' })).error, {
    code: -32602,
    message: 'Unknown tool "nope": no mounted plugin serves it. Fix: use a name from tools/list.',
  });
  t.same((await host.request('tools/list', { cursor: 'abc' })).error, {
    code: -32602,
    message:
      'Invalid cursor "abc": mcp-host did not issue it. Fix: pass the nextCursor of the previous page unchanged, or omit cursor to start from the first page.',
  });

  // A line over the stdio limit (10 MiB) is skipped, not the connection.
  const huge = JSON.stringify({
    jsonrpc: '2.0',
    id: 'huge',
    method: 'tools/call',
    params: { name: 'good.echo', arguments: { text: 'x'.repeat(11 * 1024 * 1024) } },
  });
  const beforeHuge = host.received.length;
  host.send(huge);
  t.same((await host.request('ping')).result, {}, 'the connection survives a line over the limit');
  t.same(
    host.since(beforeHuge)[0],
    {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: a message over 10485760 bytes was skipped' },
    },
    'and the line over the limit is refused',
  );
  t.same(host.answersTo('huge'), [], 'it was never served');

  // Nesting deeper than any printer's stack: the request is parsed, refused by the tool's schema.
  const depth = 50_000;
  host.send(
    `{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"good.echo","arguments":{"text":${'['.repeat(depth)}${']'.repeat(depth)}}}}`,
  );
  t.match(await host.answer('deep'), {
    result: { isError: true, content: [{ type: 'text', text: /Input validation error/ }] },
  });

  // A tool withdrawn by a reload is unknown from then on.
  t.match(await host.request('tools/call', { name: 'gone.echo', arguments: { text: 'x' } }), {
    result: { content: [{ text: 'x' }] },
  });
  ws.writeConfig({ reload: { debounceMs: 50 }, plugins: [{ package: '@zoo/good' }] });
  await until(
    'a list_changed after the reload',
    () => host.received.some((m) => (m as { method?: string }).method === 'notifications/tools/list_changed'),
    EVENT_MS,
    () => host.stderr,
  );
  t.same((await host.request('tools/call', { name: 'gone.echo', arguments: { text: 'x' } })).error, {
    code: -32602,
    message: 'Unknown tool "gone.echo": no mounted plugin serves it. Fix: use a name from tools/list.',
  });

  t.same(host.garbage, [], 'stdout carried only JSON-RPC');
  t.ok(
    host.since(mark).every((m) => m.jsonrpc === '2.0'),
    'every message out is JSON-RPC 2.0',
  );
  t.equal(host.child.exitCode, null, 'the host is still running');
});

t.test('over stdio, a few thousand fuzzed lines: every request answered once, the host serves on', async (t) => {
  const ws = makeWorkspace(t);
  const host = new RawStdioHost(t, zooConfig(ws));
  host.send(JSON.stringify(INITIALIZE));
  await host.answer('init');
  host.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));

  const fuzz = new Fuzzer(20261129);
  const expected = { requests: new Set<unknown>(), parseErrors: 0, invalid: 0 };
  const cancelled = new Set<unknown>();
  const seen = new Set<unknown>();
  const mark = host.received.length;
  for (let sent = 0; sent < 3000;) {
    const line = fuzz.message();
    const kind = classify(line);
    if (kind.request !== undefined) {
      if (seen.has(kind.request)) continue; // ids stay unique, so every answer is attributable
      seen.add(kind.request);
      expected.requests.add(kind.request);
    }
    if (kind.cancels !== undefined) cancelled.add(kind.cancels);
    if (kind.parseError) expected.parseErrors++;
    if (kind.invalid) expected.invalid++;
    host.send(line);
    sent++;
    if (sent % 200 === 0) await settle(10); // let the host breathe between bursts, as a pipe would
  }
  const ping = await host.request('ping');
  t.same(ping.result, {}, 'the host answers a valid request after the fuzz');
  const deadline = Date.now() + EVENT_MS;
  const unanswered = () => [...expected.requests].filter((id) => !cancelled.has(id) && host.answersTo(id).length === 0);
  while (unanswered().length > 0 && Date.now() < deadline) await settle(50);
  t.same(unanswered(), [], `each of ${expected.requests.size} well-formed requests was answered`);
  const out = host.since(mark);
  const twice = [...expected.requests].filter((id) => host.answersTo(id).length > 1);
  t.same(twice, [], 'none was answered twice');
  const refusedWith = (code: number) => out.filter((m) => m.id === null && m.error?.code === code).length;
  t.equal(
    refusedWith(-32700),
    expected.parseErrors,
    `${expected.parseErrors} lines that were not JSON: as many -32700`,
  );
  t.ok(
    out.filter((m) => m.error?.code === -32600).length === expected.invalid,
    `${expected.invalid} JSON values that were not JSON-RPC: as many -32600`,
  );
  t.same(host.garbage, [], 'stdout carried only JSON-RPC');
  t.equal(host.child.exitCode, null, 'the host is still running');
  t.comment(
    `seed ${fuzz.seed}: ${expected.requests.size} requests, ${expected.parseErrors} not JSON, ${expected.invalid} not JSON-RPC`,
  );
});

/** What the host owes a line, judged with the SDK's own JSON-RPC schema. */
function classify(line: string): { request?: unknown; cancels?: unknown; parseError?: boolean; invalid?: boolean } {
  if (line.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { parseError: true };
  }
  try {
    const message = parseJSONRPCMessage(value) as { id?: unknown; method?: string; params?: { requestId?: unknown } };
    if (message.method === 'notifications/cancelled') return { cancels: message.params?.requestId };
    return message.method !== undefined && message.id !== undefined ? { request: message.id } : {};
  } catch {
    const responseShaped =
      typeof value === 'object' && value !== null && !('method' in value) && ('result' in value || 'error' in value);
    return responseShaped ? {} : { invalid: true };
  }
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A POST's status and JSON-RPC body (from JSON or from the SSE stream's first message, past its priming event). */
async function post(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: Message | undefined }> {
  const response = await fetch(url, { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body });
  const text = await response.text();
  const data = /^data: (.+)$/m.exec(text)?.[1];
  const json = data ?? text;
  return { status: response.status, headers: response.headers, body: json ? (JSON.parse(json) as Message) : undefined };
}

t.test('over HTTP, each bad request gets the spec’s answer and the host serves on', async (t) => {
  const ws = makeWorkspace(t);
  const host = await startHttpHost(t, zooConfig(ws));
  const { url } = host;

  t.same((await post(url, 'garbage{')).body, {
    jsonrpc: '2.0',
    error: { code: -32700, message: 'Parse error: Invalid JSON' },
    id: null,
  });
  const batch = await post(url, '[{"jsonrpc":"2.0","id":1,"method":"ping"}]');
  t.match(batch, { status: 400, body: { jsonrpc: '2.0', error: { code: Number }, id: null } }, 'a batch is refused');
  t.match(await post(url, '{"id":1,"method":"tools/list"}'), {
    status: 400,
    body: { error: { code: -32600, message: 'Bad Request: the request body is not a valid JSON-RPC message' }, id: 1 },
  });
  t.match(
    await post(url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })),
    {
      status: 400,
      body: { error: { code: -32000, message: 'Bad Request: Server not initialized' } },
    },
    'a 2025-era request before initialize',
  );
  // A chunked body over the limit (no Content-Length to refuse it by) is cut off as it is read.
  const chunked = await fetch(url, {
    method: 'POST',
    headers: MCP_HEADERS,
    body: new ReadableStream({
      start(controller) {
        for (let i = 0; i < 5; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(1024 * 1024)));
        controller.close();
      },
    }),
    duplex: 'half',
  } as RequestInit);
  t.equal(chunked.status, 413, 'a chunked body over the limit is refused with 413');
  // A client that goes mid-body is owed no answer, and its going is no failure of the host's (checked at the end).
  const halfSent = httpRequest(url, { method: 'POST', headers: { ...MCP_HEADERS, 'content-length': '1000' } });
  halfSent.on('error', () => {});
  await new Promise((resolve) => halfSent.write('{"jsonrpc":"2.0",', resolve));
  halfSent.destroy();

  const initialize = await post(url, JSON.stringify(INITIALIZE));
  const session = initialize.headers.get('mcp-session-id')!;
  t.ok(session, 'initialize opens a session');
  const inSession = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
  await post(url, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), inSession);
  t.match(await post(url, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'no/such/method' }), inSession), {
    status: 200,
    body: { id: 2, error: { code: -32601, message: 'Method not found' } },
  });
  t.match(
    await post(url, JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }), {
      ...inSession,
      'mcp-protocol-version': '1999-01-01',
    }),
    {
      status: 400,
      body: { error: { code: -32000, message: /Unsupported protocol version/ } },
    },
    'a wrong MCP-Protocol-Version header on a session',
  );
  t.match(
    await post(
      url,
      JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'nope' } }),
      inSession,
    ),
    {
      body: {
        id: 4,
        error: {
          code: -32602,
          message: 'Unknown tool "nope": no mounted plugin serves it. Fix: use a name from tools/list.',
        },
      },
    },
  );
  t.match(
    await post(
      url,
      JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list', params: { cursor: 'abc' } }),
      inSession,
    ),
    {
      body: { id: 5, error: { code: -32602, message: /^Invalid cursor "abc": mcp-host did not issue it\./ } },
    },
  );
  const depth = 50_000;
  const deep = await post(
    url,
    `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"good.echo","arguments":{"text":${'['.repeat(depth)}${']'.repeat(depth)}}}}`,
    inSession,
  );
  t.match(deep.body, { id: 6, result: { isError: true } }, 'deep nesting is parsed and refused by the tool schema');

  // The 2026-07-28 leg: a header naming one revision and a body naming another, and a revision nobody speaks.
  const modern = (version: string) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/list',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': version,
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
        },
      },
    });
  const mismatch = await post(url, modern('2026-07-28'), {
    'mcp-protocol-version': '2025-11-25',
    'mcp-method': 'tools/list',
  });
  t.equal(mismatch.status, 400, 'a header that disagrees with the body is refused');
  const unknownRevision = await post(url, modern('2099-01-01'), {
    'mcp-protocol-version': '2099-01-01',
    'mcp-method': 'tools/list',
  });
  t.equal(unknownRevision.status, 400, 'a revision the host does not speak is refused');

  t.equal(host.child.exitCode, null, 'the host is still running');
  t.notMatch(host.log(), /could not answer/, 'no request made the host fail');
});

t.test('over HTTP, a few thousand fuzzed requests: never a 5xx, and the host serves on', async (t) => {
  const ws = makeWorkspace(t);
  const host = await startHttpHost(t, zooConfig(ws));
  const initialize = await post(host.url, JSON.stringify(INITIALIZE));
  const session = initialize.headers.get('mcp-session-id')!;
  const fuzz = new Fuzzer(7_28);
  const statuses = new Map<number, number>();
  const unansweredRequests: string[] = [];
  const total = 1500;
  let next = 0;
  const worker = async () => {
    while (next < total) {
      next++;
      // Mostly what a real client sends, so that most requests get past the headers to the handlers.
      const headers: Record<string, string> = {
        'content-type': fuzz.chance(0.9)
          ? 'application/json'
          : fuzz.pick(['text/plain', 'application/json; charset=utf-8']),
        accept: fuzz.chance(0.9)
          ? 'application/json, text/event-stream'
          : fuzz.pick(['application/json', 'text/event-stream', '*/*']),
      };
      if (fuzz.chance(0.7)) headers['mcp-session-id'] = fuzz.chance(0.9) ? session : fuzz.word();
      if (fuzz.chance(0.7))
        headers['mcp-protocol-version'] = fuzz.chance(0.8)
          ? '2025-11-25'
          : fuzz.pick(['2025-06-18', '2026-07-28', 'x', '']);
      if (fuzz.chance(0.2)) headers['mcp-method'] = fuzz.pick(['tools/list', 'tools/call', fuzz.word()]);
      const method = fuzz.pick(['POST', 'POST', 'POST', 'POST', 'GET', 'DELETE', 'PUT']);
      // A GET on a live session opens its notification stream: read the status, then let it go.
      // Anything else must be answered in full; one the host leaves hanging is a failure, not a skip.
      const body = method === 'POST' || method === 'PUT' ? fuzz.message() : undefined;
      const abort = new AbortController();
      let unanswered = false;
      const timer = setTimeout(() => {
        unanswered = true;
        abort.abort();
      }, UNANSWERED_AFTER_MS);
      try {
        const response = await fetch(host.url, {
          method,
          headers: method === 'DELETE' ? { 'mcp-session-id': fuzz.word() } : headers,
          ...(body === undefined ? {} : { body }),
          signal: abort.signal,
        });
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        if (response.headers.get('content-type')?.startsWith('text/event-stream') && method === 'GET') abort.abort();
        else await response.text();
      } catch (error) {
        if (!abort.signal.aborted) throw error;
      } finally {
        clearTimeout(timer);
      }
      if (unanswered) unansweredRequests.push(`${method} ${JSON.stringify(headers)} ${body ?? ''}`.slice(0, 300));
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  t.comment(`seed ${fuzz.seed}: statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
  t.same(
    [...statuses.keys()].filter((status) => status >= 500),
    [],
    'no request got a 5xx',
  );
  t.same(unansweredRequests, [], `every request was answered within ${UNANSWERED_AFTER_MS} ms`);

  const client = new Client({ name: 'after-the-fuzz', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(host.url)));
  t.teardown(() => client.close());
  t.same(
    (await client.callTool({ name: 'good.echo', arguments: { text: 'still serving' } })).content,
    [{ type: 'text', text: 'still serving' }],
    'a client connecting after the fuzz is served',
  );
  t.equal(host.child.exitCode, null, 'the host is still running');
});
