// A forwarded request's stamp (host/cluster/peer-auth.ts), made and checked
// in-process: bound to the request, the target replica, the body and a time
// window, used once; each refusal says why. The clock is Date.now, set by the
// test. test/forwarding-stamp.test.ts and test/cluster-trust.test.ts forward
// through replicas; this file is quick enough for `npm run mutation`.
import t from 'tap';
import { hkdfSync } from 'node:crypto';
import { PeerAuth, STAMP_WINDOW_MS, bodyDigest, deriveKey } from '../../host/cluster/peer-auth.js';
import { TokenSeal } from '../../host/cluster/token-seal.js';
import type { PeerStamp, StampedRequest } from '../../host/sinks/cluster.js';
import type { Identity } from '../../host/vocabulary/identity.js';

const KEY = deriveKey('a cluster secret of enough length', 'c1', 'peers');
const REQUEST: StampedRequest = { method: 'POST', path: '/mcp', sessionId: 's1' };
const ALICE: Identity = { kind: 'user', name: 'alice', claims: { sub: 'alice' }, scopes: ['mcp'], token: 'the token' };
const T = 1_800_000_000_000;

/** Run `body` with Date.now() answering `at`. */
function at<R>(time: number, body: () => R): R {
  const realNow = Date.now;
  Date.now = () => time;
  try {
    return body();
  } finally {
    Date.now = realNow;
  }
}

t.test('a stamp checks out at its target: who, from where, when, and the body it was made for', async (t) => {
  const a = new PeerAuth(KEY, 'replica-a');
  const b = new PeerAuth(KEY, 'replica-b');
  const value = at(T, () => a.stamp(REQUEST, '{"x":1}', 'replica-b', 'alice-agent', ALICE));
  const stamp = at(T, () => b.check(value, REQUEST)) as PeerStamp;
  t.same(stamp, {
    clientId: 'alice-agent',
    identity: ALICE,
    from: 'replica-a',
    nonce: value.split('.')[2],
    sentAt: T,
    bodyDigest: bodyDigest('{"x":1}'),
  });
  t.match(value, /^3\./, 'the stamp format version: replicas of another format refuse it');
  t.notOk(value.includes(Buffer.from('the token').toString('base64url')), 'the token travels sealed');
  const [, , nonce, , , carried] = value.split('.') as string[];
  const [, , sealed] = JSON.parse(Buffer.from(carried!, 'base64url').toString()) as [string, Identity, string];
  const tokens = new TokenSeal(Buffer.from(hkdfSync('sha256', KEY, '', 'mcp-host callerTokens', 32)));
  t.equal(
    tokens.open(sealed, `${nonce}.replica-b`),
    'the token',
    'sealed under the callers-tokens key, for this stamp',
  );
  const payload = (stamp: string) => JSON.parse(Buffer.from(stamp.split('.')[5]!, 'base64url').toString()) as unknown;
  t.notMatch(Buffer.from(value.split('.')[5]!, 'base64url').toString(), 'the token');
  const anonymous = at(T, () => b.check(a.stamp(REQUEST, '', 'replica-b', undefined), REQUEST)) as PeerStamp;
  t.equal(anonymous.clientId, undefined, 'no client');
  t.notOk('identity' in anonymous, 'no identity');
  const { token: _token, ...tokenless } = ALICE;
  const withoutToken = at(T, () => b.check(a.stamp(REQUEST, '', 'replica-b', 'c', tokenless), REQUEST)) as PeerStamp;
  t.same(withoutToken.identity, tokenless, 'an identity without a token gets none');
  t.notOk('token' in withoutToken.identity!, 'not even an undefined one');
  t.same(payload(at(T, () => a.stamp(REQUEST, '', 'replica-b', 'c', tokenless))), ['c', tokenless], 'nothing sealed');
  t.same(payload(at(T, () => a.stamp(REQUEST, '', 'replica-b', undefined))), [''], 'no client, no identity');
  const noClient = at(T, () => b.check(a.stamp(REQUEST, '', 'replica-b', undefined, tokenless), REQUEST)) as PeerStamp;
  t.equal(noClient.clientId, undefined, 'an identity without a client');
  const noSession = at(T, () =>
    b.check(a.stamp({ ...REQUEST, sessionId: undefined }, '', 'replica-b', 'c'), { ...REQUEST, sessionId: undefined }),
  ) as PeerStamp;
  t.equal(noSession.from, 'replica-a', 'a request without a session');
});

t.test('a stamp is refused, saying why', async (t) => {
  const a = new PeerAuth(KEY, 'replica-a');
  const b = new PeerAuth(KEY, 'replica-b');
  const value = at(T, () => a.stamp(REQUEST, 'body', 'replica-b', 'alice-agent', ALICE));
  const check = (stamp: string, request = REQUEST, by = b, time = T) => at(time, () => by.check(stamp, request));
  const notAStamp = { refused: 'it is not a stamp this version makes' };
  t.same(check('', REQUEST), notAStamp);
  t.same(check(value.split('.').slice(1).join('.')), notAStamp, 'a field short');
  t.same(check(`${value}.x`), notAStamp, 'a field more');
  t.same(check(`2${value.slice(1)}`), notAStamp, 'another version');
  const badMac = {
    refused:
      'its signature does not match this request (its method, path, session and body) under this cluster’s key (or MCP_HOST_CLUSTER_SECRET differs)',
  };
  t.same(check(value, { ...REQUEST, method: 'GET' }), badMac, 'another method');
  t.same(check(value, { ...REQUEST, path: '/mcp?x' }), badMac, 'another path');
  t.same(check(value, { ...REQUEST, sessionId: 's2' }), badMac, 'another session');
  t.same(check(value, { ...REQUEST, sessionId: undefined }), badMac, 'no session');
  t.same(check(value.replace('replica-a', 'replica-c')), badMac, 'another sender');
  t.same(check(value.slice(0, -1)), badMac, 'a MAC a character short');
  const fields = value.split('.');
  const moved = [...fields.slice(0, 2), fields[2]!.slice(0, -1), fields[2]!.slice(-1) + fields[3], ...fields.slice(4)];
  t.same(check(moved.join('.')), badMac, "a field boundary moved (the nonce's last character to the sender)");
  t.same(check(`${value.slice(0, -1)}${value.endsWith('A') ? 'B' : 'A'}`), badMac, 'another MAC');
  const other = new PeerAuth(deriveKey('another secret of enough length', 'c1', 'peers'), 'replica-b');
  t.same(check(value, REQUEST, other), badMac, 'another key');
  t.same(check(value, REQUEST, new PeerAuth(KEY, 'replica-c')), { refused: 'it was stamped for another replica' });
  const stale = {
    refused: `it was stamped more than 5 s away from this replica's clock (a replay, or clocks out of step)`,
  };
  t.equal(STAMP_WINDOW_MS, 5_000);
  t.equal((check(value, REQUEST, b, T + 5_000) as PeerStamp).sentAt, T, 'the window is inclusive');
  t.equal((check(value, REQUEST, b, T - 5_000) as PeerStamp).sentAt, T);
  t.same(check(value, REQUEST, b, T + 5_001), stale, 'too late');
  t.same(check(value, REQUEST, b, T - 5_001), stale, 'from the future');
});

t.test('a stamp is used once, for its body; a used nonce is forgotten after twice the window', async (t) => {
  const a = new PeerAuth(KEY, 'replica-a');
  const b = new PeerAuth(KEY, 'replica-b');
  const first = at(T, () => b.check(a.stamp(REQUEST, 'body', 'replica-b', 'c'), REQUEST)) as PeerStamp;
  const second = at(T, () => b.check(a.stamp(REQUEST, 'body', 'replica-b', 'c'), REQUEST)) as PeerStamp;
  t.not(first.nonce, second.nonce, 'each stamp has its own nonce');
  t.equal(
    at(T, () => b.consume(first, 'other')),
    'the body is not the one it was stamped for',
  );
  t.equal(
    at(T, () => b.consume({ ...first, bodyDigest: first.bodyDigest.slice(1) }, 'body')),
    'the body is not the one it was stamped for',
    'a digest of another length',
  );
  t.equal(
    at(T, () => b.consume(first, 'body')),
    undefined,
  );
  t.equal(
    at(T, () => b.consume(first, 'body')),
    'it was used already (a replay)',
  );
  t.equal(
    at(T + 1, () => b.consume(second, 'body')),
    undefined,
    'another stamp is not a replay',
  );
  t.equal(
    at(T + 9_999, () => b.consume(first, 'body')),
    'it was used already (a replay)',
    'kept for the window',
  );
  t.equal(
    at(T + 10_000, () => b.consume(first, 'body')),
    undefined,
    'forgotten after twice the window',
  );
  t.equal(
    at(T + 10_000, () => b.consume(second, 'body')),
    'it was used already (a replay)',
    'the next one kept',
  );
  t.equal(
    at(T + 10_001, () => b.consume(second, 'body')),
    undefined,
    'forgotten in its turn',
  );
});

t.test('every replica derives the same keys and digests, whatever its version', async (t) => {
  // Known answers: a replica that derived them otherwise could not talk to the others in a rolling upgrade.
  t.equal(
    deriveKey('a cluster secret of enough length', 'c1', 'peers').toString('hex'),
    '3a10776afcb72f2df51bb88f50a30d8842cf1f18c453b1963c472c8489214bc9',
  );
  t.not(
    deriveKey('a cluster secret of enough length', 'c1', 'records').toString('hex'),
    deriveKey('a cluster secret of enough length', 'c1', 'peers').toString('hex'),
    'one key per use',
  );
  t.equal(bodyDigest('body'), 'Iw2DWNyOiJC0xY3utikS7i8gNXrpKlzIYbmOaP4xrLU');
});
