/**
 * A plugin package's entry, loaded for the bench's own servers (direct and
 * SDK-only proxy), which serve a plugin without the host's loader.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { pino, type Logger } from 'pino';
import type { PluginDefinition, PluginServer } from '../host/plugin.js';

/** A started plugin's server, ready to connect to a transport. */
export type PluginFactory = () => Promise<PluginServer>;

/**
 * The plugin whose entry file is `entry`: each call of the result starts one
 * more of its servers, with `options`, logging through `logger` (silent by default).
 */
export async function loadPlugin(
  entry: string,
  options: Record<string, unknown> = {},
  logger: Logger = pino({ level: 'silent' }),
): Promise<PluginFactory> {
  const definition = (await import(pathToFileURL(resolve(entry)).href)).default as PluginDefinition;
  return async () => definition.create({ options, logger });
}
