import { loadConfig, loadConfigExport } from '../config/load.js';
import { inspectConfig } from '../config/validate.js';
import type { ResolvedConfig } from '../config/types.js';
import { ProblemsError, problemsOf, type Problem } from '../errors.js';
import type { Logger } from '../log.js';
import { resolvePlugins } from '../loader/resolve-plugins.js';
import type { MountEvents } from '../mounts/mount.js';
import { buildGeneration } from './build-generation.js';
import { withholdTokenVariables } from '../secret-env.js';
import type { Generation } from './generation.js';
import { readLock } from '../pins/lock.js';

export interface ComposeOptions {
  configPath?: string;
  cwd: string;
  logger: Logger;
  events: MountEvents;
  /** The generation number to build. */
  id: number;
  /** The live generation, at a reload. */
  previous?: Generation;
  /** Mounts (by name) to start afresh even if unchanged, at a reload (`mcp-host reload --plugin NAME`). */
  restart?: ReadonlySet<string>;
  /** Judge definitions by the lock beside the config (default); `mcp-host pin` writes one instead. */
  withLock?: boolean;
  /** Called with the valid config before any plugin is started (start-up switches telemetry on here). */
  configLoaded?: (config: ResolvedConfig) => Promise<void>;
}

export interface Composition {
  config: ResolvedConfig;
  generation: Generation;
}

/**
 * The whole path from a config file to a catalogue, in the order data flows:
 * load and validate the config, resolve and check every plugin from its
 * package.json alone, then start, drain and preflight. Refuses with every
 * problem it can find at the first stage that has any.
 */
export async function composeCatalogue(options: ComposeOptions): Promise<Composition> {
  const config = await loadConfig({
    cwd: options.cwd,
    ...(options.configPath ? { configPath: options.configPath } : {}),
  });
  withholdTokenVariables(config.http?.auth, config.http?.oauth?.introspection?.clientSecretEnv);
  await options.configLoaded?.(config);
  const { specs, problems } = await resolvePlugins(config);
  if (problems.length > 0) throw new ProblemsError(problems);
  const lock = options.withLock === false ? undefined : await readLock(config.file);
  const generation = await buildGeneration({
    id: options.id,
    config,
    specs,
    ...(lock && { lock }),
    logger: options.logger,
    events: options.events,
    ...(options.previous ? { previous: options.previous } : {}),
    ...(options.restart && { restart: options.restart }),
  });
  return { config, generation };
}

export interface Inspection {
  config?: ResolvedConfig;
  generation?: Generation;
  problems: Problem[];
}

/**
 * What `mcp-host check` needs: every problem, not the first. A config with
 * problems still has its valid entries resolved and checked, so a missing
 * package shows beside a mistyped key; plugins are started only when the
 * config is valid. Plugins that pass their package.json checks are started
 * even when others failed, so their own problems (a throwing `create`, a
 * collision) are reported too.
 */
export async function inspectCatalogue(options: Omit<ComposeOptions, 'id' | 'previous'>): Promise<Inspection> {
  let found;
  try {
    found = await loadConfigExport({
      cwd: options.cwd,
      ...(options.configPath ? { configPath: options.configPath } : {}),
    });
  } catch (error) {
    return { problems: problemsOf(error, options.configPath ?? 'config') };
  }
  return inspectConfigValue(found.config, found.filepath, options);
}

/**
 * `inspectCatalogue` of a config already in hand (what `file` exports, or
 * what `mcp-host add` would make of it): the same checks, the same problems.
 */
export async function inspectConfigValue(
  raw: unknown,
  file: string,
  options: Pick<ComposeOptions, 'logger' | 'events'>,
): Promise<Inspection> {
  const { problems: configProblems, salvaged: config, invalidEntries } = inspectConfig(raw, file);
  if (!config) return { problems: configProblems };
  withholdTokenVariables(config.http?.auth, config.http?.oauth?.introspection?.clientSecretEnv);
  // The valid entries are resolved even when others are not, so one run shows every problem.
  const { specs, problems } = await resolvePlugins(config, invalidEntries);
  if (configProblems.length > 0) return { config, problems: [...configProblems, ...problems] };
  try {
    const lock = await readLock(config.file);
    const generation = await buildGeneration({
      id: 1,
      config,
      specs,
      logger: options.logger,
      events: options.events,
      ...(lock && { lock }),
    });
    return { config, generation, problems: [...problems, ...unreachable(generation)] };
  } catch (error) {
    return { config, problems: [...problems, ...problemsOf(error, config.file)] };
  }
}

/** Upstreams that could not be reached in time: `start` serves without them (and keeps trying); `check` says why. */
function unreachable(generation: Generation): Problem[] {
  return generation.mounts.flatMap((mount) =>
    !mount.isUp && mount.outage
      ? [
          {
            where: `${mount.description} (${mount.spec.path})`,
            what: `could not be reached: ${mount.outage.cause}`,
            fix: mount.outage.fix,
          },
        ]
      : [],
  );
}
