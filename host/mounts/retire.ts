import type { Mount } from './mount.js';

/**
 * Close mounts a reload removed or replaced once their calls finish, or
 * when the drain timeout passes: then what is left is cancelled, and its
 * clients are told `why` (the reason the mount is going away).
 */
export async function retireMounts(
  mounts: readonly Mount[],
  drainTimeoutMs: number,
  why = 'the host is stopping',
): Promise<void> {
  const deadline = Date.now() + drainTimeoutMs;
  await Promise.all(
    mounts.map(async (mount) => {
      // A mount that is down has no client calls, only its own reconnection: nothing to wait for.
      // The legacy face of a dual-era upstream drains with it.
      const faces = mount.legacyFace ? [mount, mount.legacyFace] : [mount];
      const busy = (face: Mount) => face.isUp && face.inFlight > 0;
      while (faces.some(busy) && Date.now() < deadline) await sleep(20);
      for (const face of faces.filter(busy)) {
        face.logger.warn(`closing with ${face.inFlight} calls still running after the drain timeout`);
        face.abandon(
          `${why}, and the call was still running at the drain timeout (reload.drainTimeoutMs, ${drainTimeoutMs} ms). Fix: raise reload.drainTimeoutMs in the host config.`,
        );
      }
      await mount.close().catch((error: unknown) => mount.logger.warn({ err: error }, 'close failed'));
    }),
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
