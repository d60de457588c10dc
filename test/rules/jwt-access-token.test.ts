// JWT access tokens (host/serve/jwt-access-token.ts) verified in-process
// against a real OpenID provider's JWKS on loopback: each refusal with its
// message, and a verified token taken as verified only until its `exp` (the
// clock held at that millisecond by replacing Date.now).
// test/oauth-verification.test.ts sends the same tokens to a host; this file
// is quick enough for `npm run mutation`.
import t from 'tap';
import { OAuthError, OAuthErrorCode } from '@modelcontextprotocol/server';
import {
  JWKS_REFETCH_COOLDOWN_MS,
  VERIFIED_TOKENS_KEPT,
  jwtVerifier,
  type JwtRequirements,
} from '../../host/serve/jwt-access-token.js';
import { startOpenIdProvider } from '../helpers/openid-provider.js';
import { until } from '../helpers/host.js';

const AUDIENCE = 'https://host.example/mcp';
const now = () => Math.floor(Date.now() / 1000);

/** `call` made with Date.now() answering `time`: the verifier reads the clock for its kept tokens before it first awaits. */
function heldAt<R>(time: number, call: () => R): R {
  const realNow = Date.now;
  Date.now = () => time;
  try {
    return call();
  } finally {
    Date.now = realNow;
  }
}

t.test('JWT access tokens', async (t) => {
  const idp = await startOpenIdProvider(t);
  const required: JwtRequirements = {
    issuer: idp.issuer,
    audience: AUDIENCE,
    algorithms: ['RS256'],
    clockSkewSeconds: 0,
  };
  const verify = jwtVerifier(idp.jwksUri, required);
  const claims = { iss: idp.issuer, aud: AUDIENCE, sub: 'alice', exp: now() + 300 };

  /** The OAuthError `token` is refused with, by `verifier`. */
  const refusal = async (token: string, verifier = verify): Promise<OAuthError> => {
    const error = await verifier(token).then(
      () => undefined,
      (error: unknown) => error,
    );
    t.ok(error instanceof OAuthError, 'refused with an OAuthError');
    return error as OAuthError;
  };
  const refused = async (token: string, message: string) => {
    const error = await refusal(token);
    t.equal(error.code, OAuthErrorCode.InvalidToken, message);
    t.equal(error.message, `the access token was refused: ${message}`);
  };

  await t.test('a good token: its claims, verified once', async (t) => {
    const token = await idp.sign(claims);
    t.match(await verify(token), claims);
    t.match(await verify(token), claims);
    t.equal(idp.jwksFetches(), 1, 'the JWKS fetched once');
  });

  await t.test('refusals, each saying why and the fix', async () => {
    await refused(
      await idp.sign({ ...claims, exp: now() - 10 }),
      'it has expired (its "exp" is past); get a new token from the authorization server',
    );
    await refused(
      await idp.sign({ ...claims, aud: 'https://other.example/mcp' }),
      `it was not issued for this resource (its "aud" is not ${AUDIENCE}); get a token for the resource ${AUDIENCE} (the "resource" parameter of the token request)`,
    );
    await refused(
      await idp.sign({ ...claims, iss: 'https://evil.example' }),
      `it was not issued by ${idp.issuer} (its "iss" differs); get a token from ${idp.issuer}, the issuer this mcp-host trusts`,
    );
    await refused(
      await idp.sign({ ...claims, nbf: now() + 300 }),
      'it is not valid yet (its "nbf" is in the future); use it once it is valid',
    );
    await refused(
      await idp.sign({ ...claims, exp: undefined }),
      'its "exp" claim is missing; get a token from the authorization server',
    );
    const token = await idp.sign(claims);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: 'root' })).toString('base64url');
    await refused(
      `${header}.${forged}.${signature}`,
      `its signature does not verify with any key ${idp.issuer} publishes; get a token from ${idp.issuer}`,
    );
    await refused(
      `${header}.${payload}`,
      'it is not a well-formed signed JWT (Invalid Compact JWS); send the access token the authorization server issued',
    );
    const strict = jwtVerifier(idp.jwksUri, { ...required, algorithms: ['ES256', 'PS256'] });
    const error = await refusal(token, strict);
    t.equal(error.code, OAuthErrorCode.InvalidToken);
    t.equal(
      error.message,
      'the access token was refused: it is signed with an algorithm this mcp-host does not accept (it accepts ES256, PS256; never "none"); get a token signed by the authorization server with one of them',
    );
  });

  await t.test('a key the issuer does not publish', async () => {
    const other = await startOpenIdProvider(t);
    await refused(
      await other.sign(claims),
      `its signature does not verify with any key ${idp.issuer} publishes; get a token from ${idp.issuer}`,
    );
  });

  await t.test('signing keys that cannot be had: server_error, naming where', async (t) => {
    const token = await idp.sign(claims);
    const cases: [string, string][] = [
      [`${idp.issuer}/no-such-jwks`, 'Expected 200 OK from the JSON Web Key Set HTTP response'],
      [`${idp.issuer}/.well-known/openid-configuration`, 'JSON Web Key Set malformed'],
      ['http://127.0.0.1:1/jwks', 'fetch failed'],
    ];
    for (const [jwksUri, why] of cases) {
      const error = await refusal(token, jwtVerifier(jwksUri, required));
      t.equal(error.code, OAuthErrorCode.ServerError, jwksUri);
      t.equal(
        error.message,
        `mcp-host could not fetch the signing keys of ${idp.issuer} from ${jwksUri} (${why}); retry later`,
      );
    }
  });

  await t.test('a verified token is taken as verified until its exp and the skew, not after', async (t) => {
    for (const clockSkewSeconds of [0, 1]) {
      const verifier = jwtVerifier(idp.jwksUri, { ...required, clockSkewSeconds });
      const exp = now() + 1;
      const token = await idp.sign({ ...claims, exp });
      t.equal((await verifier(token)).exp, exp);
      const untilMs = (exp + clockSkewSeconds) * 1000;
      await until('the token to expire', () => Date.now() >= untilMs);
      // Past its exp and the skew now: verified again, it is refused. With Date.now held at its last kept
      // millisecond it is answered from what was kept; held at its end, it is verified again (jose's clock is
      // new Date(), the real time, past the exp).
      t.equal(
        (await heldAt(untilMs - 1, () => verifier(token))).exp,
        exp,
        `kept to its last millisecond, skew ${clockSkewSeconds}`,
      );
      const error = await refusal(token, (token) => heldAt(untilMs, () => verifier(token)));
      t.equal(
        error.message,
        'the access token was refused: it has expired (its "exp" is past); get a new token from the authorization server',
        `not kept at its end, skew ${clockSkewSeconds}`,
      );
    }
  });

  await t.test('verified tokens kept: used while kept though their key is retired, the oldest forgotten', async (t) => {
    t.equal(VERIFIED_TOKENS_KEPT, 5_000, 'the bound, as documented');
    // Keys of its own, retired below. A kept token is taken as verified without its key; a forgotten one is
    // verified again, against keys that no longer hold it: what the cache keeps shows in what is answered.
    const rotating = await startOpenIdProvider(t);
    // A skew of 30 s: a token is kept until its exp and the skew, not its exp alone (f, past its exp when checked).
    const skew = 30;
    const verifier = jwtVerifier(rotating.jwksUri, { ...required, issuer: rotating.issuer, clockSkewSeconds: skew }, 2);
    const signed = (sub: string, exp = now() + 300) => rotating.sign({ ...claims, iss: rotating.issuer, sub, exp });
    const a = await signed('a');
    const f = await signed('f', now() + 1);
    t.equal((await verifier(a)).sub, 'a');
    const fetched = Date.now();
    t.equal((await verifier(f)).sub, 'f');
    const eExp = now() - skew + 3;
    const e = await signed('e', eExp);
    t.equal((await verifier(e)).sub, 'e', 'a third token kept: a, the oldest, is forgotten');
    await rotating.rotateKeys({ retireOld: true });
    const d = await signed('d');
    await until(
      'e to expire and the JWKS to be fetchable again',
      () => Date.now() >= (eExp + skew) * 1000 && Date.now() > fetched + JWKS_REFETCH_COOLDOWN_MS + 100,
    );
    const expired = await refusal(e, verifier);
    t.equal(
      expired.message,
      'the access token was refused: it has expired (its "exp" is past); get a new token from the authorization server',
    );
    t.equal((await verifier(d)).sub, 'd', 'a token of the new key: the JWKS fetched again, past the cooldown');
    t.equal(rotating.jwksFetches(), 2);
    t.equal((await verifier(f)).sub, 'f', 'f kept (e, expired, was dropped, not f): taken as verified');
    const forgotten = await refusal(a, verifier);
    t.equal(
      forgotten.message,
      `the access token was refused: its signature does not verify with any key ${rotating.issuer} publishes; get a token from ${rotating.issuer}`,
      'a was forgotten: verified again, and its key is retired',
    );
  });
});
