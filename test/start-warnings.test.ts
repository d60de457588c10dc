// What cannot work is said at start, at each reload and by check, in words:
// access rules that no configured token source lets any client match (with
// rules on, that client sees nothing, silently), access globs that match
// nothing served, and a second config file beside the one read.
import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { assertLogged, runCli, startStdioHost } from './helpers/host.js';
import { controlEnv, makeWorkspace, type Workspace } from './helpers/packages.js';
import { writePlugin } from './helpers/readme.js';

t.setTimeout(300_000);

/** A plugin serving one tool, clock.now. */
function writeClock(ws: Workspace): void {
  writePlugin(ws, 'node_modules/clock', 'clock', { prefix: 'clock' }, ['now']);
}

const TOKENS = 'deploy:0123456789abcdef0123,fedcba9876543210fedc';

/** The warnings, as `check` prints them and the host logs them. */
const WARNINGS = [
  'mcp-host.config.js: access[0].who.token: no static token is named "ci" (the tokens from MCP_HOST_HTTP_TOKENS are named "deploy" and "token-',
  '), so this rule matches no client. Fix: give the token its name where it is configured (ci:<token> in MCP_HOST_HTTP_TOKENS), or correct the rule.',
  'mcp-host.config.js: access[1].who.sub: matches an OAuth access token\'s "sub" and "groups", but the config has no http.oauth: no client carries claims, so this rule matches no client. Fix: configure http.oauth',
  'mcp-host.config.js: access[2].tools[1]: the glob "clokc.*" matches no tool name the host serves, so it allows nothing. Fix: correct it against the composed names',
];

t.test(
  'access rules no client can match, and globs that match nothing, are warned of at start, reload and check',
  async (t) => {
    const ws = makeWorkspace(t);
    writeClock(ws);
    const config = ws.writeConfig({
      plugins: [{ package: 'clock' }],
      access: [
        { who: { token: 'ci' }, tools: ['clock.*'] },
        { who: { sub: 'alice', groups: ['ops'] }, tools: ['clock.now'] },
        { who: { stdio: true }, tools: ['clock.now', 'clokc.*'] },
        { who: { token: 'deploy' }, tools: ['clock.*'] },
      ],
      reload: { watch: false },
    });
    const env = { ...controlEnv(ws), MCP_HOST_HTTP_TOKENS: TOKENS };

    const checked = await runCli(['check', '--config', config], { env });
    t.equal(checked.code, 0, 'warnings refuse nothing');
    for (const warning of WARNINGS) t.match(checked.stdout, warning);
    t.notMatch(checked.stdout, 'access[3]', 'a rule a token can match is not warned of');
    t.notMatch(checked.stdout, '0123456789abcdef', 'no token is shown, only names');

    const host = await startStdioHost(t, config, { env });
    // The log is JSON: a quote in a message is escaped there.
    for (const warning of WARNINGS) await assertLogged(t, host.log, JSON.stringify(warning).slice(1, -1));

    const reloaded = await runCli(['reload', '--config', config], { env });
    t.equal(reloaded.code, 0, reloaded.stderr);
    for (const warning of WARNINGS) t.match(reloaded.stdout, warning);

    // Without the variable, the token rules are warned of as having no token at all.
    const bare = await runCli(['check', '--config', config], { env: { ...env, MCP_HOST_HTTP_TOKENS: '' } });
    t.match(
      bare.stdout,
      'access[3].who.token: no static token is named "deploy" (no static token is configured: MCP_HOST_HTTP_TOKENS gives none here), so this rule matches no client.',
    );
  },
);

t.test('token names come from every source the config names, and http.auth none accepts none', async (t) => {
  const ws = makeWorkspace(t);
  writeClock(ws);
  const rules = [{ who: { token: 'ci' }, tools: ['clock.*'] }];
  const checkWith = (http: Record<string, unknown>) =>
    runCli(
      [
        'check',
        '--config',
        ws.writeConfig({ plugins: [{ package: 'clock' }], http: { port: 0, ...http }, access: rules }),
      ],
      {
        env: { ...process.env, MCP_HOST_HTTP_TOKENS: '' },
      },
    );

  ws.writeFile('tokens', 'ci:0123456789abcdef0123\n');
  const fromFile = await checkWith({ auth: { tokensFile: './tokens' } });
  t.equal(fromFile.code, 0, fromFile.stdout);
  t.notMatch(fromFile.stdout, 'warning:', 'the file names a token ci');

  const otherFile = await checkWith({ auth: { tokens: ['deploy:0123456789abcdef0123'], tokensFile: './tokens-2' } });
  t.notMatch(otherFile.stdout, 'warning:', 'an unreadable tokens file leaves nothing to judge by');

  ws.writeFile('tokens-2', 'ops:0123456789abcdef0123\n');
  const named = await checkWith({ auth: { tokens: ['deploy:0123456789abcdef0123'], tokensFile: './tokens-2' } });
  t.match(
    named.stdout,
    'access[0].who.token: no static token is named "ci" (the tokens from http.auth.tokens, http.auth.tokensFile and MCP_HOST_HTTP_TOKENS are named "deploy" and "ops"), so this rule matches no client.',
  );

  const none = await checkWith({ auth: 'none' });
  t.match(
    none.stdout,
    "access[0].who.token: no static token is named \"ci\" (http.auth is 'none': the host accepts no static token), so this rule matches no client. Fix: remove http.auth: 'none' and give the host a token named ci (ci:<token>), or remove the rule.",
  );
});

t.test('two config files in one directory: the one read is named, and the other', async (t) => {
  const ws = makeWorkspace(t);
  writeClock(ws);
  ws.writeConfig({ plugins: [{ package: 'clock' }] });
  ws.writeConfig('export default { plugins: [] };\n', 'mcp-host.config.ts');
  const warning = `${ws.dir}: holds mcp-host.config.js and mcp-host.config.ts: this host reads mcp-host.config.js, and never mcp-host.config.ts. Fix: keep one config file: merge what mcp-host.config.ts holds into mcp-host.config.js and delete it (or delete mcp-host.config.js to use mcp-host.config.ts).`;

  const checked = await runCli(['check'], { cwd: ws.dir });
  t.equal(checked.code, 0, checked.stdout);
  t.match(checked.stdout, `warning: ${warning}`);
  t.match(checked.stdout, 'tools: clock.now', 'the .js one is the one read');

  const host = await startStdioHost(t, undefined, { cwd: ws.dir });
  await assertLogged(t, host.log, warning);

  unlinkSync(join(ws.dir, 'mcp-host.config.ts'));
  const single = await runCli(['check'], { cwd: ws.dir });
  t.notMatch(single.stdout, 'warning:', 'one config file: nothing to warn of');
});
