/** `mcp-host`: the types an operator's config and a plugin author use. */
export type {
  HostConfig,
  PluginEntry,
  PackagePluginEntry,
  CommandPluginEntry,
  UrlPluginEntry,
  Separator,
} from './config/types.js';
export type { PluginDefinition, PluginContext, PluginServer } from './plugin.js';
export { definePlugin } from './plugin.js';
