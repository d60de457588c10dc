// The access rules (host/catalogue/access-rules.ts) called in-process: which
// rules match an identity, what they allow, the shared views, `who` as a
// message says it. test/access.test.ts drives the same rules through a host;
// this file is quick enough for `npm run mutation` to run once per mutant.
import t from 'tap';
import {
  AccessPolicy,
  accessPolicyOf,
  accessViewOf,
  describeWho,
  whoMatches,
} from '../../host/catalogue/access-rules.js';
import type { AccessRule, ResolvedConfig } from '../../host/config/types.js';
import { ANONYMOUS_IDENTITY, STDIO_IDENTITY, type Identity } from '../../host/vocabulary/identity.js';

const user = (claims: Record<string, unknown>, scopes: string[] = []): Identity => ({
  kind: 'user',
  name: String(claims.sub ?? claims.client_id),
  claims,
  scopes,
});
const token = (name: string): Identity => ({ kind: 'token', name, claims: {}, scopes: [], tokenName: name });

t.test('whoMatches: every key of who must match, and each key reads its own claim', async (t) => {
  const alice = user({ sub: 'alice', client_id: 'app', groups: ['ops', 'dev'], roles: ['admin'] }, ['read', 'write']);
  t.ok(whoMatches({}, alice), 'an empty who matches anyone');
  t.ok(whoMatches({ sub: 'alice' }, alice));
  t.notOk(whoMatches({ sub: 'bob' }, alice));
  t.notOk(whoMatches({ sub: 'app' }, user({ client_id: 'app' })), 'sub never matches a client token by its client_id');
  t.ok(whoMatches({ client_id: 'app' }, alice));
  t.notOk(whoMatches({ client_id: 'other' }, alice));
  t.ok(whoMatches({ scope: 'write' }, alice));
  t.notOk(whoMatches({ scope: 'admin' }, alice));
  t.ok(whoMatches({ groups: ['x', 'dev'] }, alice), 'any one group is enough');
  t.notOk(whoMatches({ groups: ['x'] }, alice));
  t.notOk(
    whoMatches({ groups: ['ops'] }, user({ sub: 'bob', groups: 'ops' })),
    'a groups claim that is no array holds none',
  );
  t.notOk(whoMatches({ groups: ['ops'] }, user({ sub: 'bob' })));
  t.ok(whoMatches({ roles: ['admin'] }, alice));
  t.notOk(whoMatches({ roles: ['ops'] }, alice), 'roles reads roles, not groups');
  t.notOk(whoMatches({ groups: ['admin'] }, alice), 'groups reads groups, not roles');
  t.ok(whoMatches({ sub: 'alice', scope: 'read', groups: ['ops'] }, alice));
  t.notOk(whoMatches({ sub: 'alice', scope: 'none' }, alice), 'one key that does not match is enough to fail');
  t.notOk(whoMatches({ sub: 'alice', client_id: 'x' }, alice));
  t.notOk(whoMatches({ sub: 'alice', groups: ['x'] }, alice));
  t.notOk(whoMatches({ sub: 'alice', roles: ['x'] }, alice));
  t.notOk(whoMatches({ sub: 'alice', token: 'alice' }, alice));
  t.notOk(whoMatches({ sub: 'alice', stdio: true }, alice));
  t.ok(whoMatches({ token: 'ci' }, token('ci')));
  t.notOk(whoMatches({ token: 'ci' }, token('other')));
  t.notOk(
    whoMatches({ token: 'ci' }, { ...user({ sub: 'ci' }), tokenName: 'ci' }),
    'only a static token has a token name',
  );
  t.ok(whoMatches({ stdio: true }, STDIO_IDENTITY));
  t.notOk(whoMatches({ stdio: true }, ANONYMOUS_IDENTITY));
  t.notOk(whoMatches({ stdio: true }, token('ci')));
});

const RULES: AccessRule[] = [
  { who: { token: 'alice' }, tools: ['notes.*'], resources: ['note://**'] },
  { who: { token: 'ci' }, tools: ['clock.*'], prompts: ['clock.*'] },
  { who: { stdio: true }, tools: ['*'], prompts: [], resources: ['**'] },
  { who: { token: 'ci' }, tools: ['notes.read'] },
];

t.test('AccessPolicy: matching and listing name the rules by index, in config order', async (t) => {
  const policy = new AccessPolicy(RULES);
  t.same(policy.matching(token('ci')), [
    { index: 1, rule: RULES[1] },
    { index: 3, rule: RULES[3] },
  ]);
  t.same(policy.matching(token('nobody')), []);
  t.same(policy.listing('tools', 'notes.read'), [
    { index: 0, rule: RULES[0] },
    { index: 2, rule: RULES[2] },
    { index: 3, rule: RULES[3] },
  ]);
  t.same(policy.listing('prompts', 'clock.now'), [{ index: 1, rule: RULES[1] }], 'an empty list allows nothing');
  t.same(policy.listing('resources', 'note://a'), [
    { index: 0, rule: RULES[0] },
    { index: 2, rule: RULES[2] },
  ]);
  t.same(
    policy.listing('resourceTemplates', 'note://{id}'),
    [
      { index: 0, rule: RULES[0] },
      { index: 2, rule: RULES[2] },
    ],
    'templates are judged by the resources globs',
  );
  t.same(policy.listing('prompts', 'notes.read'), [], 'a rule without a list allows none of it');
  t.same(
    policy.listing('resources', 'secret://a'),
    [{ index: 2, rule: RULES[2] }],
    'a resources list allows only what it names',
  );
});

t.test('AccessPolicy: a view allows the union of the matching rules, the first deciding', async (t) => {
  const policy = new AccessPolicy(RULES);
  const ci = policy.viewFor(token('ci'));
  t.equal(ci.key, '1,3');
  t.same(ci.decide('tools', 'clock.now'), { index: 1, rule: RULES[1] });
  t.same(ci.decide('tools', 'notes.read'), { index: 3, rule: RULES[3] });
  t.equal(ci.decide('tools', 'notes.write'), undefined);
  t.ok(ci.allows('prompts', 'clock.now'));
  t.notOk(ci.allows('tools', 'notes.write'));
  t.notOk(ci.allows('resources', 'note://a'));
  const nobody = policy.viewFor(token('nobody'));
  t.equal(nobody.key, '');
  t.notOk(nobody.allows('tools', 'clock.now'), 'an identity no rule matches sees nothing');
  t.equal(policy.viewFor(token('ci')), ci, 'identities matched by the same rules share one view');
  t.not(policy.viewFor(token('alice')), ci);
  t.equal(policy.viewFor(token('alice')).key, '0');
  const many = new AccessPolicy(
    Array.from({ length: 13 }, (_, i) => ({ who: i === 12 || i < 2 ? {} : { token: 'x' } })),
  );
  t.equal(many.viewFor(token('y')).key, '0,1,12', 'rules 1 and 2 and rule 12 are not one key');
});

t.test('accessViewOf and accessPolicyOf: none without rules, one per config', async (t) => {
  const none = { access: undefined } as unknown as ResolvedConfig;
  t.equal(accessPolicyOf(none), undefined);
  const everything = accessViewOf(none, token('anyone'));
  t.equal(everything.key, '*');
  t.ok(everything.allows('tools', 'anything'));
  t.equal(everything.decide('tools', 'anything'), undefined);
  const config = { access: RULES } as unknown as ResolvedConfig;
  const policy = accessPolicyOf(config);
  t.ok(policy instanceof AccessPolicy);
  t.equal(accessPolicyOf(config), policy, 'compiled once per config');
  t.equal(accessViewOf(config, token('ci')).key, '1,3');
  t.notOk(accessViewOf(config, token('nobody')).allows('tools', 'clock.now'));
});

t.test('describeWho: the keys as a message shows them', async (t) => {
  t.equal(describeWho({ token: 'ci' }), '{ token: "ci" }');
  t.equal(describeWho({ sub: 'a', groups: ['x', 'y'] }), '{ sub: "a", groups: ["x","y"] }');
  t.equal(describeWho({}), '{  }');
});
