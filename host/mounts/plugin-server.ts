import { pluginWhere } from '../config/problem-wording.js';
import { HostError, describeThrown } from '../errors.js';
import type { InProcessSpec } from '../loader/types.js';
import type { PluginServer } from '../plugin.js';

/**
 * How a plugin's `create()` is judged, wherever it runs (the host's thread
 * or a worker): the same refusals, worded once.
 */

/** `create()` threw or rejected: the plugin is refused with what it threw. */
export function createFailed(spec: InProcessSpec, error: unknown): HostError {
  return new HostError(
    {
      where: pluginWhere(spec.path, spec.label),
      what: `create() threw: ${describeThrown(error)}`,
      fix: 'fix the plugin or its options in the config; the host did not mount it.',
    },
    { cause: error },
  );
}

/** What `create()` returned, if it is an MCP server (anything with `connect`); else the refusal. */
export function asPluginServer(spec: InProcessSpec, created: unknown): PluginServer {
  if (typeof (created as Partial<PluginServer> | undefined)?.connect === 'function') return created as PluginServer;
  throw new HostError({
    where: pluginWhere(spec.path, spec.label),
    what: 'create() did not return an MCP server.',
    fix: 'return an McpServer or Server from @modelcontextprotocol/server (SDK v2) or @modelcontextprotocol/sdk (SDK v1).',
  });
}
