// The HTTP endpoint's security settings from the config (http.auth tokens
// and tokensEnv, maxBodyBytes, sessionIdleTimeoutMs), the health endpoints
// (/healthz, /readyz with per-mount state), and a client's credentials
// never reaching an upstream. The host runs as a child process.
import { request as httpRequest } from 'node:http';
import t, { type Test } from 'tap';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { runCli, startHttpHost, until } from './helpers/host.js';
import { makeWorkspace, type Workspace } from './helpers/packages.js';
import { writeZoo } from './helpers/zoo.js';
import { sayingHello, startRecordingUpstream } from './helpers/recording-upstream.js';

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
});

/** The host serving HTTP, with no token from the test's own environment, and its base URL for the health paths. */
async function startHost(t: Test, config: string, env: NodeJS.ProcessEnv = {}) {
  const host = await startHttpHost(t, config, { args: [], env: { MCP_HOST_HTTP_TOKENS: undefined, ...env } });
  return { ...host, base: host.url.replace(/\/mcp$/, '') };
}

function writeConfig(ws: Workspace, http: Record<string, unknown>, plugins: unknown[] = [{ package: '@zoo/good' }]) {
  writeZoo(ws);
  return ws.writeConfig({ reload: { watch: false }, http: { port: 0, ...http }, plugins });
}

/** A GET with any Host header (fetch will not let a caller set one). */
function rawGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) as unknown }));
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('http.auth.tokens and tokensEnv: /mcp needs one of them, and the 401 says where they come from', async (t) => {
  const ws = makeWorkspace(t);
  const config = writeConfig(ws, { auth: { tokens: ['from-config-0123456789'], tokensEnv: 'ZOO_TOKENS' } });
  const host = await startHost(t, config, { ZOO_TOKENS: 'from-env-1-0123456789,from-env-2-0123456789' });
  const post = (authorization?: string) =>
    fetch(host.url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, ...(authorization && { authorization }) },
      body: INITIALIZE,
    });

  const none = await post();
  t.equal(none.status, 401);
  t.match(none.headers.get('www-authenticate'), /^Bearer error="invalid_token"/);
  const wrong = await post('Bearer from-config-not');
  t.equal(wrong.status, 401);
  t.same(await wrong.json(), {
    error: 'invalid_token',
    error_description:
      'the bearer token is not one this mcp-host accepts (its tokens come from http.auth.tokens and ZOO_TOKENS)',
  });
  for (const token of ['from-config-0123456789', 'from-env-2-0123456789'])
    t.equal((await post(`Bearer ${token}`)).status, 200, token);
});

t.test('http.auth with no token at all refuses to start rather than serve open', async (t) => {
  const ws = makeWorkspace(t);
  const config = writeConfig(ws, { auth: { tokensEnv: 'ZOO_TOKENS' } });
  const run = await runCli(['start', '--config', config], { env: { ...process.env, ZOO_TOKENS: undefined } });
  t.equal(run.code, 1);
  t.equal(run.stdout, '');
  t.equal(
    run.stderr,
    "mcp-host: mcp-host.config.js: http.auth: asks for bearer-token auth, but there is no token: ZOO_TOKENS is unset or empty. Fix: set ZOO_TOKENS to one or more comma-separated tokens in the host's environment, or name a file holding them in http.auth.tokensFile.\n",
  );
});

t.test('http.maxBodyBytes bounds request bodies; http.sessionIdleTimeoutMs ends idle sessions', async (t) => {
  const ws = makeWorkspace(t);
  // Idle time long enough that a loaded machine's first ping cannot outlast it.
  const config = writeConfig(ws, { maxBodyBytes: 2048, sessionIdleTimeoutMs: 2000 });
  const host = await startHost(t, config);
  const big = await fetch(host.url, { method: 'POST', headers: MCP_HEADERS, body: 'x'.repeat(4096) });
  t.equal(big.status, 413);
  t.same(await big.json(), {
    jsonrpc: '2.0',
    error: { code: -32000, message: 'Payload Too Large: Request body must not exceed 2048 bytes' },
    id: null,
  });

  const opened = await fetch(host.url, { method: 'POST', headers: MCP_HEADERS, body: INITIALIZE });
  const session = opened.headers.get('mcp-session-id')!;
  await opened.text();
  const ping = () =>
    fetch(host.url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
    });
  t.equal((await ping()).status, 200, 'the session serves while in use');
  await until('the idle session to end', () => host.log().includes(`ending HTTP session ${session}: idle for 2000 ms`));
  const late = await ping();
  t.equal(late.status, 404, 'idle past sessionIdleTimeoutMs, the session is gone');
});

t.test('/healthz and /readyz: the status for anyone, per-mount details for who may use /mcp', async (t) => {
  const ws = makeWorkspace(t);
  const config = writeConfig(ws, { auth: { tokens: ['probe-token-0123456789'] } }, [
    { package: '@zoo/good' },
    { package: '@zoo/good', prefix: 'isolated', isolation: 'worker' },
    { command: 'zoo-no-such-command', prefix: 'missing' },
  ]);
  const host = await startHost(t, config);
  const authorized = { authorization: 'Bearer probe-token-0123456789' };

  t.same(
    await rawGet(`${host.base}/healthz`, { host: '10.1.2.3:8080' }),
    { status: 200, body: { status: 'ok' } },
    'liveness, whatever the Host',
  );
  t.same(
    await rawGet(`${host.base}/readyz`),
    { status: 503, body: { ready: false } },
    'without a token: the status only',
  );
  t.same(
    await rawGet(`${host.base}/readyz`, { host: '10.1.2.3:8080', ...authorized }),
    { status: 503, body: { ready: false } },
    'from a Host /mcp would refuse: the status only',
  );
  const detailed = await rawGet(`${host.base}/readyz`, authorized);
  t.equal(detailed.status, 503);
  t.same(detailed.body, {
    ready: false,
    generation: 1,
    mounts: [
      { name: 'good', plugin: '@zoo/good', kind: 'in-process', isolation: 'none', state: 'up' },
      { name: 'isolated', plugin: '@zoo/good', kind: 'in-process', isolation: 'worker', state: 'up' },
      {
        name: 'missing',
        plugin: 'zoo-no-such-command',
        kind: 'stdio',
        state: 'down',
        cause: 'could not start "zoo-no-such-command": spawn zoo-no-such-command ENOENT.',
        fix: `install "zoo-no-such-command" or put it on the PATH the host runs with (or give its absolute path), and check the entry's cwd "${ws.dir}".`,
      },
    ],
  });
  const post = await fetch(`${host.base}/healthz`, { method: 'POST' });
  t.equal(post.status, 405);
  t.equal(post.headers.get('allow'), 'GET');
});

t.test('/readyz is 200 when every mount is up', async (t) => {
  const ws = makeWorkspace(t);
  const host = await startHost(t, writeConfig(ws, {}));
  t.same(await rawGet(`${host.base}/readyz`), {
    status: 200,
    body: {
      ready: true,
      generation: 1,
      mounts: [{ name: 'good', plugin: '@zoo/good', kind: 'in-process', isolation: 'none', state: 'up' }],
    },
  });
});

t.test("a client's bearer token never reaches an upstream; the mount's own headers do", async (t) => {
  const { url: upstreamUrl, seen } = await startRecordingUpstream(t, sayingHello);

  const ws = makeWorkspace(t);
  const config = writeConfig(ws, { auth: { tokens: ['client-secret-0123456789'] } }, [
    { url: upstreamUrl, prefix: 'up', headers: { 'x-upstream-key': 'mount-key' } },
  ]);
  const host = await startHost(t, config);
  const client = new Client({ name: 'with-a-token', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(host.url), {
      requestInit: { headers: { authorization: 'Bearer client-secret-0123456789' } },
    }),
  );
  t.teardown(() => client.close());
  t.same((await client.callTool({ name: 'up.hello', arguments: {} })).content, [{ type: 'text', text: 'hello' }]);
  t.ok(seen.length > 0, `the upstream saw ${seen.length} requests`);
  t.ok(
    seen.every((headers) => headers['x-upstream-key'] === 'mount-key'),
    "each carried the mount's own header",
  );
  t.notOk(
    seen.some((headers) => JSON.stringify(headers).includes('client-secret-0123456789')),
    "none carried the client's token",
  );
});
