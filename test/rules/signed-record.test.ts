// Sealed Redis records (host/cluster/signed-record.ts), in-process: a record
// opens only under its key name, before its expiry, with the cluster's key;
// each refusal says why. test/cluster-trust.test.ts tampers with them in Redis.
import t from 'tap';
import { RecordSeal, recordSealOf } from '../../host/cluster/signed-record.js';

const seal = recordSealOf('a cluster secret of enough length', 'c1');
const later = () => Date.now() + 60_000;

t.test('a sealed record opens where it was sealed, value and expiry intact', async (t) => {
  const expiresAt = later();
  const record = seal.seal('mcp-host:c1:owner:s1', 'a.value.with.dots', expiresAt);
  t.match(record, new RegExp(`^${expiresAt}\\.[A-Za-z0-9_-]{43}\\.a\\.value\\.with\\.dots$`));
  t.same(seal.open('mcp-host:c1:owner:s1', record), { value: 'a.value.with.dots', expiresAt });
  t.same(seal.open('k', seal.seal('k', '', expiresAt)), { value: '', expiresAt }, 'an empty value');
});

t.test('a record is refused, saying why', async (t) => {
  const notSealed = { refused: 'it is not a sealed record' };
  const badMac = { refused: 'its signature does not match this cluster’s key for that key name' };
  const record = seal.seal('k1', 'v', later());
  const [expires, mac] = record.split('.') as [string, string];
  t.same(seal.open('k1', 'plain'), notSealed, 'no dot');
  t.same(seal.open('k1', `${expires}.${mac}`), notSealed, 'one dot');
  t.same(seal.open('k1', 'x.y'), notSealed, 'one dot, short');
  t.same(
    seal.open('k1', `.${mac}.v`),
    { refused: 'its signature does not match this cluster’s key for that key name' },
    'no expiry: sealed in form, not by this key',
  );
  t.same(seal.open('k2', record), badMac, 'moved to another key');
  t.same(seal.open('k1', `${expires}.${mac}.w`), badMac, 'another value');
  t.same(seal.open('k1', `${Number(expires) + 1}.${mac}.v`), badMac, 'another expiry');
  t.same(seal.open('k1', `${expires}.${mac.slice(1)}.v`), badMac, 'a MAC of another length');
  t.same(seal.open('k1', `${expires}.${mac.slice(1)}A.v`), badMac, 'a MAC of the same length');
  t.same(recordSealOf('another secret of enough length', 'c1').open('k1', record), badMac, 'another secret');
  t.same(recordSealOf('a cluster secret of enough length', 'c2').open('k1', record), badMac, 'another cluster');
  t.same(new RecordSeal(Buffer.alloc(32)).open('k1', record), badMac, 'a seal with another key');
  const expired = { refused: 'it expired (an old record written again)' };
  t.same(seal.open('k1', seal.seal('k1', 'v', Date.now() - 1)), expired, 'expired');
  t.same(seal.open('k1', seal.seal('k1', 'v', Date.now())), expired, 'expiring now');
  t.same(seal.open('k1', seal.seal('k1', 'v', Number.NaN)), expired, 'no expiry is no time left');
});

t.test('every replica seals a record alike, whatever its version', async (t) => {
  // A known answer: a replica that sealed otherwise could not read the others' records in a rolling upgrade.
  t.equal(seal.seal('k', 'v', 1_800_000_000_000), '1800000000000.sHsDfjWXHSvGX8-CxrCT9FFamJl49OUETLLaW3nXZYM.v');
});
