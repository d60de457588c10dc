// The pins' lock file (host/pins/lock.ts) in-process: what is pinned of a
// definition, its hash, and each lock refused with its message. test/pins.test.ts
// pins through a host and the CLI; this file is quick enough for `npm run mutation`.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { HostError } from '../../host/errors.js';
import {
  DEFINITION_FIELDS,
  LOCK_FILE_NAME,
  PINNED_KINDS,
  definitionOf,
  hashDefinition,
  lockFileOf,
  pin,
  readLock,
  writeLock,
} from '../../host/pins/lock.js';
import { stableJson } from '../../host/stable-json.js';
import { createHash } from 'node:crypto';

const TOOL = {
  name: 'notes.read',
  title: 'Read',
  description: 'Reads a note',
  inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
  outputSchema: { type: 'object' },
  annotations: { readOnlyHint: true },
  _meta: { ignored: true },
  icons: [],
};

t.test('what is pinned, and its hash', async (t) => {
  t.equal(LOCK_FILE_NAME, 'mcp-host.lock.json');
  t.same(PINNED_KINDS, ['tools', 'prompts']);
  t.same(DEFINITION_FIELDS, {
    tools: ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations', 'ui'],
    prompts: ['name', 'title', 'description', 'arguments'],
  });
  const { _meta: _ignored, icons: _icons, ...pinned } = TOOL;
  t.same(definitionOf('tools', TOOL), pinned, 'every pinned field, nothing else');
  t.same(
    Object.keys(definitionOf('tools', { name: 'x', title: undefined })),
    ['name'],
    'an absent field is left out, not kept as undefined',
  );
  t.same(definitionOf('prompts', { name: 'p', arguments: [{ name: 'a' }], inputSchema: {} }), {
    name: 'p',
    arguments: [{ name: 'a' }],
  });
  const hash = hashDefinition(pinned);
  t.equal(hash, `sha256:${createHash('sha256').update(stableJson(pinned)).digest('hex')}`);
  t.equal(
    hashDefinition({ description: TOOL.description, name: TOOL.name }),
    hashDefinition({ name: TOOL.name, description: TOOL.description }),
    'key order does not count',
  );
  t.not(hashDefinition({ ...pinned, description: 'Deletes a note' }), hash, 'a changed field does');
  t.same(pin('tools', TOOL), { hash, definition: pinned });
  t.equal(lockFileOf('/a/b/mcp-host.config.js'), '/a/b/mcp-host.lock.json');
});

t.test('a lock written is read back; none is undefined', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-host-lock-'));
  const config = join(dir, 'mcp-host.config.js');
  t.equal(await readLock(config), undefined, 'no lock, nothing pinned');
  const mounts = { notes: { tools: { 'notes.read': pin('tools', TOOL) } }, flat: {}, p: { prompts: {} } };
  await writeLock(lockFileOf(config), mounts);
  t.equal(readFileSync(lockFileOf(config), 'utf8'), `${JSON.stringify({ lockfileVersion: 1, mounts }, null, 2)}\n`);
  t.same(await readLock(config), { file: lockFileOf(config), mounts });
});

t.test('a lock that is not one is refused, saying why and the fix', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-host-lock-'));
  const config = join(dir, 'mcp-host.config.js');
  const file = lockFileOf(config);
  const fix = 'review the served definitions and write it again with mcp-host pin, or delete it to stop pinning.';
  const refused = async (text: string, what: string | RegExp, name: string) => {
    writeFileSync(file, text);
    const error = await readLock(config).then(
      () => undefined,
      (error: unknown) => error,
    );
    t.ok(error instanceof HostError, name);
    t.equal((error as HostError).where, file, name);
    t.match((error as HostError).what, what, name);
    t.equal((error as HostError).fix, fix, name);
  };
  await refused('{', /^cannot be read as JSON: .+\.$/, 'not JSON');
  const notALock = 'is not an mcp-host lock (expected { "lockfileVersion": 1, "mounts": { … } }).';
  await refused('[]', notALock, 'an array');
  await refused('{"lockfileVersion":2,"mounts":{}}', notALock, 'another version');
  await refused('{"lockfileVersion":1,"mounts":[]}', notALock, 'mounts an array');
  await refused('{"lockfileVersion":1}', notALock, 'no mounts');
  const good = { hash: 'sha256:x', definition: {} };
  const malformed = (mounts: unknown, name: string) =>
    refused(JSON.stringify({ lockfileVersion: 1, mounts }), 'has a malformed entry for the mount "m".', name);
  await malformed({ ok: { tools: { a: good } }, m: [] }, 'a mount not an object');
  await malformed({ m: { tools: [] } }, 'tools not an object');
  await malformed({ m: { prompts: { a: good, b: 'x' } } }, 'a prompt not an object');
  await malformed({ m: { tools: { a: { ...good, hash: 1 } } } }, 'a hash not a string');
  await malformed({ m: { tools: { a: { hash: 'x' } } } }, 'no definition');
  await malformed({ m: { tools: { a: { hash: 'x', definition: [] } } } }, 'a definition not an object');
  await malformed(
    { m: { tools: { a: good }, prompts: { a: { ...good, definition: null } } } },
    'a prompt bad after good tools',
  );
});
