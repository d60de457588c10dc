// A 2026-07-28 upstream may answer a POST with `application/json` whose body is several JSON-RPC messages, one a
// line, written as they happen (the conformance suite's reference server answers its streaming diagnostic so):
// the host reads it as the request's message stream, so the call's progress and log line reach the client that
// made it, as they happen, and the result ends the call. A body that is neither one message nor a stream of them
// is an error naming the mount. Real parts: the upstream is a node:http server in its own process
// (test/fixtures/streamed-json-server), the host a child process, the clients the SDKs' own (v2 at 2026-07-28,
// v1 at a 2025-era revision).
import { join } from 'node:path';
import t from 'tap';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPClientTransport, type Client } from '@modelcontextprotocol/client';
import { modernClient } from './helpers/cluster.js';
import { startHttpHost, type HttpHost, type Teardown } from './helpers/host.js';
import { startListening } from './helpers/listening-server.js';
import { REPO_ROOT, makeWorkspace } from './helpers/packages.js';
import { firstText } from './helpers/results.js';

const SERVER = join(REPO_ROOT, 'test/fixtures/streamed-json-server/server.js');
/** The fixture writes its messages this far apart. */
const STEP_MS = 100;

/** The fixture mounted by URL under the prefix `diag`, and a 2026-07-28 client of the host. */
async function diagnosticsHost(t: Teardown): Promise<{ host: HttpHost; modern: Client }> {
  const { url } = await startListening(t, [SERVER]);
  const config = makeWorkspace(t).writeConfig({ reload: { watch: false }, plugins: [{ url, prefix: 'diag' }] });
  const host = await startHttpHost(t, config);
  const modern = modernClient();
  await modern.connect(new StreamableHTTPClientTransport(new URL(host.url)));
  t.teardown(() => modern.close());
  return { host, modern };
}

t.test(
  'a streamed application/json answer reaches the caller as its messages: progress, log line, result',
  async (t) => {
    const { host, modern } = await diagnosticsHost(t);
    const progress: { progress: number; at: number }[] = [];
    const started = Date.now();
    const result = await modern.callTool(
      { name: 'diag.streamed_diagnostic', arguments: {} },
      { onprogress: ({ progress: n }) => void progress.push({ progress: n, at: Date.now() - started }) },
    );
    const done = Date.now() - started;
    t.equal(firstText(result), 'diagnostic done', 'the result ends the call');
    t.same(
      progress.map(({ progress: n }) => n),
      [1, 2, 3],
      'each progress notification reaches the caller',
    );
    // Passed on as each line arrives, not once the body has ended: the first is heard well before the result.
    t.ok(progress[0]!.at <= done - STEP_MS, `the first progress came ${done - progress[0]!.at} ms before the result`);

    const legacy = new LegacyClient({ name: 'legacy-client', version: '1.0.0' });
    await legacy.connect(new LegacyHttp(new URL(host.url)));
    t.teardown(() => legacy.close());
    const logged: unknown[] = [];
    legacy.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logged.push(n.params.data));
    const legacyProgress: number[] = [];
    const legacyResult = await legacy.callTool({ name: 'diag.streamed_diagnostic', arguments: {} }, undefined, {
      onprogress: ({ progress: n }) => void legacyProgress.push(n),
    });
    t.equal(firstText(legacyResult as never), 'diagnostic done');
    t.same(legacyProgress, [1, 2, 3], 'a legacy client hears the progress too');
    t.same(logged, ['diagnostic ran'], "the log line on the call's answer reaches the client that made the call");

    t.equal(
      firstText(await modern.callTool({ name: 'diag.pretty_diagnostic', arguments: {} })),
      'pretty done',
      'one message over several lines is one message, not a stream',
    );
  },
);

t.test(
  'an application/json answer that is neither one message nor a stream of them is an error naming the mount',
  async (t) => {
    const { host, modern: client } = await diagnosticsHost(t);
    const refusal = (name: string) =>
      client.callTool({ name, arguments: {} }).then(
        (result) => JSON.stringify(result),
        (error: Error) => error.message,
      );
    const neither =
      'mount "diag" answered tools/call with an application/json body that is neither one JSON-RPC message nor a stream of them, one a line:';
    t.match(await refusal('diag.broken_diagnostic'), `${neither} its line 2 is not a JSON-RPC message (`);
    t.match(await refusal('diag.cut_diagnostic'), `${neither} it ended after 1 message without the answer.`);
    t.equal(
      firstText(await client.callTool({ name: 'diag.streamed_diagnostic', arguments: {} })),
      'diagnostic done',
      'the mount serves on',
    );
    t.notMatch(host.log(), /went down/, 'a bad answer is that request’s, not an outage');
  },
);

// `scripts/conformance.sh --streamed-json` judges the host against the conformance plugin answering in such bodies
// (docs/conformance.md): its baseline must really answer so, or the comparison judges nothing.
t.test(
  "the conformance baseline's --streamed-json answers in a streamed JSON body, and the host relays it",
  async (t) => {
    const { url } = await startListening(t, [
      join(REPO_ROOT, 'dist/bench/serve-direct-http.js'),
      join(REPO_ROOT, 'plugins/conformance/index.js'),
      '127.0.0.1:0',
      '--streamed-json',
    ]);
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'test_tool_with_progress',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'test_tool_with_progress',
          arguments: {},
          _meta: {
            progressToken: 'p',
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
            'io.modelcontextprotocol/clientInfo': { name: 'probe', version: '1.0.0' },
          },
        },
      }),
    });
    t.equal(response.headers.get('content-type'), 'application/json');
    const messages = (await response.text())
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { method?: string; id?: number });
    t.same(
      messages.map((message) => message.method ?? `answer ${message.id}`),
      ['notifications/progress', 'notifications/progress', 'notifications/progress', 'answer 1'],
      'three progress lines, then the answer, one a line',
    );

    const config = makeWorkspace(t).writeConfig({ reload: { watch: false }, plugins: [{ url, flat: true }] });
    const host = await startHttpHost(t, config);
    const modern = modernClient();
    await modern.connect(new StreamableHTTPClientTransport(new URL(host.url)));
    t.teardown(() => modern.close());
    const progress: number[] = [];
    const result = await modern.callTool(
      { name: 'test_tool_with_progress', arguments: {} },
      { onprogress: ({ progress: n }) => void progress.push(n) },
    );
    t.equal(firstText(result), 'Tool with progress executed successfully');
    t.same(progress, [0, 50, 100], 'the progress read from the streamed body reaches the caller');
  },
);
