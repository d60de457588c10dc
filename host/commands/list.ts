import type { Logger } from '../log.js';
import { composeCatalogue } from '../catalogue/compose.js';
import { HostRuntime } from '../runtime.js';
import { catalogueJson, formatCatalogue } from './catalogue-report.js';

/** `mcp-host list [--json]`: the composed catalogue, by mount. */
export async function list(options: {
  configPath?: string;
  cwd: string;
  logger: Logger;
  json: boolean;
}): Promise<number> {
  const runtime = new HostRuntime(options.logger);
  const { generation } = await composeCatalogue({ ...options, events: runtime.events, id: 1 });
  try {
    process.stdout.write(
      options.json ? `${JSON.stringify(catalogueJson(generation), null, 2)}\n` : `${formatCatalogue(generation)}\n`,
    );
    return 0;
  } finally {
    runtime.swap(generation);
    await runtime.close();
  }
}
