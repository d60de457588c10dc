// A caller's token forwarded between replicas (host/cluster/token-seal.ts,
// host/cluster/peer-auth.ts): sealed for the owner under the cluster key,
// never readable in the stamp, opened only for the stamp it was sealed for.
import t from 'tap';
import { deriveKey, PeerAuth } from '../host/cluster/peer-auth.js';
import { TokenSeal } from '../host/cluster/token-seal.js';

const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.a-caller-access-token.signature';
const key = deriveKey('a-cluster-secret-for-the-seal-test-0123456789', 'seal', 'peer');

t.test('a sealed token opens only under its key, for the stamp it was sealed for', async (t) => {
  const seal = new TokenSeal(key);
  const sealed = seal.seal(TOKEN, 'nonce.owner');
  t.notMatch(sealed, 'a-caller-access-token', 'the sealed form does not show the token');
  t.notMatch(Buffer.from(sealed, 'base64url').toString(), 'a-caller-access-token');
  t.equal(seal.open(sealed, 'nonce.owner'), TOKEN);
  t.equal(seal.open(sealed, 'nonce.another-replica'), undefined, 'not for another stamp');
  t.equal(new TokenSeal(deriveKey('another-secret-0123456789', 'seal', 'peer')).open(sealed, 'nonce.owner'), undefined);
  const bytes = Buffer.from(sealed, 'base64url');
  bytes[14]! ^= 1;
  t.equal(seal.open(bytes.toString('base64url'), 'nonce.owner'), undefined, 'not once altered');
  t.equal(seal.open('c2hvcnQ', 'nonce.owner'), undefined, 'not a seal at all');
});

t.test("a stamp carries the caller's token to the owner sealed, and the owner reads it", async (t) => {
  const forwarder = new PeerAuth(key, 'replica-a');
  const owner = new PeerAuth(key, 'replica-b');
  const request = { method: 'POST', path: '/mcp', sessionId: 'session-1' };
  const identity = { kind: 'user' as const, name: 'alice', claims: { sub: 'alice' }, scopes: ['mcp'], token: TOKEN };
  const stamp = forwarder.stamp(request, '{}', 'replica-b', 'user:alice', identity);
  const [, , , , , carried] = stamp.split('.');
  t.notMatch(Buffer.from(carried!, 'base64url').toString(), 'a-caller-access-token', 'the stamp does not show it');
  t.match(owner.check(stamp, request), { clientId: 'user:alice', identity });

  const { token: _token, ...withoutToken } = identity;
  const plain = forwarder.stamp(request, '{}', 'replica-b', 'user:alice', withoutToken);
  const checked = owner.check(plain, request);
  t.same('identity' in checked && checked.identity, withoutToken, 'an identity without a token arrives without one');
});
