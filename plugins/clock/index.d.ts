import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

/** The `options` of this plugin's entry in the mcp-host config. */
export interface ClockOptions {
  /** Freeze the clock at this ISO date-time (e.g. "2025-06-02T12:00:00Z"), for deterministic output. */
  now?: string;
  /** The zone used when a tool is given none. Default "UTC". */
  timeZone?: string;
  /** The BCP 47 locale of readable dates. Default "en-US". */
  locale?: string;
  /** Length of one `countdown` second in milliseconds. Default 1000 (tests use less). */
  tickMs?: number;
}

/** The subset of a pino logger the plugin uses. */
export interface ClockLogger {
  debug(object: object, message?: string): void;
}

/** Structurally an mcp-host `PluginDefinition<ClockOptions>` (see `mcp-host/plugin`). */
export interface ClockPlugin {
  create(context: { options: ClockOptions; logger?: ClockLogger }): McpServer;
}

declare const plugin: ClockPlugin;
export default plugin;
