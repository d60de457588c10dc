// A plugin process's Node permission flags, environment and refusals
// (host/mounts/isolation/permissions.ts), in-process. test/process-isolation.test.ts
// runs plugins under them; this file is quick enough for `npm run mutation`.
import t from 'tap';
import type { Grants } from '../../host/loader/types.js';
import {
  accessDenied,
  grantFix,
  permissionFlags,
  pluginEnvironment,
  withoutFlagHint,
} from '../../host/mounts/isolation/permissions.js';

const NONE: Grants = { read: [], write: [], env: [], net: false, childProcess: false };

t.test('permissionFlags: what the entry grants, nothing more', async (t) => {
  t.same(permissionFlags(['/plugin', '/node'], { ...NONE, read: ['/data'], write: ['/out', '/tmp/x'] }, 64), [
    '--permission',
    '--allow-fs-read=/plugin',
    '--allow-fs-read=/node',
    '--allow-fs-read=/data',
    '--allow-fs-write=/out',
    '--allow-fs-write=/tmp/x',
    '--max-old-space-size=64',
    '--disable-warning=ExperimentalWarning',
  ]);
  t.same(permissionFlags([], { ...NONE, childProcess: true }, 128), [
    '--permission',
    '--allow-child-process',
    '--max-old-space-size=128',
    '--disable-warning=ExperimentalWarning',
  ]);
});

t.test('pluginEnvironment: the variables the entry names that the host has, and nothing else', async (t) => {
  process.env.MCP_HOST_TEST_GRANTED = 'yes';
  process.env.MCP_HOST_TEST_EMPTY = '';
  delete process.env.MCP_HOST_TEST_UNSET;
  t.same(pluginEnvironment({ ...NONE, env: ['MCP_HOST_TEST_GRANTED', 'MCP_HOST_TEST_UNSET', 'MCP_HOST_TEST_EMPTY'] }), {
    MCP_HOST_TEST_GRANTED: 'yes',
    MCP_HOST_TEST_EMPTY: '',
  });
  t.same(
    Object.keys(pluginEnvironment({ ...NONE, env: ['MCP_HOST_TEST_UNSET'] })),
    [],
    'an unset variable is absent, not undefined',
  );
  t.same(pluginEnvironment(NONE), {});
});

t.test('grantFix, withoutFlagHint, accessDenied: a refusal as the operator reads it', async (t) => {
  t.equal(
    grantFix('/etc/passwd'),
    "it reached for what its entry does not grant (/etc/passwd): if it should, grant it in the entry's allow (read, write, childProcess).",
  );
  t.equal(
    grantFix(undefined, ', then restart'),
    "it reached for what its entry does not grant: if it should, grant it in the entry's allow (read, write, childProcess), then restart.",
  );
  t.equal(grantFix(''), grantFix(undefined), 'an empty resource is none');
  t.equal(
    withoutFlagHint(
      'Access to this API has been restricted. Use --allow-fs-read to manage permissions. And Use --allow-child-process to manage permissions.',
    ),
    'Access to this API has been restricted. And',
  );
  t.equal(
    withoutFlagHint('Use --allow-fs-read to manage permissions.'),
    'Use --allow-fs-read to manage permissions.',
    'only the appended hint',
  );
  const denied = (resource?: unknown) => Object.assign(new Error('denied'), { code: 'ERR_ACCESS_DENIED', resource });
  t.same(accessDenied(denied('/etc/passwd')), { resource: '/etc/passwd' });
  t.same(accessDenied(denied()), {});
  t.same(accessDenied(denied('')), {}, 'an empty resource is none');
  t.same(accessDenied(denied(42)), {}, 'a resource that is not a path is none');
  t.same(
    accessDenied(new Error('wrapped', { cause: new Error('mid', { cause: denied('/x') }) })),
    { resource: '/x' },
    'found among the causes',
  );
  t.equal(accessDenied(new Error('other', { cause: Object.assign(new Error('x'), { code: 'ENOENT' }) })), undefined);
  t.equal(accessDenied({ code: 'ERR_ACCESS_DENIED' }), undefined, 'only an Error');
  t.equal(accessDenied(undefined), undefined);
});
