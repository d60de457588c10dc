/**
 * The cost of checking an OAuth access token (part of `npm run bench`): the
 * host's gate in front of `/mcp` (serve/oauth-resource-server.ts) verifying a
 * real JWT from a real OpenID provider on loopback (oidc-provider, RS256),
 * its JWKS fetched once and cached, per request: a client's every request
 * after its first (the token verified already), and a new token each time
 * (its signature checked through WebCrypto); beside them, measured in the
 * same rounds, the gate checking a static bearer token (serve/http-auth.ts),
 * the floor every authenticated request pays already.
 *
 * BENCH_ROUNDS and BENCH_CALLS scale the run.
 */
import type { IncomingMessage } from 'node:http';
import pino from 'pino';
import { OAuthResourceServer, type BearerGate } from '../host/serve/oauth-resource-server.js';
import { bearerGate } from '../host/serve/http-auth.js';
import { JWT_ALGORITHMS } from '../host/config/validate.js';
import { startOpenIdProvider } from '../test/helpers/openid-provider.js';
import { median } from './median.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
/** Issue #28's goal: JWT verification under 0.05 ms a request once the JWKS is cached. */
const GOAL_MS = 0.05;
const AUDIENCE = 'https://mcp.bench.test/mcp';
const STATIC_TOKEN = 'a-static-bench-token-0123456789';

const teardowns: (() => unknown)[] = [];
const idp = await startOpenIdProvider({ teardown: (fn) => teardowns.push(fn) });
const oauth = new OAuthResourceServer(
  { issuer: idp.issuer, audience: AUDIENCE, scopes: ['mcp'], algorithms: JWT_ALGORITHMS, clockSkewSeconds: 30 },
  pino({ level: 'silent' }),
);
const token = await idp.token('alice-agent', { scope: 'mcp', resource: AUDIENCE });
const asRequest = (bearer: string) => ({ headers: { authorization: `Bearer ${bearer}` } }) as IncomingMessage;
/** Tokens never seen by the gate, one per check of every round, each signed by the provider's key. */
const now = Math.floor(Date.now() / 1000);
const fresh: IncomingMessage[] = [];
for (let i = 0; i < (ROUNDS + 2) * CALLS; i++) {
  const claims = {
    iss: idp.issuer,
    aud: AUDIENCE,
    sub: 'alice-agent',
    scope: 'mcp',
    iat: now,
    exp: now + 600,
    jti: `t${i}`,
  };
  fresh.push(asRequest(await idp.sign(claims)));
}
const gate = oauth.gate();
const gates: Record<string, { gate: BearerGate; request: () => IncomingMessage }> = {
  'JWT (RS256), JWKS cached': { gate, request: () => asRequest(token) },
  'JWT (RS256), a new token': { gate, request: () => fresh.pop()! },
  'static token': { gate: bearerGate([STATIC_TOKEN]), request: () => asRequest(STATIC_TOKEN) },
};

/** µs per check over CALLS sequential checks; throws if one is refused (a refusal would flatter the figure). */
async function perCheck({ gate, request }: { gate: BearerGate; request: () => IncomingMessage }): Promise<number> {
  const requests = Array.from({ length: CALLS }, request);
  const started = process.hrtime.bigint();
  for (const each of requests) {
    const verdict = await gate(each);
    if ('challenge' in verdict) throw new Error(`refused: ${await verdict.challenge.text()}`);
  }
  return Number(process.hrtime.bigint() - started) / 1e3 / CALLS;
}

console.log(`OAuth: ${ROUNDS} alternating rounds of ${CALLS} sequential checks of a request's bearer token, per check`);
// The first check fetches the issuer's metadata and JWKS; the warm-up rounds leave only the cached path.
for (const subject of Object.values(gates)) for (let i = 0; i < 2; i++) await perCheck(subject);
const rounds = Object.fromEntries(Object.keys(gates).map((name) => [name, [] as number[]]));
const entries = Object.entries(gates);
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < entries.length; i++) {
    const [name, subject] = entries[(round + i) % entries.length]!;
    rounds[name]!.push(await perCheck(subject));
  }
}
const jwt = median(rounds['JWT (RS256), JWKS cached']!) / 1000;
const floor = median(rounds['static token']!) / 1000;
console.log(
  `  ${'JWT (RS256), JWKS cached'.padEnd(28)} ${jwt.toFixed(4)} ms   goal < ${GOAL_MS} ms ${jwt < GOAL_MS ? 'met' : 'NOT met'}   ${(jwt / floor).toFixed(1)}x static token`,
);
const first = median(rounds['JWT (RS256), a new token']!) / 1000;
console.log(
  `  ${'JWT (RS256), a new token'.padEnd(28)} ${first.toFixed(4)} ms   no goal: a client's first request, its signature checked   ${(first / floor).toFixed(1)}x static token`,
);
console.log(`  ${'static token'.padEnd(28)} ${floor.toFixed(4)} ms   no goal: the floor, for context`);
console.log(`  JWKS fetches: ${idp.jwksFetches()} (1: cached after the first)`);
for (const teardown of teardowns) await teardown();
