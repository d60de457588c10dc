// Bearer-token auth (host/serve/http-auth.ts) in-process: each way the
// tokens could leave the endpoint weaker than meant is refused with its
// message; the gate accepts exactly the tokens, naming which one.
// test/http-security.test.ts starts hosts for the same; this file is quick
// enough for `npm run mutation`. Each case reads its own variable: the host
// withholds a variable from then on (secret-env.ts), remembering it as read.
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import type { HttpAuthConfig } from '../../host/config/types.js';
import { tokenId } from '../../host/config/token-names.js';
import { HostError } from '../../host/errors.js';
import { MIN_TOKEN_LENGTH, bearerGate, bearerTokensOf, tokensFromEnv } from '../../host/serve/http-auth.js';
import { TOKENS_ENV } from '../../host/secret-env.js';

const LOOPBACK = { host: '127.0.0.1', loopback: true };
const ANYWHERE = { host: '0.0.0.0', loopback: false };
const WHERE = 'mcp-host.config.js: http.auth';
const dir = mkdtempSync(join(tmpdir(), 'mcp-host-http-auth-'));
const GOOD = 'a-token-of-16-ch';
let variables = 0;

/** A fresh variable holding `value` (unset when undefined), for `tokensEnv`. */
function variable(value?: string): string {
  const name = `MCP_HOST_TEST_TOKENS_${++variables}`;
  if (value !== undefined) process.env[name] = value;
  return name;
}

function refusal(t: Test, run: () => unknown, what: string, fix: string): void {
  try {
    run();
    t.fail('accepted');
  } catch (error) {
    t.ok(error instanceof HostError, 'a HostError');
    t.same(
      { where: (error as HostError).where, what: (error as HostError).what, fix: (error as HostError).fix },
      { where: WHERE, what, fix },
    );
  }
}
const MAKE = 'make one with `openssl rand -hex 32`';

t.test('bearerTokensOf: the tokens, and where they came from', async (t) => {
  t.equal(MIN_TOKEN_LENGTH, 16);
  const env = variable(` ${GOOD}, ,b-token-of-16-ch\n`);
  const file = join(dir, 'tokens');
  writeFileSync(file, `ci:c-token-of-16-ch\n\n d-token-of-16-ch \n`);
  t.same(
    bearerTokensOf({ tokens: ['alice:e-token-of-16-ch'], tokensFile: 'tokens', tokensEnv: env }, LOOPBACK, WHERE, dir),
    {
      tokens: ['alice:e-token-of-16-ch', 'ci:c-token-of-16-ch', 'd-token-of-16-ch', GOOD, 'b-token-of-16-ch'],
      source: `http.auth.tokens and http.auth.tokensFile and ${env}`,
    },
  );
  t.equal(process.env[env], undefined, 'the variable is withheld once read');
  t.same(tokensFromEnv(env), [GOOD, 'b-token-of-16-ch'], 'and still read by the host');
  t.same(bearerTokensOf({ tokensEnv: variable(GOOD) }, ANYWHERE, WHERE, dir).tokens, [GOOD]);
  const only = variable(GOOD);
  t.same(bearerTokensOf({ tokensEnv: only }, ANYWHERE, WHERE, dir), { tokens: [GOOD], source: only });
  t.same(
    bearerTokensOf({ tokens: [GOOD], tokensEnv: variable() }, ANYWHERE, WHERE, dir).source,
    `http.auth.tokens and MCP_HOST_TEST_TOKENS_${variables}`,
  );
  t.same(
    bearerTokensOf({ tokens: [], tokensEnv: variable(GOOD) }, ANYWHERE, WHERE, dir).source,
    `MCP_HOST_TEST_TOKENS_${variables}`,
    'an empty list is no source',
  );
  t.same(bearerTokensOf(undefined, LOOPBACK, WHERE, dir), { tokens: [], source: TOKENS_ENV }, 'no auth on loopback');
  t.same(bearerTokensOf('none', ANYWHERE, WHERE, dir), { tokens: [], source: TOKENS_ENV }, "'none' anywhere");
  t.same(
    bearerTokensOf({ tokens: [`x:${GOOD}`] }, ANYWHERE, WHERE, dir).tokens,
    [`x:${GOOD}`],
    'a name is not part of the length',
  );
});

t.test('bearerTokensOf: each weaker endpoint refused, saying why and the fix', async (t) => {
  // 'none' with MCP_HOST_HTTP_TOKENS set is http-security.test's: this process reads that variable once, unset.
  const empty = variable(' , ');
  refusal(
    t,
    () => bearerTokensOf({ tokensEnv: empty }, LOOPBACK, WHERE, dir),
    `${empty} is set but holds no token (it is empty or only commas and spaces), so the endpoint would be served open.`,
    `put one or more comma-separated tokens in ${empty} (${MAKE}), or unset it.`,
  );
  const blank = variable('');
  refusal(
    t,
    () => bearerTokensOf({ tokensEnv: blank, tokens: [GOOD] }, LOOPBACK, WHERE, dir),
    `${blank} is set but holds no token (it is empty or only commas and spaces), so the endpoint would be served open.`,
    `put one or more comma-separated tokens in ${blank} (${MAKE}), or unset it.`,
  );
  const short = variable();
  refusal(
    t,
    () => bearerTokensOf({ tokens: [GOOD, `ci:${GOOD.slice(1)}`], tokensEnv: short }, LOOPBACK, WHERE, dir),
    `a token in http.auth.tokens and ${short} is shorter than 16 characters, short enough to guess.`,
    `use tokens of at least 16 characters (${MAKE}).`,
  );
  const none = variable();
  refusal(
    t,
    () => bearerTokensOf({ tokens: [], tokensEnv: none }, LOOPBACK, WHERE, dir),
    `asks for bearer-token auth, but there is no token: http.auth.tokens is empty and ${none} is unset or empty.`,
    `set ${none} to one or more comma-separated tokens in the host's environment, or name a file holding them in http.auth.tokensFile.`,
  );
  const unset = variable();
  refusal(
    t,
    () => bearerTokensOf({ tokensEnv: unset }, ANYWHERE, WHERE, dir),
    `asks for bearer-token auth, but there is no token: ${unset} is unset or empty.`,
    `set ${unset} to one or more comma-separated tokens in the host's environment, or name a file holding them in http.auth.tokensFile.`,
  );
  refusal(
    t,
    () => bearerTokensOf(undefined, ANYWHERE, WHERE, dir),
    'the endpoint would be bound to 0.0.0.0, reachable beyond this machine, with no auth.',
    `set ${TOKENS_ENV} to a token (${MAKE}), or set http.auth: 'none' in the config if an authenticating proxy guards it, or bind 127.0.0.1.`,
  );
  writeFileSync(join(dir, 'empty'), ' ,\n\n');
  refusal(
    t,
    () => bearerTokensOf({ tokensFile: 'empty', tokensEnv: variable() } as HttpAuthConfig, LOOPBACK, WHERE, dir),
    `http.auth.tokensFile ${join(dir, 'empty')} holds no token (it is empty or only commas, spaces and line ends), so the endpoint would be served open.`,
    `put one or more tokens in it, one a line (${MAKE}), or remove tokensFile.`,
  );
});

t.test('bearerTokensOf: a tokens file that cannot be read is named', async (t) => {
  try {
    bearerTokensOf({ tokensFile: 'missing', tokensEnv: variable() }, LOOPBACK, WHERE, dir);
    t.fail('accepted');
  } catch (error) {
    t.match((error as HostError).what, `cannot read bearer tokens (http.auth.tokensFile) from ${join(dir, 'missing')}`);
  }
});

t.test('bearerGate: exactly the tokens, each by its name; anything else a 401 challenge', async (t) => {
  const gate = bearerGate(['alice:' + GOOD, 'b-token-of-16-ch'], 'the source');
  const ask = (authorization?: string) => gate({ headers: { authorization } } as IncomingMessage);
  const alice = await ask(`Bearer ${GOOD}`);
  t.ok('authInfo' in alice);
  if ('authInfo' in alice) {
    t.equal(alice.authInfo.clientId, tokenId(GOOD));
    t.equal(alice.authInfo.token, GOOD);
    t.equal(alice.authInfo.expiresAt, Number.MAX_SAFE_INTEGER);
    t.same(alice.authInfo.scopes, []);
    t.same(alice.authInfo.extra, {
      identity: { kind: 'token', name: 'alice', tokenName: 'alice', claims: {}, scopes: [] },
    });
  }
  const other = await ask('Bearer b-token-of-16-ch');
  t.equal('authInfo' in other && other.authInfo.clientId, tokenId('b-token-of-16-ch'));
  t.equal(
    'authInfo' in other && (other.authInfo.extra as { identity: { name: string } }).identity.name,
    tokenId('b-token-of-16-ch'),
  );
  const twice = await bearerGate([GOOD, `second:${GOOD}`])({
    headers: { authorization: `Bearer ${GOOD}` },
  } as IncomingMessage);
  t.equal(
    'authInfo' in twice && (twice.authInfo.extra as { identity: { name: string } }).identity.name,
    tokenId(GOOD),
    'the first that matches',
  );
  for (const authorization of [`Bearer ${GOOD}x`, `Bearer alice:${GOOD}`, 'Bearer ' + GOOD.slice(1), undefined]) {
    const answer = await ask(authorization);
    t.ok('challenge' in answer, String(authorization));
    if ('challenge' in answer) t.equal(answer.challenge.status, 401);
  }
  const wrong = await ask('Bearer wrong-token-0123456789');
  const challenge = 'challenge' in wrong ? (wrong.challenge.headers.get('www-authenticate') ?? '') : '';
  t.match(challenge, 'invalid_token');
  t.match(challenge, 'the bearer token is not one this mcp-host accepts (its tokens come from the source)');
  const byDefault = await bearerGate([GOOD])({
    headers: { authorization: 'Bearer wrong-token-0123456789' },
  } as IncomingMessage);
  t.match(
    'challenge' in byDefault ? byDefault.challenge.headers.get('www-authenticate') : '',
    `its tokens come from ${TOKENS_ENV}`,
  );
});
