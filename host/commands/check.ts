import type { Logger } from '../log.js';
import { formatProblem } from '../errors.js';
import { inspectCatalogue } from '../catalogue/compose.js';
import { HostRuntime } from '../runtime.js';
import { formatCatalogue, formatTotals } from './catalogue-report.js';
import { formatWarnings } from './reload.js';

/**
 * `mcp-host check`: everything `start` does short of serving, reporting
 * every problem found. Plugins refused by their package.json are never
 * imported.
 */
export async function check(options: { configPath?: string; cwd: string; logger: Logger }): Promise<number> {
  const runtime = new HostRuntime(options.logger);
  const { config, generation, problems } = await inspectCatalogue({ ...options, events: runtime });
  const where = config?.file ?? options.configPath ?? 'the config';
  try {
    if (problems.length > 0) {
      process.stdout.write(
        `mcp-host check: ${problems.length} problem${problems.length === 1 ? '' : 's'} in ${where}\n` +
          problems.map((p) => `- ${formatProblem(p)}\n`).join(''),
      );
      return 1;
    }
    const warnings = generation!.warnings();
    process.stdout.write(
      `${formatCatalogue(generation!)}\n\n${formatWarnings(warnings, '')}` +
        `OK: ${formatTotals(generation!)} (${where})\n`,
    );
    return 0;
  } finally {
    await Promise.allSettled((generation?.mounts ?? []).map((mount) => mount.close()));
  }
}
