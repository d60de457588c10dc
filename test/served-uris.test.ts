// How a prefixed mount's ui:// and skill:// URIs are served under its prefix
// (host/vocabulary/served-uris.ts), on the spellings and shapes the end-to-end
// tests (mcp-apps.test.ts, skills.test.ts) do not reach: other schemes, flat
// mounts, dot segments, queries, `resources: "dynamic"` skills and malformed
// items passed on as they came.
import t from 'tap';
import {
  ownUri,
  prefixOf,
  servedSkill,
  servedTool,
  servedUri,
  servedUriField,
  servedUrisIn,
} from '../host/vocabulary/served-uris.js';

t.test('servedUri and ownUri are inverse under a prefix, and leave everything else alone', async (t) => {
  for (const own of [
    'ui://widget',
    'UI://Widget/x?y=1#z',
    'skill://pdf/SKILL.md',
    'skill://acme/pdf/references/F.md',
  ]) {
    const served = servedUri('w', own);
    t.not(served, own);
    t.equal(ownUri('w', served), own, `${own} round trip`);
  }
  t.equal(servedUri('w', 'file:///x'), 'file:///x', 'another scheme is never rewritten');
  t.equal(ownUri('w', 'file:///x'), 'file:///x');
  t.equal(servedUri(undefined, 'ui://widget'), 'ui://widget', 'a flat mount serves its URIs as they are');
  t.equal(ownUri(undefined, 'ui://widget'), 'ui://widget');
  t.equal(ownUri('w', 'ui://widget'), undefined, 'not under the prefix');
  t.equal(ownUri('w', 'ui://wx/widget'), undefined, 'a prefix is a whole segment');
  for (const climbing of ['ui://w/../v/x', 'ui://w/a/./b', 'ui://w/a/%2E%2e', 'skill://w/..']) {
    t.equal(ownUri('w', climbing), undefined, `${climbing} has a dot segment`);
  }
  t.equal(ownUri('w', 'ui://w/a?next=../b'), 'ui://a?next=../b', 'a query is no path');
  t.equal(prefixOf('ui://w/widget'), 'w');
  t.equal(prefixOf('skill://w?x'), 'w');
  t.equal(prefixOf('file:///x'), undefined);
});

t.test(
  'items: only URI fields of the rewritten schemes change, and anything malformed passes as it came',
  async (t) => {
    const plain = { name: 'x', _meta: { other: 1 } };
    t.equal(servedTool('w', plain), plain, 'a tool naming no UI is the same object');
    t.equal(servedTool('w', { name: 'x' }).name, 'x');
    const bad = { name: 'x', _meta: { ui: 'ui://widget', 'ui/resourceUri': 7 } };
    t.equal(servedTool('w', bad), bad);
    t.same(servedTool('w', { name: 'x', _meta: { ui: { visibility: ['app'] } } }), {
      name: 'x',
      _meta: { ui: { visibility: ['app'] } },
    });
    t.same(servedTool('w', { name: 'x', _meta: { 'ui/resourceUri': 'ui://v' } })._meta, {
      'ui/resourceUri': 'ui://w/v',
    });
    t.equal(servedTool(undefined, bad), bad);

    const template = { uriTemplate: 'file:///{x}' };
    t.equal(servedUriField('w', template, 'uriTemplate'), template);
    const nameless = { name: 'no uri' };
    t.equal(servedUriField('w', nameless, 'uri'), nameless);

    const dynamic = { uri: 'skill://pdf/SKILL.md', resources: 'dynamic' };
    t.same(servedSkill('w', dynamic), { uri: 'skill://w/pdf/SKILL.md', resources: 'dynamic' });
    t.same(servedSkill('w', { uri: 'skill://pdf/SKILL.md', resources: [null, { uri: 'skill://pdf/SKILL.md' }] }), {
      uri: 'skill://w/pdf/SKILL.md',
      resources: [null, { uri: 'skill://w/pdf/SKILL.md' }],
    });
    t.equal(servedSkill(undefined, dynamic), dynamic);

    const read = { contents: [{ uri: 'ui://v', text: '' }, 'odd'] };
    t.same(servedUrisIn('w', read, 'contents'), { contents: [{ uri: 'ui://w/v', text: '' }, 'odd'] });
    t.equal(servedUrisIn(undefined, read, 'contents'), read);
    const none = { other: 1 };
    t.equal(servedUrisIn('w', none, 'contents'), none);
  },
);
