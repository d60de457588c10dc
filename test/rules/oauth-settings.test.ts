// `http.oauth` as the endpoint uses it (host/serve/oauth-settings.ts),
// in-process: its defaults, and the introspection secret read at start,
// refused when empty with its message. test/oauth.test.ts starts hosts with
// these configs; this file is quick enough for `npm run mutation`.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { JWT_ALGORITHMS } from '../../host/config/validate.js';
import { HostError } from '../../host/errors.js';
import { DEFAULT_CLOCK_SKEW_SECONDS, oauthSettingsOf } from '../../host/serve/oauth-settings.js';

const WHERE = 'mcp-host.config.js: http.oauth';
const OAUTH = { issuer: 'https://issuer.example', audience: 'https://host.example/mcp' };
const dir = mkdtempSync(join(tmpdir(), 'mcp-host-oauth-settings-'));

t.test('the defaults, and what the config sets', async (t) => {
  t.equal(DEFAULT_CLOCK_SKEW_SECONDS, 30);
  t.same(oauthSettingsOf(OAUTH, WHERE, dir), {
    ...OAUTH,
    scopes: [],
    algorithms: JWT_ALGORITHMS,
    clockSkewSeconds: 30,
  });
  t.same(oauthSettingsOf({ ...OAUTH, scopes: ['mcp'], algorithms: ['ES256'], clockSkewSeconds: 0 }, WHERE, dir), {
    ...OAUTH,
    scopes: ['mcp'],
    algorithms: ['ES256'],
    clockSkewSeconds: 0,
  });
});

t.test('the introspection secret, from a variable (withheld) or a file, trimmed', async (t) => {
  process.env.MCP_HOST_TEST_INTROSPECTION_1 = ' the secret \n';
  t.same(
    oauthSettingsOf(
      { ...OAUTH, introspection: { clientId: 'mcp-host', clientSecretEnv: 'MCP_HOST_TEST_INTROSPECTION_1' } },
      WHERE,
      dir,
    ).introspection,
    { clientId: 'mcp-host', clientSecret: 'the secret' },
  );
  t.equal(process.env.MCP_HOST_TEST_INTROSPECTION_1, undefined, 'withheld from plugins');
  writeFileSync(join(dir, 'secret'), 'file secret\n');
  t.same(
    oauthSettingsOf(
      { ...OAUTH, introspection: { clientId: 'c', clientSecretFile: 'secret', endpoint: 'https://issuer.example/i' } },
      WHERE,
      dir,
    ).introspection,
    { clientId: 'c', clientSecret: 'file secret', endpoint: 'https://issuer.example/i' },
  );
});

t.test('an empty secret refuses the start, saying where it should be', async (t) => {
  const refused = (introspection: Record<string, string>, what: string) => {
    try {
      oauthSettingsOf({ ...OAUTH, introspection: { clientId: 'mcp-host', ...introspection } }, WHERE, dir);
      t.fail('accepted');
    } catch (error) {
      t.ok(error instanceof HostError);
      t.same(
        { where: (error as HostError).where, what: (error as HostError).what, fix: (error as HostError).fix },
        {
          where: WHERE,
          what,
          fix: 'put the secret of client mcp-host at https://issuer.example there, or remove http.oauth.introspection if every token is a JWT.',
        },
      );
    }
  };
  refused(
    { clientSecretEnv: 'MCP_HOST_TEST_INTROSPECTION_UNSET' },
    'the introspection client secret is empty: MCP_HOST_TEST_INTROSPECTION_UNSET is unset or empty.',
  );
  process.env.MCP_HOST_TEST_INTROSPECTION_2 = ' \n';
  refused(
    { clientSecretEnv: 'MCP_HOST_TEST_INTROSPECTION_2' },
    'the introspection client secret is empty: MCP_HOST_TEST_INTROSPECTION_2 is unset or empty.',
  );
  writeFileSync(join(dir, 'empty'), '\n');
  refused({ clientSecretFile: 'empty' }, 'the introspection client secret is empty: the file empty holds nothing.');
  try {
    oauthSettingsOf({ ...OAUTH, introspection: { clientId: 'c', clientSecretFile: 'missing' } }, WHERE, dir);
    t.fail('accepted');
  } catch (error) {
    t.match(
      (error as HostError).what,
      `cannot read the introspection client secret (http.oauth.introspection.clientSecretFile) from ${join(dir, 'missing')}`,
    );
  }
});
