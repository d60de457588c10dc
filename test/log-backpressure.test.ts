// The host's log when nobody reads it (host/log.ts): whatever reads the
// host's stderr (a stdio client, a log shipper) may fall behind or stop. The
// host keeps serving, holds a bounded backlog of log lines, and once the
// reader is back says how many it dropped. Before, its writer slept 100 ms
// on every full pipe, with the event loop: a reader that stopped stopped the
// host.
import t from 'tap';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { assertLogged, startHttpHost, until } from './helpers/host.js';
import { makeWorkspace } from './helpers/packages.js';
import { EVENT_MS } from './helpers/timing.js';

/** A stdio MCP server (SDK v1) whose `shout` writes `lines` lines to its stderr, which the host logs line by line. */
const SHOUTING_SERVER = `
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'shouting-child', version: '1.0.0' });
server.registerTool('shout', { inputSchema: { lines: z.number() } }, async ({ lines }) => {
  for (let i = 0; i < lines; i++) process.stderr.write('shouting line ' + i + ' ' + 'x'.repeat(60) + '\\n');
  return { content: [{ type: 'text', text: 'shouted' }] };
});
await server.connect(new StdioServerTransport());
`;

t.test('stderr not read: the host keeps serving, bounds its backlog, and says what it dropped', async (t) => {
  const ws = makeWorkspace(t);
  const script = ws.writeFile('child/server.js', SHOUTING_SERVER);
  const config = ws.writeConfig({
    reload: { watch: false },
    plugins: [{ command: process.execPath, args: [script], prefix: 'noisy' }],
  });
  const host = await startHttpHost(t, config);
  const client = new Client({ name: 'log-backpressure', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(host.url)));
  t.teardown(() => client.close());

  // The reader stops: once the pipe and this side's buffer are full, every log line waits in the host.
  host.child.stderr!.pause();
  // 40,000 stderr lines become about 9 MB of log entries, over the 4 MiB the host holds unwritten.
  const shouted = await client.callTool({ name: 'noisy.shout', arguments: { lines: 40_000 } });
  t.match(shouted, { content: [{ text: 'shouted' }] }, 'the call is answered while nobody reads the log');
  const health = host.url.replace(/\/mcp$/, '/healthz');
  // A host that blocks on its log write (as pino's synchronous writer did, sleeping 100 ms and trying
  // again) blocks for as long as the pipe stays full, here until the reader resumes below: it would not
  // answer at all. So each probe is bounded by the suite's bound for an event, not by a speed claim that a
  // slow or paused machine could miss; how quick /healthz stays under a plugin's chatter is
  // client-containment.test.ts's to judge, against the same host idle.
  let worst = 0;
  for (let probe = 0; probe < 5; probe++) {
    const started = performance.now();
    t.equal((await fetch(health, { signal: AbortSignal.timeout(EVENT_MS) })).status, 200);
    worst = Math.max(worst, performance.now() - started);
  }
  t.ok(worst < EVENT_MS, `/healthz answered within ${worst.toFixed(1)} ms at worst while stderr was not read`);
  await client.ping();

  host.child.stderr!.resume();
  await until(
    'the host to say what it dropped',
    () => /dropped \d+ log entries while stderr was not being read/.test(host.log()),
    EVENT_MS,
  );
  await assertLogged(
    t,
    host.log,
    /"msg":"dropped \d+ log entries while stderr was not being read \(over 4194304 bytes waiting\); whatever reads the host's stderr fell behind"/,
  );
  await assertLogged(t, host.log, /shouting line 0 /, 'the first lines were kept');
  t.equal(host.child.exitCode, null, 'the host is still running');
});
