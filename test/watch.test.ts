// The file watch under hot reload, on its own: what it must never miss.
import { writeFileSync } from 'node:fs';
import t from 'tap';
import { createLogger } from '../host/log.js';
import { PathWatch } from '../host/reload/watch.js';
import { until } from './helpers/host.js';
import { makeWorkspace } from './helpers/packages.js';

t.test('a change saved while the watch re-arms is still heard', async (t) => {
  const ws = makeWorkspace(t);
  const config = ws.writeConfig({ plugins: [] });
  const lockfile = ws.writeFile('node_modules/.package-lock.json', '{}');
  const heard: string[] = [];
  const watch = new PathWatch((path) => heard.push(path), createLogger('silent'));
  t.teardown(() => watch.close());
  watch.watchPaths([config]);

  // The kernel has queued the change; the host has not read it yet when a
  // reload settles and re-arms in the same turn. The change must survive.
  writeFileSync(config, 'export default { plugins: [] };\n');
  watch.watchPaths([config, lockfile]);
  await until('the change', () => heard.length > 0);
  t.same([...new Set(heard)], [config]);

  // And the re-armed watch goes on hearing, including the newly watched path.
  heard.length = 0;
  writeFileSync(lockfile, '{"changed":true}');
  await until('the lockfile', () => heard.includes(lockfile));
});
