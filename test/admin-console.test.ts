// The admin console (/admin, docs/admins.md) in a real browser: Playwright
// (playwright-core) drives Debian's Chromium against the host running as a
// child process over HTTP. An admin logs in with the admin token, sees every
// mount and a mount's catalogue (a plugin's hostile description stays text),
// breaks the config and sees the reload refused with its reason, fixes it and
// reloads from the button, watches a reload from the command line arrive
// live, filters the audit log and asks `access explain`; the console is
// refused without credentials, to a non-admin token and to a cross-site
// POST, and no secret reaches a page. Each page's screenshot is written to
// .tmp/screenshots/, or with MCP_HOST_SCREENSHOTS=docs to docs/images/ (which
// docs/admins.md shows; a plain test run leaves git clean). A second test measures the
// console's page weight and first paint with 100 mounts.
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { chromium, type Browser, type Page } from 'playwright-core';
import { connectWithBearer, eventually, runCli, startHttpHost } from './helpers/host.js';
import { controlEnv, makeWorkspace, REPO_ROOT, type Workspace } from './helpers/packages.js';
import { writeBenchPlugin } from '../bench/plugin-workspace.js';
import { ConsoleSessions, csrfMatches } from '../host/admin-console/console-sessions.js';
import { DEFAULT_ADMIN_SCOPE as ADMIN_SCOPE } from '../host/config/admin-settings.js';
import { startOpenIdProvider } from './helpers/openid-provider.js';
import { freePort } from './helpers/engines.js';
import { ALICE, CI, secretOf } from './helpers/named-tokens.js';

t.setTimeout(180_000);

/** Debian's Chromium (`.ci/run` installs it); MCP_HOST_CHROMIUM names another build. */
const CHROMIUM = process.env.MCP_HOST_CHROMIUM ?? '/usr/bin/chromium';
const IMAGES = join(REPO_ROOT, process.env.MCP_HOST_SCREENSHOTS === 'docs' ? 'docs/images' : '.tmp/screenshots');

const ADMIN = 'ops:admin-token-0123456789abcdef';
const ADMIN_TOKEN = secretOf(ADMIN);
/** The admin credential: the static token named "ops" (http.admin, docs/admins.md). */
const HTTP = { port: 0, auth: { tokens: [ALICE, CI, ADMIN], tokensEnv: 'CONSOLE_TOKENS' }, admin: { tokens: ['ops'] } };
/** A token the host accepts from the environment variable the config names (tokensEnv). */
const EXTRA_TOKEN = 'extra-token-from-the-environment';
/** An argument the audit log records (recordArguments) and the console must never show. */
const HIDDEN_ARGUMENT = 'hunter2-argument-never-shown';

/** The browser, or a failure that says how to get it: never a silent skip. */
async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}, and the admin console's browser tests need it. Fix: apt-get install chromium (as .ci/run does), or name a Chromium build with MCP_HOST_CHROMIUM.`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM, headless: true });
}

/** A plugin whose tool description is markup: the console must show it as text. */
function writeHostilePlugin(ws: Workspace): void {
  ws.writePackage(
    'node_modules/@console/hostile',
    {
      name: '@console/hostile',
      version: '2.1.0',
      type: 'module',
      exports: './index.js',
      'mcp-host': { prefix: 'hostile' },
    },
    {
      'index.js': `import { McpServer } from '@modelcontextprotocol/server';
export default {
  create() {
    const server = new McpServer({ name: 'hostile', version: '2.1.0' });
    server.registerTool('markup', { description: '<img src=x onerror="document.title=1">' + '<script>document.title=2</script>' }, () => ({ content: [] }));
    server.registerTool('leak', { description: 'Tokens I saw: ${secretOf(CI)} and ${EXTRA_TOKEN}.' }, () => ({ content: [] }));
    return server;
  },
};
`,
    },
  );
}

interface ConsoleConfig {
  plugins: unknown[];
}

function writeConsoleConfig(ws: Workspace, { plugins }: ConsoleConfig): string {
  return ws.writeConfig({
    reload: { watch: false },
    http: HTTP,
    audit: { file: 'audit.log', recordArguments: true },
    access: [
      { who: { token: 'alice' }, tools: ['notes.*', 'hostile.*'] },
      { who: { token: 'ci' }, tools: ['clock.*'] },
    ],
    plugins,
  });
}

const PLUGINS = (ws: Workspace) => [
  { package: '@mcp-host/notes', options: { file: join(ws.dir, 'notes.json'), exportDelayMs: 0 } },
  { package: '@mcp-host/clock' },
  { package: '@console/hostile' },
];

async function shoot(page: Page, name: string): Promise<void> {
  mkdirSync(IMAGES, { recursive: true });
  await page.screenshot({ path: join(IMAGES, `admin-${name}.png`), fullPage: true });
}

t.test('an admin uses the console in Chromium; everyone else is refused', async (t) => {
  const ws = makeWorkspace(t);
  writeHostilePlugin(ws);
  const env = { ...controlEnv(ws), MCP_HOST_HTTP_TOKENS: undefined, CONSOLE_TOKENS: `extra:${EXTRA_TOKEN}` };
  const config = writeConsoleConfig(ws, { plugins: PLUGINS(ws) });
  const host = await startHttpHost(t, config, { env });
  const origin = new URL(host.url).origin;
  const admin = `${origin}/admin`;

  // Traffic for the audit log: alice searches her notes (the query recorded), ci is denied a notes tool.
  const alice = await connectWithBearer(t, host.url, secretOf(ALICE), 'alice-client');
  await alice.callTool({ name: 'notes.search_notes', arguments: { query: HIDDEN_ARGUMENT } });
  const ci = await connectWithBearer(t, host.url, secretOf(CI), 'ci-client');
  await ci.callTool({ name: 'notes.list_notes', arguments: {} }).catch(() => undefined);
  await ci.callTool({ name: 'clock.now', arguments: {} });
  const auditFile = join(ws.dir, 'audit.log');
  await eventually('the audit log to hold the deny', async () =>
    existsSync(auditFile) ? readFileSync(auditFile, 'utf8').includes('"deny"') : false,
  );
  t.match(readFileSync(auditFile, 'utf8'), HIDDEN_ARGUMENT, 'the audit log holds an argument the console must hide');

  t.test('refused: no credentials, a non-admin token, a cross-site POST', async (t) => {
    const bare = await fetch(admin);
    t.equal(bare.status, 401, 'no credential: 401');
    t.match(await bare.text(), 'Admin token', 'with the login form');
    t.match(bare.headers.get('content-security-policy'), "default-src 'self'");
    const wrong = await fetch(admin, { headers: { authorization: `Bearer ${secretOf(CI)}` } });
    t.equal(wrong.status, 403, 'an MCP token that is not an admin credential: 403');
    const loginAsCi = await fetch(`${admin}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
      body: new URLSearchParams({ token: secretOf(CI) }).toString(),
    });
    t.equal(loginAsCi.status, 403, 'logging in with a non-admin token: 403');
    t.match(await loginAsCi.text(), 'token &quot;ci&quot; is not an admin of this mcp-host', 'saying why');
    t.equal(loginAsCi.headers.get('set-cookie'), null, 'and no session');

    // A real session, then forgeries of its actions.
    const login = await fetch(`${admin}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
      body: new URLSearchParams({ token: ADMIN_TOKEN }).toString(),
    });
    t.equal(login.status, 303);
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    t.match(login.headers.get('set-cookie'), /HttpOnly; SameSite=Strict/);
    const pageText = await (await fetch(`${admin}/reloads`, { headers: { cookie } })).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(pageText)![1]!;
    const post = (headers: Record<string, string>, body: Record<string, string>) =>
      fetch(`${admin}/reload`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, ...headers },
        body: new URLSearchParams(body).toString(),
      });
    const crossSite = await post({ origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' }, { _csrf: csrf });
    t.equal(crossSite.status, 403, 'a POST from another site is refused');
    const otherLoopbackOrigin = await post({ origin: origin.replace('127.0.0.1', 'localhost') }, { _csrf: csrf });
    t.equal(otherLoopbackOrigin.status, 403, 'a POST from another origin on this machine is refused');
    t.match(await otherLoopbackOrigin.text(), 'cross-site POST to the admin console');
    const noCsrf = await post({ origin }, {});
    t.equal(noCsrf.status, 403, 'a POST without the CSRF token is refused');
    t.match(await noCsrf.text(), 'CSRF token is missing');
    const own = await post({ origin, 'sec-fetch-site': 'same-origin' }, { _csrf: csrf });
    t.equal(own.status, 303, "the session's own POST is served");
    const missing = await fetch(`${admin}/nothing-here`, { headers: { cookie } });
    t.equal(missing.status, 404);
    const noAction = await fetch(`${admin}/nothing-here`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin },
      body: new URLSearchParams({ _csrf: csrf }).toString(),
    });
    t.equal(noAction.status, 404, 'no such action');
  });

  t.test('an admin logs in, reloads, filters and explains in the browser', async (t) => {
    const browser = await launchChromium();
    t.teardown(() => browser.close());
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const problems: string[] = [];
    page.on('console', (message) => {
      // The login page's own 401 and 403 are the refusals under test; anything else (a CSP violation) is a problem.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
        problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    const seen: string[] = [];
    const keep = async () => void seen.push(await page.content());

    await page.goto(admin);
    await page.waitForSelector('input[name=token]');
    await shoot(page, 'login');
    await page.fill('input[name=token]', 'not-the-token');
    await page.click('button');
    await page.waitForSelector('[role=alert]');
    await page.fill('input[name=token]', ADMIN_TOKEN);
    await page.click('button');
    await page.waitForSelector('#mounts');
    await page.waitForSelector('body[data-live="on"]');
    for (const name of ['notes', 'clock', 'hostile'])
      t.ok(await page.isVisible(`#mounts a:text-is("${name}")`), `mount ${name}`);
    await keep();
    await shoot(page, 'mounts');

    await page.click('#mounts a:text-is("hostile")');
    await page.waitForSelector('table.tools');
    t.match(
      await page.textContent('table.tools'),
      '<img src=x onerror="document.title=1"><script>',
      'markup shown as text',
    );
    t.not(await page.title(), '1', 'no script of a plugin ran');
    t.match(
      await page.textContent('table.tools'),
      'Tokens I saw: [redacted] and [redacted].',
      'a token a plugin learned is not shown',
    );
    await page.click('a:text-is("Mounts")');
    await page.click('#mounts a:text-is("notes")');
    await page.waitForSelector('table.tools');
    await page.click('table.tools details summary');
    t.match(await page.textContent('table.tools'), '"title"', 'a tool with its input schema');
    await keep();
    await shoot(page, 'mount');

    // Broken: a plugin that is not installed. The reload is refused with its reason; the live catalogue serves on.
    writeConsoleConfig(ws, { plugins: [...PLUGINS(ws), { package: '@console/not-installed' }] });
    await page.click('a:text-is("Reloads")');
    await page.click('#reload');
    await page.waitForSelector('#reloads li.reload:has-text("refused")');
    t.match(await page.textContent('#reloads'), '@console/not-installed', 'the refusal names what was wrong');
    await shoot(page, 'reload-refused');
    // Fixed (and the clock taken out): the button's reload is applied, with its diff.
    writeConsoleConfig(ws, { plugins: PLUGINS(ws).filter((plugin) => plugin.package !== '@mcp-host/clock') });
    await page.click('#reload');
    await page.waitForSelector('#reloads li.reload:has-text("applied")');
    t.match(await page.textContent('#reloads li.reload'), 'plugins removed: clock');
    t.match(await page.textContent('#reloads li.reload'), 'tools removed: clock.now');
    t.match(host.log(), 'admin console: token ops asked for a reload', "the host's log says who reloaded");
    await keep();
    await shoot(page, 'reloads');

    // A reload from the command line reaches the open mounts page live (/admin/events).
    await page.click('a:text-is("Mounts")');
    await page.waitForSelector('#mounts');
    t.notOk(await page.isVisible('#mounts a:text-is("clock")'));
    writeConsoleConfig(ws, { plugins: PLUGINS(ws) });
    const cli = await runCli(['reload', '--config', config], { env });
    t.equal(cli.code, 0, cli.stderr);
    await page.waitForSelector('#mounts a:text-is("clock")');

    await page.click('a:text-is("Sessions")');
    await page.waitForSelector('#sessions');
    t.match(await page.textContent('#sessions'), 'token alice');
    await shoot(page, 'sessions');

    // A record cut short (a crash, a full disk) is passed over, not the page.
    appendFileSync(auditFile, '{"time": "cut short\n');
    await page.click('a:text-is("Audit log")');
    await page.waitForSelector('#audit');
    await page.fill('input[name=identity]', 'ci');
    await page.selectOption('select[name=decision]', 'deny');
    await page.click('form.filters button');
    // The filtered page has replaced the unfiltered one once its address is in the history.
    await page.waitForURL(/identity=ci&tool=&decision=deny/);
    await page.waitForSelector('#audit tbody tr');
    const rows = await page.$$eval('#audit tbody tr', (trs) => trs.map((tr) => tr.textContent ?? ''));
    t.ok(rows.length > 0 && rows.every((row) => row.includes('ci') && row.includes('deny')), 'only ci denials');
    t.ok(rows.some((row) => row.includes('notes.list_notes')));
    await keep();
    await shoot(page, 'audit');
    await page.fill('input[name=identity]', 'alice');
    await page.fill('input[name=tool]', 'search');
    await page.selectOption('select[name=decision]', '');
    await page.click('form.filters button');
    await page.waitForSelector('#audit tbody tr:has-text("notes.search_notes")');
    const alices = await page.$$eval('#audit tbody tr', (trs) => trs.map((tr) => tr.textContent ?? ''));
    t.ok(
      alices.every((row) => row.includes('token alice') && row.includes('notes.search_notes') && row.includes('allow')),
      "only alice's searches",
    );
    await keep();

    await page.click('a:text-is("Access explain")');
    await page.fill('input[name=token]', 'ci');
    await page.fill('input[name=tool]', 'notes.add_note');
    await page.click('form.filters button');
    await page.waitForSelector('#verdicts');
    t.match(await page.textContent('#verdicts'), 'denied');
    t.match(await page.textContent('#verdicts'), 'no rule for this identity lists it; listed by access[0]');
    await page.fill('input[name=tool]', 'clock.now');
    await page.click('form.filters button');
    await page.waitForSelector('#verdicts:has-text("clock.now")');
    t.match(await page.textContent('#verdicts'), 'access[1] { token: "ci" }');
    await keep();
    await shoot(page, 'explain');

    await page.click('a:text-is("Pins")');
    await page.waitForSelector('text=Nothing is pinned');
    const pinned = await runCli(['pin', '--config', config], { env });
    t.equal(pinned.code, 0, pinned.stderr);
    await page.reload();
    await page.waitForSelector('#drift');
    t.match(await page.textContent('#drift'), 'no drift');
    // The plugin changes its description under the pin, and is started afresh: the drift shows, field by field.
    const hostile = join(ws.dir, 'node_modules/@console/hostile/index.js');
    writeFileSync(
      hostile,
      readFileSync(hostile, 'utf8').replace("description: '<img", "description: 'Now harmless. <img"),
    );
    const restarted = await runCli(['reload', '--plugin', 'hostile', '--config', config], { env });
    t.equal(restarted.code, 0, restarted.stderr);
    await page.waitForSelector('#drift:has-text("changed")');
    t.match(await page.textContent('#drift'), 'tool "hostile.markup": changed');
    await keep();
    await shoot(page, 'pins');

    await page.goBack();
    await page.waitForSelector('#verdicts');
    t.equal(
      await page.evaluate(() => JSON.stringify(Object.keys(globalThis.localStorage))),
      '[]',
      "no page is kept in the browser's storage (htmx's history cache is off)",
    );
    const [session] = await page.context().cookies();
    await page.click('text=Log out');
    await page.waitForSelector('input[name=token]');
    const after = await fetch(admin, { headers: { cookie: `${session!.name}=${session!.value}` } });
    t.equal(after.status, 401, 'logged out: the console asks again');

    for (const secret of [ADMIN_TOKEN, secretOf(ALICE), secretOf(CI), EXTRA_TOKEN, HIDDEN_ARGUMENT]) {
      t.notOk(
        seen.some((html) => html.includes(secret)),
        `no page shows ${secret.slice(0, 12)}…`,
      );
    }
    t.same(problems, [], 'no CSP violation or script error in any page');
  });
});

t.test("the console's page weight and first paint, with 100 mounts", async (t) => {
  const ws = makeWorkspace(t);
  for (let i = 0; i < 100; i++) writeBenchPlugin(ws, i, '1.0.0', 5);
  const config = ws.writeConfig({
    reload: { watch: false },
    log: { level: 'warn' },
    http: HTTP,
    plugins: Array.from({ length: 100 }, (_, i) => ({ package: `@bench/p${i}` })),
  });
  const env = { ...controlEnv(ws), MCP_HOST_HTTP_TOKENS: undefined };
  const host = await startHttpHost(t, config, { env, args: ['--http', '127.0.0.1:0'] });
  const admin = `${new URL(host.url).origin}/admin`;
  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const context = await browser.newContext();
  await context.setExtraHTTPHeaders({ authorization: `Bearer ${ADMIN_TOKEN}` });
  const page = await context.newPage();
  // A first visit warms the browser; the best of the next three is measured (the machine may be busy with other work).
  await page.goto(admin);
  const visits = [];
  for (let i = 0; i < 3; i++) {
    await page.goto(admin);
    await page.waitForSelector('#mounts tbody tr:nth-child(100)');
    visits.push(
      await page.evaluate(() => {
        // Typed here: the tests are compiled without the DOM's types.
        type Timing = { encodedBodySize: number };
        const paint = performance.getEntriesByName('first-contentful-paint')[0];
        const navigation = performance.getEntriesByType('navigation' as 'resource')[0] as unknown as Timing;
        const resources = performance.getEntriesByType('resource') as unknown as Timing[];
        const bytes = [navigation, ...resources].reduce((sum, entry) => sum + entry.encodedBodySize, 0);
        return { firstPaintMs: paint?.startTime ?? Infinity, bytes, requests: resources.length + 1 };
      }),
    );
  }
  const figures = visits.reduce((best, visit) => (visit.firstPaintMs < best.firstPaintMs ? visit : best));
  t.comment(
    `admin console, 100 mounts: ${Math.round(figures.bytes / 1024)} KB in ${figures.requests} requests, first contentful paint ${Math.round(figures.firstPaintMs)} ms`,
  );
  t.ok(figures.bytes < 300 * 1024, 'a few hundred KB at most');
  // docs/admins.md states the figure on a quiet machine; the bound here leaves room for a busy one.
  t.ok(figures.firstPaintMs < 2000, 'first paint within two seconds, even beside other work');
});

t.test('without a browser: the pages of a host with nothing to show, and what the console refuses', async (t) => {
  const ws = makeWorkspace(t);
  const env = { ...controlEnv(ws), MCP_HOST_HTTP_TOKENS: undefined };
  const config = ws.writeConfig({ reload: { watch: false }, http: HTTP, plugins: [{ package: '@mcp-host/clock' }] });
  const host = await startHttpHost(t, config, { env });
  // Broken after the start (a host refuses to start on it): the pins page names what is wrong.
  ws.writeFile('mcp-host.lock.json', '{ "lockfileVersion": 1, "mounts": { "clock": [] } }');
  const origin = new URL(host.url).origin;
  const admin = `${origin}/admin`;
  const bearer = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const get = async (path: string) => {
    const response = await fetch(`${admin}${path}`, { headers: bearer });
    return { status: response.status, text: await response.text(), headers: response.headers };
  };

  const audit = await get('/audit');
  t.equal(audit.status, 200);
  t.match(audit.text, "The audit log is off: add <code>audit: { file: 'audit.log' }</code>");
  t.match((await get('/sessions')).text, 'no client session is open');
  t.match((await get('/reloads')).text, 'no reload since this host started');
  t.match(
    (await get('/pins')).text,
    'has a malformed entry for the mount &quot;clock&quot;',
    'a malformed lock, named',
  );
  t.match((await get('/explain?token=ci&tool=nope.nothing')).text, 'no tool named "nope.nothing" is served');
  const everything = await get('/explain?stdio=on');
  t.match(everything.text, 'the config sets no access rules', 'without rules, everyone sees everything');
  t.match(everything.text, 'tool clock.now');
  t.equal((await get('/mounts/nope')).status, 404, 'no such mount');
  t.equal((await get('/mounts/%E0%A4%A')).status, 404, 'a name that is not even well encoded');
  t.equal((await get('/mounts/clock')).status, 200);
  const icon = await get('/assets/favicon.svg');
  t.equal(icon.headers.get('content-type'), 'image/svg+xml');
  t.equal((await fetch(`${admin}/assets/nothing.js`)).status, 401, 'an unknown asset is no public path');

  const deleted = await fetch(admin, { method: 'DELETE', headers: bearer });
  t.equal(deleted.status, 405);
  t.equal(deleted.headers.get('allow'), 'GET, POST');
  const crossSiteLogin = await fetch(`${admin}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost:1' },
    body: `token=${ADMIN_TOKEN}`,
  });
  t.equal(crossSiteLogin.status, 403, 'a login from another origin is refused');
  const emptyLogin = await fetch(`${admin}/login`, { method: 'POST', body: 'token=' });
  t.equal(emptyLogin.status, 401, 'a login without a token: 401');
  const huge = await fetch(`${admin}/login`, { method: 'POST', body: `token=${'x'.repeat(20_000)}` });
  t.equal(huge.status, 413, 'a form over 16 KiB is refused');
  const noSession = await fetch(`${admin}/reload`, { method: 'POST', body: '' });
  t.equal(noSession.status, 401, 'an action without a session');
  t.match(await noSession.text(), 'no admin credential: log in at /admin/login');
  const notAdmin = await fetch(`${admin}/reload`, {
    method: 'POST',
    body: '',
    headers: { authorization: 'Bearer nope' },
  });
  t.equal(notAdmin.status, 401, 'a token the host does not accept');
  t.match(notAdmin.headers.get('www-authenticate'), 'invalid_token', 'with the challenge, as on /mcp');

  // An HTTP request to a path that is neither /mcp nor /admin is still the MCP endpoint's 404.
  t.equal((await fetch(`${origin}/administrator`)).status, 404);
  // A Host that is not this machine's is refused before the console sees it (DNS rebinding).
  const rebound = await fetch(admin, { headers: { ...bearer, origin: 'http://evil.example' } });
  t.equal(rebound.status, 403);
});

t.test('console sessions end when idle, at their lifetime, and past the most a host holds', async (t) => {
  const sessions = new ConsoleSessions();
  const cookie = (id: string) => `other=1; mcp_host_admin=${id}`;
  const first = sessions.open('Bearer a', 'admin', 0);
  t.equal(sessions.find(cookie(first.id), 29 * 60_000), first, 'used within half an hour: kept');
  t.equal(sessions.find(cookie(first.id), 60 * 60_000), undefined, 'idle for over half an hour: ended');
  t.equal(sessions.find(cookie(first.id), 60 * 60_000 + 1), undefined, 'and stays ended');
  let busy = sessions.open('Bearer b', 'admin', 0);
  for (let at = 20 * 60_000; at < 12 * 60 * 60_000; at += 20 * 60_000)
    t.equal(sessions.find(cookie(busy.id), at), busy);
  t.equal(sessions.find(cookie(busy.id), 12 * 60 * 60_000 + 1), undefined, 'however busy, ended after 12 hours');
  busy = sessions.open('Bearer c', 'admin', 0);
  for (let i = 0; i < 100; i++) sessions.open(`Bearer ${i}`, 'admin', 0);
  t.equal(sessions.find(cookie(busy.id), 0), undefined, 'the oldest of over 100 sessions is ended');
  t.equal(sessions.find(undefined), undefined, 'no cookie, no session');
  t.notOk(csrfMatches(busy, busy.csrf.slice(1)), 'a CSRF token of another length does not match');
  t.ok(csrfMatches(busy, busy.csrf));
});

t.test('an OAuth access token with the admin scope logs in; one without it is refused', async (t) => {
  const idp = await startOpenIdProvider(t, {
    scopes: ['mcp', ADMIN_SCOPE],
    clients: [
      { clientId: 'ops-agent', clientSecret: 'ops-secret-0123456789abcdef', scope: `mcp ${ADMIN_SCOPE}` },
      { clientId: 'carol-agent', clientSecret: 'carol-secret-0123456789abcdef', scope: 'mcp' },
    ],
  });
  const port = await freePort();
  const audience = `http://127.0.0.1:${port}/mcp`;
  const ws = makeWorkspace(t);
  const config = ws.writeConfig({
    reload: { watch: false },
    http: { port, oauth: { issuer: idp.issuer, audience }, admin: {} },
    plugins: [{ package: '@mcp-host/clock' }],
  });
  await startHttpHost(t, config, { args: [], env: { ...controlEnv(ws), MCP_HOST_HTTP_TOKENS: undefined } });
  const login = (token: string) =>
    fetch(`http://127.0.0.1:${port}/admin/login`, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({ token }).toString(),
    });
  const admin = await login(await idp.token('ops-agent', { scope: `mcp ${ADMIN_SCOPE}`, resource: audience }));
  t.equal(admin.status, 303, `a token with the scope ${ADMIN_SCOPE} logs in`);
  const cookie = admin.headers.get('set-cookie')!.split(';')[0]!;
  const mounts = await fetch(`http://127.0.0.1:${port}/admin`, { headers: { cookie } });
  t.equal(mounts.status, 200);
  t.match(await mounts.text(), 'href="/admin/mounts/clock"');
  const carol = await login(await idp.token('carol-agent', { scope: 'mcp', resource: audience }));
  t.equal(carol.status, 403, 'a valid token without the admin scope is refused');
  t.match(await carol.text(), `needs an access token with the scope &quot;${ADMIN_SCOPE}&quot;`);
});
