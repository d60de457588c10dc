// /metrics (issue #41): the metrics the host records, in the Prometheus text format that Prometheus's own
// `promtool check metrics` accepts, to an admin only; a tool call moves its counter and its histogram. The host
// runs as a child process over HTTP on 127.0.0.1 with the clock plugin, driven by the SDK's own Client.
import { spawnSync } from 'node:child_process';
import t from 'tap';
import { connectWithBearer, eventually, postInitialize, startHttpHost } from './helpers/host.js';
import { makeWorkspace } from './helpers/packages.js';

const OPS = 'ops-0123456789abcdef0123456789abcdef';
const ws = makeWorkspace(t);
const host = await startHttpHost(
  t,
  ws.writeConfig({
    reload: { watch: false },
    // One session at a time: a second initialize is a limit hit the metrics count.
    http: { port: 0, auth: { tokens: [`ops:${OPS}`] }, admin: { tokens: ['ops'] }, maxSessions: 1 },
    plugins: [{ package: '@mcp-host/clock' }],
  }),
  { args: [], env: { MCP_HOST_HTTP_TOKENS: undefined } },
);

// The one session http.maxSessions allows, for every test here.
const client = await connectWithBearer(t, host.url, OPS, 'metrics');

async function scrape(): Promise<string> {
  const answer = await fetch(new URL('/metrics', host.url), { headers: { authorization: `Bearer ${OPS}` } });
  if (answer.status !== 200) throw new Error(`/metrics answered ${answer.status}: ${await answer.text()}`);
  return answer.text();
}

/** The value of the sample `name{…}` whose labels include every one of `labels` (0 when there is none). */
function sample(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)\{(.*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const has = Object.entries(labels).every(([key, value]) => match[2]!.includes(`${key}="${value}"`));
    if (has) return Number(match[3]);
  }
  return 0;
}

const CALL = { mcp_host_mount: 'clock', gen_ai_tool_name: 'now', mcp_method_name: 'tools/call' };

t.test('a tool call moves its counter and its histogram, per mount and tool', async (t) => {
  const before = await scrape();
  await client.callTool({ name: 'clock.now', arguments: {} });
  const after = await scrape();
  const moved = (name: string) => sample(after, name, CALL) - sample(before, name, CALL);
  t.equal(moved('mcp_host_upstream_requests_total'), 1, 'the calls counter');
  t.equal(moved('mcp_client_operation_duration_count'), 1, "the latency histogram's count");
  t.ok(moved('mcp_client_operation_duration_sum') > 0, "the latency histogram's sum");
  t.equal(
    sample(after, 'mcp_client_operation_duration_bucket', { ...CALL, le: '+Inf' }),
    sample(after, 'mcp_client_operation_duration_count', CALL),
    'the +Inf bucket holds every call',
  );
  t.equal(
    sample(after, 'mcp_server_operation_duration_count', { gen_ai_tool_name: 'clock.now' }) -
      sample(before, 'mcp_server_operation_duration_count', { gen_ai_tool_name: 'clock.now' }),
    1,
    'the call as the client sees it, under its catalogue name',
  );
  t.equal(sample(after, 'mcp_host_sessions_open', {}), 1, 'the session open');
  t.equal(sample(after, 'mcp_host_mounts', { mcp_host_mount_state: 'up' }), 1, 'mounts up');
  t.equal(sample(after, 'mcp_host_mounts', { mcp_host_mount_state: 'down' }), 0, 'mounts down');
});

t.test('a tool error is counted apart, by error.type', async (t) => {
  const failed = await client.callTool({ name: 'clock.now', arguments: { timeZone: 'Not/AZone' } });
  t.equal(failed.isError, true, 'the clock refuses a time zone it does not know');
  const text = await scrape();
  t.equal(sample(text, 'mcp_host_upstream_requests_total', { ...CALL, error_type: 'tool_error' }), 1);
});

t.test('reloads by outcome and limit hits are counted', async (t) => {
  // The client holds the one session: another initialize is refused, a hit on http.maxSessions.
  const refused = await postInitialize(host.url, { token: OPS });
  t.equal(refused.status, 503);
  host.child.kill('SIGHUP');
  await eventually('the reload to be counted', async () =>
    (await scrape()).includes('mcp_host_reloads_total{mcp_host_reload_outcome="ok"'),
  );
  const text = await scrape();
  t.equal(sample(text, 'mcp_host_limits_hit_total', { mcp_host_limit: 'http.maxSessions' }), 1);
  t.equal(sample(text, 'mcp_host_reloads_total', { mcp_host_reload_outcome: 'ok' }), 1);
  t.equal(sample(text, 'mcp_host_reload_duration_count', { mcp_host_reload_outcome: 'ok' }), 1);
});

t.test("promtool check metrics (Prometheus's own linter) accepts the text", async (t) => {
  const text = await scrape();
  const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  t.equal(check.error, undefined, 'promtool runs (Debian: apt-get install prometheus)');
  t.equal(check.status, 0, `promtool: ${check.stdout}${check.stderr}`);
  t.equal(check.stdout + check.stderr, '', 'with no lint finding');
});

t.test('a host without http.admin or http.metrics has no /metrics', async (t) => {
  const ws = makeWorkspace(t);
  const plain = await startHttpHost(
    t,
    ws.writeConfig({ reload: { watch: false }, plugins: [], http: { port: 0, auth: { tokens: [`ops:${OPS}`] } } }),
    { args: [], env: { MCP_HOST_HTTP_TOKENS: undefined } },
  );
  const answer = await fetch(new URL('/metrics', plain.url), { headers: { authorization: `Bearer ${OPS}` } });
  t.equal(answer.status, 404);
  t.notMatch(plain.log(), 'telemetry on', 'and records nothing');
});
