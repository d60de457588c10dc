/**
 * A plugin package's entry, loaded for the bench's own servers (direct and
 * SDK-only proxy), which serve a plugin without the host's loader.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Logger } from 'pino';
import type { PluginDefinition, PluginServer } from '../host/plugin.js';

/** A started plugin's server, ready to connect to a transport. */
export type PluginFactory = () => Promise<PluginServer>;

/**
 * A logger that drops everything, without loading pino: the bench's plugins
 * log nothing, and a baseline server that loaded a logging library the SDK
 * alone would not (some 20 ms of a start's CPU) would flatter the host.
 */
const SILENT = new Proxy({} as Logger, {
  get: (_target, key) => (key === 'child' ? () => SILENT : key === 'level' ? 'silent' : () => {}),
});

/**
 * The plugin whose entry file is `entry`: each call of the result starts one
 * more of its servers, with `options`, logging through `logger` (nowhere by default).
 */
export async function loadPlugin(
  entry: string,
  options: Record<string, unknown> = {},
  logger: Logger = SILENT,
): Promise<PluginFactory> {
  const definition = (await import(pathToFileURL(resolve(entry)).href)).default as PluginDefinition;
  return async () => definition.create({ options, logger });
}
