import type { ResolvedConfig } from '../config/types.js';
import { describeThrown } from '../errors.js';
import type { Logger } from '../log.js';
import type { PluginSpec } from '../loader/types.js';
import { MODERN_REVISION } from '../protocol-versions.js';
import type { Mount, MountEvents } from './mount.js';
import { startSupervisedMount, type ExplainedChannel } from './supervisor.js';

/**
 * Start a supervised mount and, when its upstream speaks both eras, its
 * 2025-era link too. A server built for both eras
 * shows each its own face (other tools; `logging`, completions and
 * subscriptions only to sessions; push-style elicitation and sampling), and
 * a legacy client must get through the host what it gets directly
 * (DESIGN.md, "Protocol revisions and the SDK"). The mount serves
 * 2026-07-28 clients; its `legacyFace`, a second connection (a second
 * child, a second HTTP session, a second instance of an SDK v2 plugin from
 * its `create()`, in process or in its worker) spoken to with `initialize`
 * and supervised on its own, serves legacy ones.
 *
 * An upstream that refuses `initialize` speaks 2026-07-28 only: its mount
 * serves legacy clients bridged (`input_required` becomes their mid-call
 * requests). So does one that came up 2025-era (it has one face), one still
 * down at start-up (nothing said yet which eras it speaks), and any mount
 * of a host whose range has no 2025-era revision.
 */
export async function startWithFaces(
  spec: PluginSpec,
  open: () => ExplainedChannel,
  config: ResolvedConfig,
  logger: Logger,
  events: MountEvents,
): Promise<Mount> {
  const mount = await startSupervisedMount(spec, open, config, logger, events);
  const servesLegacyClients = config.protocolVersions.some((revision) => revision !== MODERN_REVISION);
  if (!mount.isUp || !mount.peer.speaksModern || !servesLegacyClients) return mount;
  const starting = startSupervisedMount(spec, open, config, logger.child({ era: 'legacy' }), events, true);
  const wait = Math.min(config.upstreams.startTimeoutMs, LEGACY_FACE_WAIT_MS);
  let timer: NodeJS.Timeout | undefined;
  try {
    const face = await Promise.race([
      starting,
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), wait);
      }),
    ]);
    if (face) {
      face.faceEra = 'legacy';
      mount.legacyFace = face;
      logger.debug('speaks both eras: its 2025-era link serves legacy clients, its 2026-07-28 link the others');
    } else {
      // Given up on, not left running: a face that connects after all is closed at once.
      starting.then(
        (late) => late.close(),
        () => {},
      );
      logger.debug(`speaks 2026-07-28 only (no answer to initialize within ${wait} ms): legacy clients are bridged`);
    }
  } catch (error) {
    logger.debug(
      `speaks 2026-07-28 only (its initialize failed: ${describeThrown(error)}): legacy clients are bridged`,
    );
  } finally {
    clearTimeout(timer);
  }
  return mount;
}

/**
 * How long the 2025-era handshake of an upstream that answered at 2026-07-28
 * may take (at most `upstreams.startTimeoutMs`). A server of both eras
 * answers `initialize` as promptly as it answered `server/discover`; a
 * 2026-only server refuses it, or, written by hand, may never answer: that
 * silence must not hold up the host's start for a whole request timeout.
 */
const LEGACY_FACE_WAIT_MS = 10_000;
