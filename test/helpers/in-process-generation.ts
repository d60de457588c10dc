/**
 * A catalogue generation composed in the test's own process from a config
 * (its plugins 'none'-isolated, imported here): for the rules tests of
 * modules that read a generation (the audit's who and what, discovery),
 * without a host process or an HTTP endpoint.
 *
 *   const generation = await composeInProcess(t, ws.writeConfig({ plugins: [...] }), ws.dir);
 */
import { composeCatalogue } from '../../host/catalogue/compose.js';
import type { Generation } from '../../host/catalogue/generation.js';
import { createLogger } from '../../host/log.js';
import type { MountEvents } from '../../host/mounts/mount.js';
import type { Teardown } from './host.js';

/** Nothing a test of a generation's rules listens to. */
const IGNORED: MountEvents = { onNotification() {}, onClose() {}, onStateChange() {} };

/** The generation `configFile` composes; its mounts closed when the test ends. */
export async function composeInProcess(t: Teardown, configFile: string, cwd: string): Promise<Generation> {
  const { generation } = await composeCatalogue({
    configPath: configFile,
    cwd,
    logger: createLogger('silent'),
    events: IGNORED,
    id: 1,
    withLock: false,
  });
  t.teardown(() => Promise.all(generation.mounts.map((mount) => mount.close())).then(() => undefined));
  return generation;
}
