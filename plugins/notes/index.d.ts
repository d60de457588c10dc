import type { McpServer } from '@modelcontextprotocol/server';

/** The `options` of this plugin's entry in the mcp-host config. */
export interface NotesOptions {
  /** The JSON file notes are kept in (created on first write). Default: `mcp-host-notes.json` in the OS temp dir. */
  file?: string;
  /** Pause per note in `export_notes`, so its progress is visible. Default 100. */
  exportDelayMs?: number;
  /** Freeze the clock used for `createdAt`/`updatedAt` (an ISO date-time), for deterministic output. */
  now?: string;
}

/** The subset of a pino logger the plugin uses. */
export interface NotesLogger {
  debug(object: object, message?: string): void;
}

/** Structurally an mcp-host `PluginDefinition<NotesOptions>` (see `mcp-host/plugin`). */
export interface NotesPlugin {
  create(context: { options: NotesOptions; logger?: NotesLogger }): McpServer;
}

/** Where notes live when `options.file` is not set. */
export declare const DEFAULT_FILE: string;

declare const plugin: NotesPlugin;
export default plugin;
