import { composeCatalogue } from '../catalogue/compose.js';
import { problemsOf, formatProblem, type Problem } from '../errors.js';
import type { Logger } from '../log.js';
import type { ChangedList } from '../vocabulary/list-kinds.js';
import type { HostRuntime, ReloadRecord } from '../runtime.js';
import type { Generation } from '../catalogue/generation.js';
import { pluginChanges, type CatalogueDiff } from '../catalogue/catalogue-diff.js';
import { telemetryChangeWarning } from '../config/telemetry-settings.js';

/** A CatalogueDiff as it travels to `mcp-host reload`: plain JSON. */
export interface ReloadDiff extends Omit<CatalogueDiff, 'changedLists'> {
  /** The lists whose `list_changed` at least one connected client was sent (a client hears only of lists it was offered). */
  notified: ChangedList[];
}

/** What one reload did: swapped in a new generation, or refused and kept the live one. */
export type ReloadOutcome =
  | { ok: true; generation: number; diff: ReloadDiff; ms: number; warnings: Problem[] }
  | { ok: false; generation: number; problems: Problem[]; ms: number };

export interface ReloaderOptions {
  /**
   * The config file the host started from, pinned: a reload re-reads this
   * file rather than searching again, so a file created later higher up the
   * search path cannot silently take over a running host.
   */
  configPath: string;
  cwd: string;
  logger: Logger;
}

/**
 * The one way the host reloads. Every trigger (file watch, SIGHUP, the
 * control channel) calls `reload()`; reloads never overlap, and requests
 * that arrive while one is running share the single reload that follows it,
 * so a burst of saves ends at the latest config after at most two builds.
 *
 * A reload composes the next generation beside the live one (unchanged
 * plugins are carried over) and swaps only when the whole build succeeded;
 * otherwise the live generation serves on and the problems are returned.
 */
export class Reloader {
  private running: Promise<ReloadOutcome> | undefined;
  private queued: Promise<ReloadOutcome> | undefined;
  /**
   * Generations are numbered as they are served: a refused build served
   * nothing (no client saw it, no cursor names it), so the next build takes
   * its number, and an admin reading "generation 5" knows it is the fifth
   * catalogue clients were given.
   */
  private nextId: number;
  private closed = false;
  private readonly listeners: ((outcome: ReloadOutcome) => void)[] = [];
  /** The mounts the next build starts afresh (`mcp-host reload --plugin NAME`), taken by the build that begins next. */
  private readonly restarts = new Set<string>();

  constructor(
    private readonly runtime: HostRuntime,
    private readonly options: ReloaderOptions,
  ) {
    this.nextId = runtime.current.id + 1;
  }

  /**
   * Reload now, or join the reload queued behind the one running. With
   * `plugin` (a mount's prefix or package name), that mount is started
   * afresh, its code imported anew, whether or not anything changed.
   */
  reload(trigger: string, plugin?: string): Promise<ReloadOutcome> {
    if (plugin !== undefined) {
      const name = mountNamed(this.runtime.current, plugin);
      if (name === undefined) return Promise.resolve(unknownPlugin(this.runtime.current, plugin));
      this.restarts.add(name);
    }
    if (this.queued) return this.queued;
    if (!this.running) return this.start(trigger);
    this.options.logger.debug(`reload requested (${trigger}) while one is running: queued`);
    const queued = this.running.then(() => {
      this.queued = undefined;
      return this.start(trigger);
    });
    this.queued = queued;
    return queued;
  }

  /** Be told of every reload's outcome, whatever triggered it. */
  onSettled(listener: (outcome: ReloadOutcome) => void): void {
    this.listeners.push(listener);
  }

  /** Refuse further reloads and wait for the one in progress (shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    await this.queued;
    await this.running;
  }

  private start(trigger: string): Promise<ReloadOutcome> {
    const running = this.attempt(trigger).then((outcome) => {
      if (this.running === running) this.running = undefined;
      this.runtime.lastReload = recordOf(outcome, trigger);
      for (const listener of this.listeners) listener(outcome);
      return outcome;
    });
    this.running = running;
    return running;
  }

  private async attempt(trigger: string): Promise<ReloadOutcome> {
    const live = this.runtime.current;
    const began = performance.now();
    const elapsed = () => Math.round((performance.now() - began) * 10) / 10;
    const { logger, configPath } = this.options;
    if (this.closed) {
      const problems = [{ where: configPath, what: 'the host is shutting down.', fix: 'start it again.' }];
      return { ok: false, generation: live.id, problems, ms: 0 };
    }
    const id = this.nextId;
    const restart = new Set(this.restarts);
    this.restarts.clear();
    const restarting = restart.size > 0 ? `, restarting ${[...restart].join(', ')}` : '';
    logger.info(`reloading (${trigger}): building generation ${id} beside generation ${live.id}${restarting}`);
    try {
      const { generation } = await composeCatalogue({
        configPath,
        cwd: this.options.cwd,
        logger,
        events: this.runtime.events,
        id,
        previous: live,
        restart,
      });
      // buildGeneration never throws after starting mounts it keeps, so
      // from here the swap is one synchronous step.
      const { changedLists, notified, ...diff } = this.runtime.swap(generation)!;
      this.nextId += 1;
      const ms = elapsed();
      logger.info(
        `reloaded (${trigger}) in ${ms} ms: generation ${id} is live; ${summarize(diff.plugins)}; ` +
          (changedLists.size === 0
            ? 'clients see no change'
            : notified.size > 0
              ? `notified ${[...notified].join(', ')} list_changed`
              : 'no connected client could be notified'),
      );
      const warnings = generation.warnings();
      const telemetryChanged = telemetryChangeWarning(live.config.telemetry, generation.config.telemetry, configPath);
      if (telemetryChanged) {
        logger.warn(formatProblem(telemetryChanged));
        warnings.push(telemetryChanged);
      }
      return { ok: true, generation: id, diff: { ...diff, notified: [...notified] }, ms, warnings };
    } catch (error) {
      const problems = problemsOf(error, configPath);
      logger.error(
        `reload refused (${trigger}); generation ${live.id} keeps serving:\n` +
          problems.map((p) => `- ${formatProblem(p)}`).join('\n'),
      );
      return { ok: false, generation: live.id, problems, ms: elapsed() };
    }
  }
}

/** A reload's outcome as `status` keeps it: what it did, when, and why not when it was refused. */
function recordOf(outcome: ReloadOutcome, trigger: string): ReloadRecord {
  const at = new Date().toISOString();
  if (!outcome.ok)
    return { at, trigger, outcome: 'refused', generation: outcome.generation, problems: outcome.problems };
  const { plugins, lists } = outcome.diff;
  const changed =
    pluginChanges(plugins).length > 0 ||
    Object.values(lists).some(({ added, removed, changed }) => added.length + removed.length + changed.length > 0);
  return { at, trigger, outcome: changed ? 'applied' : 'unchanged', generation: outcome.generation };
}

/** The name of the live mount `plugin` names, by its name (prefix, or package when flat) or its package. */
function mountNamed(live: Generation, plugin: string): string | undefined {
  return (live.mounts.find((mount) => mount.name === plugin) ?? live.mounts.find((m) => m.spec.label === plugin))?.name;
}

/** The refusal of a restart of a mount the host does not have, naming those it has. */
function unknownPlugin(live: Generation, plugin: string): ReloadOutcome {
  const names = live.mounts.map(({ name, spec }) => (name === spec.label ? `"${name}"` : `"${name}" (${spec.label})`));
  const first = live.mounts[0]?.name;
  const problem = {
    where: `mcp-host reload --plugin ${plugin}`,
    what: `this host mounts no plugin named "${plugin}"; it mounts ${names.length > 0 ? names.join(', ') : 'none'}.`,
    fix:
      first === undefined
        ? 'add the plugin to the config, then reload.'
        : `name a mount by its prefix or its package name, e.g. mcp-host reload --plugin ${first}.`,
  };
  return { ok: false, generation: live.id, problems: [problem], ms: 0 };
}

function summarize(plugins: CatalogueDiff['plugins']): string {
  return pluginChanges(plugins).join('; ') || 'no plugin changed';
}
