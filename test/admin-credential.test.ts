// The admin credential in front of /metrics (and the console's /admin), issue #41 and DESIGN.md ("Admin console and
// metrics"): never without an admin credential, a static token http.admin names or an OAuth token with the admin
// scope; loopback alone does not admit. The host runs as a child process over HTTP on 127.0.0.1, its OAuth tokens
// signed by a real OpenID provider on loopback (oidc-provider).
import t from 'tap';
import { startHttpHost } from './helpers/host.js';
import { freePort } from './helpers/engines.js';
import { makeWorkspace } from './helpers/packages.js';
import { startOpenIdProvider } from './helpers/openid-provider.js';
import { configProblems } from './helpers/config-problems.js';

const OPS = 'ops-0123456789abcdef0123456789abcdef';
const CI = 'ci-0123456789abcdef0123456789abcdef';

const idp = await startOpenIdProvider(t);
const port = await freePort();
const audience = `http://127.0.0.1:${port}/mcp`;
const ws = makeWorkspace(t);
const host = await startHttpHost(
  t,
  ws.writeConfig({
    reload: { watch: false },
    http: {
      port,
      auth: { tokens: [`ops:${OPS}`, `ci:${CI}`] },
      oauth: { issuer: idp.issuer, audience, scopes: ['mcp'] },
      admin: { tokens: ['ops'] },
    },
    plugins: [{ package: '@mcp-host/clock' }],
  }),
  { args: [], env: { MCP_HOST_HTTP_TOKENS: undefined } },
);
const metricsUrl = new URL('/metrics', host.url);

function scrape(token?: string, init: RequestInit = {}): Promise<Response> {
  return fetch(metricsUrl, { ...init, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
}

/** An access token the provider signs for this host, with `scope`. */
function accessToken(scope: string): Promise<string> {
  return idp.accessToken(audience, { sub: 'alice', scope });
}

t.test('no token, or one the host does not accept: 401 with a challenge; loopback alone does not admit', async (t) => {
  const none = await scrape();
  t.equal(none.status, 401);
  t.match(none.headers.get('www-authenticate'), /^Bearer /);
  const wrong = await scrape('not-a-token-of-this-host-0123456789');
  t.equal(wrong.status, 401);
  t.match(wrong.headers.get('www-authenticate'), /error="invalid_token"/);
});

t.test('a token the host accepts that is not an admin: 403 insufficient_scope, naming what admits', async (t) => {
  const ci = await scrape(CI);
  t.equal(ci.status, 403);
  t.match(ci.headers.get('www-authenticate'), /error="insufficient_scope"/);
  t.match(
    ((await ci.json()) as { error_description: string }).error_description,
    'token "ci" is not an admin of this mcp-host: /metrics needs a token named in http.admin.tokens (ops) or an access token with the scope "mcp-host:admin"',
  );
  const user = await scrape(await accessToken('mcp'));
  t.equal(user.status, 403, 'an OAuth token without the admin scope');
  t.match(user.headers.get('www-authenticate'), /scope="mcp-host:admin"/);
});

t.test('the admin token, or an OAuth token with the admin scope: 200', async (t) => {
  const ops = await scrape(OPS);
  t.equal(ops.status, 200);
  t.equal(ops.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  t.match(await ops.text(), /^# HELP /m);
  t.equal((await scrape(await accessToken('mcp mcp-host:admin'))).status, 200);
});

t.test('/metrics answers GET only', async (t) => {
  const posted = await scrape(OPS, { method: 'POST', body: '{}' });
  t.equal(posted.status, 405);
  t.equal(posted.headers.get('allow'), 'GET');
});

t.test('http.metrics without http.admin: 503, naming what to configure', async (t) => {
  const ws = makeWorkspace(t);
  const open = await startHttpHost(
    t,
    ws.writeConfig({ reload: { watch: false }, plugins: [], http: { port: 0, metrics: true } }),
    {
      args: [],
      env: { MCP_HOST_HTTP_TOKENS: undefined },
    },
  );
  const answer = await fetch(new URL('/metrics', open.url));
  t.equal(answer.status, 503);
  t.match(await answer.json(), {
    error: 'not_configured',
    message:
      '/metrics needs an admin credential, and this mcp-host has none: set http.admin in the config (tokens: names of http.auth tokens, or scope: an OAuth scope)',
  });
});

t.test('an http.admin that could admit no one, or names a token the host lacks, refuses the start', async (t) => {
  const refused = async (http: Record<string, unknown>): Promise<string> => {
    const ws = makeWorkspace(t);
    const started = startHttpHost(
      t,
      ws.writeConfig({ reload: { watch: false }, plugins: [], http: { port: 0, ...http } }),
      {
        args: [],
        env: { MCP_HOST_HTTP_TOKENS: undefined },
      },
    );
    return started.then(
      () => 'started',
      (error: Error) => error.message,
    );
  };
  t.match(
    await refused({ auth: { tokens: [`ops:${OPS}`] }, admin: { tokens: ['ops', 'root'] } }),
    'http.admin: http.admin.tokens names "root", but the host accepts no bearer token of that name (its tokens are named "ops"). Fix: give the admin\'s token a name where it is listed',
  );
  t.match(await refused({ admin: { tokens: ['ops'] } }), 'its tokens are named nothing: it has none');
  t.match(
    await refused({ auth: { tokens: [`ops:${OPS}`] }, admin: {} }),
    'http.admin: http.admin admits no one: it names no token (http.admin.tokens) and the host checks no OAuth token (http.oauth), and loopback alone never admits. Fix: name an admin token in http.admin.tokens',
  );
});

t.test('http.admin and http.metrics are validated, each problem naming its key', async (t) => {
  t.same(
    configProblems({
      plugins: [],
      http: { port: 3000, admin: { tokens: ['bad name'], scope: 'two words', role: 'x' }, metrics: 'yes' },
    }),
    [
      'mcp-host.config.js: http.admin.tokens: expected an array of token names (letters, digits, _ . -, as http.auth tokens are named "name:token"), got an array. Fix: e.g. tokens: ["ops"].',
      'mcp-host.config.js: http.admin.scope: expected a scope name (non-empty, without spaces), got "two words". Fix: e.g. scope: "mcp-host:admin".',
      'mcp-host.config.js: http.admin.role: unknown key "role". Fix: remove it; the keys allowed here are "tokens" and "scope".',
      'mcp-host.config.js: http.metrics: expected true or false, got "yes". Fix: e.g. metrics: true (false keeps /metrics off while http.admin is set).',
    ],
  );
});
