import type { Logger } from '../log.js';
import { formatProblem } from '../errors.js';
import { inspectCatalogue, inspectConfigValue, type Inspection } from '../catalogue/compose.js';
import { HostRuntime } from '../runtime.js';
import { formatCatalogue, formatServers, formatTotals } from './catalogue-report.js';
import { pluginCheckConfig, pluginPackageHere, unmarkedPluginHere } from './plugin-check.js';
import { formatWarnings } from './reload.js';
import type { ReportLog } from './report-log.js';

export interface CheckOptions {
  configPath?: string;
  cwd: string;
  logger: Logger;
  /** The options a plugin checked in its own directory is created with. */
  sampleOptions?: Record<string, unknown>;
  /** `--allow-withheld`: exit 0 even when `pins: 'refuse'` withholds definitions. */
  allowWithheld?: boolean;
  /** Where `logger` keeps what is logged while checking, for the report to say in words. */
  reportLog?: ReportLog;
}

/**
 * `mcp-host check`: everything `start` does short of serving, reporting
 * every problem found. Plugins refused by their package.json are never
 * imported. Run in a plugin package's own directory, it checks that plugin
 * as a host would mount it.
 */
export async function check(options: CheckOptions): Promise<number> {
  const runtime = new HostRuntime(options.logger);
  const plugin = options.configPath ? undefined : await pluginPackageHere(options.cwd);
  const unmarked = options.configPath || plugin ? undefined : await unmarkedPluginHere(options.cwd);
  if (unmarked) throw unmarked;
  let inspection: Inspection;
  let where: string;
  if (plugin) {
    const { config, file, note } = pluginCheckConfig(plugin, options.sampleOptions ?? {});
    process.stdout.write(`checking ${plugin.dir} as an mcp-host plugin (no host config here): ${note}\n`);
    inspection = await inspectConfigValue(config, file, { logger: options.logger, events: runtime.events });
    where = `the plugin ${plugin.name}`;
  } else {
    inspection = await inspectCatalogue({ ...options, events: runtime.events });
    where = inspection.config?.file ?? options.configPath ?? 'the config';
  }
  const { generation, problems } = inspection;
  try {
    if (problems.length > 0) {
      const report =
        `mcp-host check: ${problems.length} problem${problems.length === 1 ? '' : 's'} in ${where}\n` +
        problems.map((p) => `- ${formatProblem(p)}\n`).join('');
      process.stdout.write(report + (options.reportLog?.reportLines(report) ?? ''));
      return 1;
    }
    const warnings = generation!.warnings();
    // What pins: 'refuse' withholds is missing for clients: a CI gate on check must see it.
    const withheld = generation!.index.drifts.filter((drift) => drift.withheld).length;
    const verdict =
      withheld > 0 && !options.allowWithheld
        ? `mcp-host check: ${withheld} definition${withheld === 1 ? ' is' : 's are'} withheld from clients (pins: 'refuse'; listed above) in ${where}. Fix: review the change (mcp-host pin --diff), then run mcp-host pin; or pass --allow-withheld to accept serving without them.\n`
        : `OK: ${formatTotals(generation!)} (${where})\n`;
    const servers = formatServers(generation!);
    const report = `${formatCatalogue(generation!)}\n${servers && `\n${servers}\n`}\n${formatWarnings(warnings, '')}`;
    process.stdout.write(`${report}${options.reportLog?.reportLines(report) ?? ''}${verdict}`);
    return withheld > 0 && !options.allowWithheld ? 1 : 0;
  } finally {
    await Promise.allSettled((generation?.mounts ?? []).map((mount) => mount.close()));
  }
}
