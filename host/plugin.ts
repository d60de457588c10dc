/**
 * `mcp-host/plugin`: what a plugin package's entry exports.
 *
 * `definePlugin` only gives types. A plain object default export works the
 * same, so a plugin needs no runtime dependency on the host.
 */
import type { Logger } from 'pino';

/** The MCP server a plugin returns: an `McpServer` or low-level `Server`, from SDK v2 or v1. */
export interface PluginServer {
  connect(transport: never): Promise<void>;
  close(): Promise<void>;
}

export interface PluginContext<Options = Record<string, unknown>> {
  /** The `options` of the plugin's entry in the host config (`{}` when absent). */
  options: Options;
  /** A pino child logger named after the plugin; it writes to the host's stderr. */
  logger: Logger;
}

export interface PluginDefinition<Options = Record<string, unknown>> {
  /** Build the plugin's server. Called once per mount; may be async. */
  create(context: PluginContext<Options>): PluginServer | Promise<PluginServer>;
}

export function definePlugin<Options = Record<string, unknown>>(
  definition: PluginDefinition<Options>,
): PluginDefinition<Options> {
  return definition;
}
