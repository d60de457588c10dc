import { formatProblem, type Problem } from '../errors.js';
import { ALL_LIST_KINDS, LIST_KINDS } from '../vocabulary/list-kinds.js';
import { askLocalHosts, type LocalHostsOptions } from './local-hosts.js';
import { pluginChanges } from '../catalogue/catalogue-diff.js';
import type { ReloadDiff, ReloadOutcome } from '../reload/reloader.js';

export interface ReloadCommandOptions extends LocalHostsOptions {
  /** `--plugin NAME`: start that mount afresh, its code imported anew, even if nothing changed. */
  plugin?: string;
}

/**
 * `mcp-host reload`: ask every host running this config to reload now,
 * wait, and print what changed or why it was refused. Exit 1 if any host
 * refused, or if no host runs this config.
 */
export async function reload(options: ReloadCommandOptions): Promise<number> {
  const request = options.plugin === undefined ? {} : { plugin: options.plugin };
  const replies = await askLocalHosts(options, 'reload', 120_000, request);
  let refused = false;
  for (const { pid, configFile: file, outcome } of replies) {
    if (!printOutcome(`mcp-host (pid ${pid}, ${file})`, outcome)) refused = true;
  }
  return refused ? 1 : 0;
}

/** Print one host's reload: what changed (stdout), or why it was refused (stderr). False when refused. */
export function printOutcome(host: string, outcome: ReloadOutcome): boolean {
  if (outcome.ok) {
    process.stdout.write(
      `${host}: reloaded in ${outcome.ms} ms, generation ${outcome.generation} is live\n${formatDiff(outcome.diff)}` +
        formatWarnings(outcome.warnings),
    );
  } else {
    const count = outcome.problems.length === 1 ? 'a problem' : `${outcome.problems.length} problems`;
    process.stderr.write(
      `${host}: reload refused (${count}); generation ${outcome.generation} keeps serving unchanged\n` +
        outcome.problems.map((problem) => `- ${formatProblem(problem)}\n`).join(''),
    );
  }
  return outcome.ok;
}

/** Curation that matched nothing, definitions that drifted from the lock: served, but worth a look. */
export function formatWarnings(warnings: readonly Problem[] = [], indent = '  '): string {
  return warnings.map((warning) => `${indent}warning: ${formatProblem(warning)}\n`).join('');
}

/** What changed, one line per non-empty group. */
function formatDiff(diff: ReloadDiff): string {
  const lines = pluginChanges(diff.plugins).map((line) => `  ${line}`);
  for (const kind of ALL_LIST_KINDS) {
    for (const what of ['added', 'removed', 'changed'] as const) {
      const names = diff.lists[kind][what];
      if (names.length > 0) lines.push(`  ${LIST_KINDS[kind].noun}s ${what}: ${names.join(', ')}`);
    }
  }
  if (lines.length === 0) lines.push('  nothing changed: clients were not notified');
  else lines.push(`  clients notified: ${diff.notified.length > 0 ? diff.notified.join(', ') : 'none'}`);
  return `${lines.join('\n')}\n`;
}
