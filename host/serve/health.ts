import type { HostRuntime } from '../runtime.js';

/** Liveness: the process is up and its HTTP server answers. */
export const HEALTH_PATH = '/healthz';
/** Readiness: every mount of the live catalogue is up. */
export const READY_PATH = '/readyz';

export function isHealthPath(path: string): boolean {
  return path === HEALTH_PATH || path === READY_PATH;
}

/**
 * The answer to a health probe. Probes come from load balancers and
 * orchestrators, which name the host by its address and often cannot send
 * a token, so the status (200, or 503 when a mount is down) is anyone's;
 * the details (each mount's name, kind (and isolation, for a plugin) and state, and why one is down) say
 * what the host runs, so only a request that `/mcp` would accept gets them.
 *
 * A cluster replica that cannot reach Redis is `degraded` (the reason in
 * the details), not unready: it still serves its own sessions and calls,
 * and taking every replica out of the balancer at once for a Redis outage
 * would turn it into a full one.
 */
export function healthResponse(runtime: HostRuntime, path: string, detailed: boolean, degraded?: string): Response {
  if (path === HEALTH_PATH) return Response.json({ status: 'ok' });
  const { id, mounts } = runtime.current;
  const ready = mounts.every((mount) => mount.isUp);
  const status = ready ? 200 : 503;
  if (!detailed) return Response.json({ ready, ...(degraded !== undefined && { degraded: true }) }, { status });
  return Response.json(
    {
      ready,
      ...(degraded !== undefined && { degraded }),
      generation: id,
      mounts: mounts.map((mount) => ({
        name: mount.name,
        plugin: mount.spec.label,
        kind: mount.spec.kind,
        ...(mount.spec.kind === 'in-process' && { isolation: mount.spec.isolation }),
        state: mount.state,
        ...(mount.outage && !mount.isUp && { cause: mount.outage.cause, fix: mount.outage.fix }),
      })),
    },
    { status },
  );
}
