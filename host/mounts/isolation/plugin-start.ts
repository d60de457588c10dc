import { pluginWhere } from '../../config/problem-wording.js';
import { problemsOf } from '../../errors.js';
import { loadDefinition } from '../../loader/definition.js';
import type { InProcessSpec } from '../../loader/types.js';
import type { Logger } from '../../log.js';
import type { createInProcessLink } from './in-process-link.js';
import { connectPluginServer } from '../plugin-era.js';
import { asPluginServer, createFailed } from '../plugin-server.js';
import { accessDenied, grantFix, withoutFlagHint } from './permissions.js';
import type { FromWorker } from './worker-channel.js';

/**
 * How a plugin starts away from the host's thread (in a worker, or in a
 * process of its own): import its entry, call `create()` with the entry's
 * options and a logger, connect the server it returns to the plugin's side
 * of an in-process link. What to tell the host: it is ready (and whether it
 * is linked at 2026-07-28), or the problems that refuse it.
 */
export async function startPlugin(
  spec: InProcessSpec,
  importTag: string,
  logger: Logger,
  pluginSide: ReturnType<typeof createInProcessLink>['pluginSide'],
): Promise<Extract<FromWorker, { type: 'ready' | 'refused' }>> {
  try {
    const definition = await loadDefinition(spec, importTag);
    let created: unknown;
    try {
      created = await definition.create({ options: spec.options, logger });
    } catch (error) {
      throw createFailed(spec, error);
    }
    const server = asPluginServer(spec, created);
    const connection = await connectPluginServer(server, pluginSide, spec);
    return { type: 'ready', modern: connection.modern };
  } catch (error) {
    const problems = problemsOf(error, pluginWhere(spec.path, spec.label));
    // In a process of its own, what it was refused is the entry's to grant, not a bug to fix in its code.
    const denied = accessDenied(error);
    if (denied) {
      const refused = problems.map((p) => ({ ...p, what: withoutFlagHint(p.what), fix: grantFix(denied.resource) }));
      return { type: 'refused', problems: refused };
    }
    return { type: 'refused', problems };
  }
}
