import type { ResolvedConfig } from '../config/types.js';
import { ProblemsError, formatProblem, problemsOf, type Problem } from '../errors.js';
import type { Logger } from '../log.js';
import type { PluginSpec } from '../loader/types.js';
import { codeIdentity, type DirectoryStamps } from '../loader/code-identity.js';
import { startMount } from '../mounts/start-mount.js';
import { recordMountKind } from '../sinks/telemetry.js';
import { mountName, type Mount, type MountEvents } from '../mounts/mount.js';
import { Generation } from './generation.js';
import { configWhere, pluginWhere } from '../config/problem-wording.js';
import type { Lock } from '../pins/lock.js';
import { Curation } from './curation.js';

export interface BuildOptions {
  id: number;
  config: ResolvedConfig;
  specs: readonly PluginSpec[];
  logger: Logger;
  events: MountEvents;
  /** The live generation, whose unchanged mounts are kept rather than re-created. */
  previous?: Generation;
  /** The lock beside the config, when there is one: served definitions are judged by it. */
  lock?: Lock;
  /**
   * Mounts (by name) started afresh even though their plugin did not change
   * (`mcp-host reload --plugin NAME`), their code imported anew.
   */
  restart?: ReadonlySet<string>;
}

/**
 * Build a generation beside the live one: keep every mount whose plugin did
 * not change (same fingerprint: its instance and state survive), start the
 * new and changed ones in parallel (each comes back with its lists drained,
 * or down under supervision when it could not be reached), and preflight the
 * whole catalogue. Either everything succeeds, or every mount this build
 * started is closed again and a ProblemsError lists every problem found.
 */
export async function buildGeneration(options: BuildOptions): Promise<Generation> {
  const { config, specs, logger, events, previous } = options;
  // A mount that is down is kept too: its supervisor is bringing it back.
  const reusable = new Map(
    previous?.mounts.filter((m) => m.state === 'down' || !m.peer.isClosed).map((m) => [m.spec.fingerprint, m]),
  );
  const started: Mount[] = [];
  const problems: Problem[] = [];
  const stamps: DirectoryStamps = new Map();

  const mounts = await Promise.all(
    specs.map(async (spec) => {
      const restarted = options.restart?.has(mountName(spec)) === true;
      const kept = restarted ? undefined : reusable.get(spec.fingerprint);
      if (kept) {
        reusable.delete(spec.fingerprint);
        return kept;
      }
      // A restart asked for imports the code anew under a tag of this build's
      // own, even where nothing on disk changed that the identity could see.
      const importTag = codeIdentity(spec, stamps) + (restarted ? `-restart-${options.id}` : '');
      try {
        recordMountKind(mountName(spec), spec.kind);
        const mount = await startMount(spec, importTag, logger, events, config);
        started.push(mount);
        return mount;
      } catch (error) {
        problems.push(...problemsOf(error, pluginWhere(spec.path, spec.label)));
        return undefined;
      }
    }),
  );

  if (problems.length === 0) {
    // Each spec's curation, not a kept mount's: curation is the generation's, so editing it keeps the instance.
    const curations = specs.map((spec) => new Curation(spec.curation, configWhere(config.file, spec.path)));
    const generation = new Generation(options.id, config, mounts as Mount[], curations, options.lock);
    problems.push(...generation.problems);
    if (problems.length === 0) {
      for (const warning of generation.warnings()) logger.warn(formatProblem(warning));
      return generation;
    }
  }
  await Promise.allSettled(started.map((mount) => mount.close()));
  throw new ProblemsError(problems);
}
