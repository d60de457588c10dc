// Token introspection (host/serve/token-introspection.ts) against an RFC 7662
// endpoint served in this process: what the host sends, and each answer it
// refuses, with its message. test/oauth-verification.test.ts does the same
// through a host; this file is quick enough for `npm run mutation`.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { OAuthError, OAuthErrorCode } from '@modelcontextprotocol/server';
import { introspect } from '../../host/serve/token-introspection.js';

interface Seen {
  method?: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** An introspection endpoint answering `status` and `body` (JSON unless a string), recording the request. */
async function endpoint(t: Test, status: number, body: unknown): Promise<{ url: string; seen: Seen }> {
  const seen: Seen = { headers: {}, body: '' };
  const server = createServer((request, response) => {
    seen.method = request.method;
    seen.headers = request.headers;
    request.on('data', (chunk: Buffer) => (seen.body += chunk.toString()));
    request.on('end', () => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(typeof body === 'string' ? body : JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/introspect`, seen };
}

const EXPECTED = { issuer: 'https://issuer.example', audience: 'https://host.example/mcp' };
const GOOD = { active: true, iss: EXPECTED.issuer, aud: EXPECTED.audience, exp: 2_000_000_000, sub: 'alice' };
const client = (url: string) => ({ endpoint: url, clientId: 'host id', clientSecret: 's:cret' });

async function refusal(t: Test, answer: unknown, status = 200): Promise<OAuthError> {
  const { url } = await endpoint(t, status, answer);
  const error = await introspect('tok', client(url), EXPECTED).then(
    () => t.fail('introspect accepted the token'),
    (error: unknown) => error,
  );
  t.ok(error instanceof OAuthError, 'an OAuthError');
  return error as OAuthError;
}

t.test('an active token: its claims, after a POST with the client credentials', async (t) => {
  const { url, seen } = await endpoint(t, 200, GOOD);
  t.same(await introspect('the token', client(url), EXPECTED), GOOD);
  t.equal(seen.method, 'POST');
  t.equal(seen.headers.authorization, `Basic ${Buffer.from('host%20id:s%3Acret').toString('base64')}`);
  t.equal(seen.headers['content-type'], 'application/x-www-form-urlencoded');
  t.equal(seen.headers.accept, 'application/json');
  t.same(Object.fromEntries(new URLSearchParams(seen.body)), { token: 'the token', token_type_hint: 'access_token' });
});

t.test('aud as a list holding the resource; no iss', async (t) => {
  const { url } = await endpoint(t, 200, { ...GOOD, iss: undefined, aud: ['other', EXPECTED.audience] });
  t.equal((await introspect('tok', client(url), EXPECTED)).sub, 'alice');
});

t.test('refused tokens: invalid_token, saying why and what to do', async (t) => {
  const cases: [string, unknown, string][] = [
    [
      'inactive',
      { active: false },
      `the access token was refused: ${EXPECTED.issuer} says it is not active (unknown, expired or revoked); get a new token from the authorization server`,
    ],
    [
      'another issuer',
      { ...GOOD, iss: 'https://evil.example' },
      `the access token was refused: it was not issued by ${EXPECTED.issuer}; get a token from ${EXPECTED.issuer}`,
    ],
    [
      'another audience',
      { ...GOOD, aud: ['other'] },
      `the access token was refused: it was not issued for this resource (its "aud" is not ${EXPECTED.audience}); get a token for the resource ${EXPECTED.audience} (the "resource" parameter of the token request)`,
    ],
    [
      'no audience',
      { ...GOOD, aud: undefined },
      `the access token was refused: it was not issued for this resource (its "aud" is not ${EXPECTED.audience}); get a token for the resource ${EXPECTED.audience} (the "resource" parameter of the token request)`,
    ],
    [
      'no expiry',
      { ...GOOD, exp: '2000000000' },
      'the access token was refused: its introspection names no expiry ("exp"); get a token that expires from the authorization server',
    ],
  ];
  for (const [what, answer, message] of cases) {
    const error = await refusal(t, answer);
    t.equal(error.code, OAuthErrorCode.InvalidToken, what);
    t.equal(error.message, message, what);
  }
});

t.test('an endpoint that answers otherwise: server_error, naming it', async (t) => {
  const cases: [string, unknown, number][] = [
    ['an error status', GOOD, 401],
    ['not JSON', 'not json', 200],
    ['null', 'null', 200],
    ['a string', '"x"', 200],
    ['active not a boolean', { ...GOOD, active: 'true' }, 200],
  ];
  for (const [what, answer, status] of cases) {
    const { url } = await endpoint(t, status, answer);
    const error = (await introspect('tok', client(url), EXPECTED).catch((error: unknown) => error)) as OAuthError;
    t.ok(error instanceof OAuthError, what);
    t.equal(error.code, OAuthErrorCode.ServerError, what);
    t.equal(
      error.message,
      `mcp-host could not introspect the access token at ${url}: it answered ${status} without an introspection result (are http.oauth.introspection.clientId and its secret right?); retry later`,
      what,
    );
  }
});

t.test('an endpoint that cannot be reached: server_error with the reason', async (t) => {
  const { url } = await endpoint(t, 200, GOOD);
  const closed = url.replace(/:\d+\//, ':1/');
  const error = (await introspect('tok', client(closed), EXPECTED).catch((error: unknown) => error)) as OAuthError;
  t.equal(error.code, OAuthErrorCode.ServerError);
  t.match(error.message, `mcp-host could not introspect the access token at ${closed}: fetch failed; retry later`);
});
