import type { McpServer } from '@modelcontextprotocol/server';

/** The subset of a pino logger the plugin uses. */
export interface ConformanceLogger {
  debug(object: object, message?: string): void;
}

/** Structurally an mcp-host `PluginDefinition` (see `mcp-host/plugin`); the plugin takes no options. */
export interface ConformancePlugin {
  create(context: { options?: Record<string, never>; logger?: ConformanceLogger }): McpServer;
}

declare const plugin: ConformancePlugin;
export default plugin;
