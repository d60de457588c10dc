/**
 * The plugin author's `mcp-host check`: run in a plugin package's own
 * directory, where no host config is found, it mounts that package as an
 * operator would (`{ package: '<this directory>' }`) and checks it the same
 * way: manifest, definition, a dry `create()`, the names its tools get.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findConfigFile } from '../config/load.js';
import { suggestPrefix } from '../config/prefix.js';
import { isPlainObject } from '../plain-object.js';

export interface PluginHere {
  dir: string;
  name: string;
  /** The prefix its manifest declares, if any. */
  prefix?: string;
}

/**
 * The plugin package in `cwd`, when `cwd` is one and no host config is
 * found from it. A package.json's "mcp-host" key is a host config when it
 * has "plugins", and a plugin's manifest otherwise.
 */
export async function pluginPackageHere(cwd: string): Promise<PluginHere | undefined> {
  const packageJsonFile = join(cwd, 'package.json');
  if (!existsSync(packageJsonFile)) return undefined;
  let packageJson: unknown;
  try {
    packageJson = JSON.parse(readFileSync(packageJsonFile, 'utf8'));
  } catch {
    return undefined; // not this mode's to report: the config search says what is wrong with it
  }
  const manifest = isPlainObject(packageJson) ? packageJson['mcp-host'] : undefined;
  if (!isPlainObject(packageJson) || !isPlainObject(manifest) || 'plugins' in manifest) return undefined;
  const config = await findConfigFile({ cwd }).catch(() => undefined);
  if (config !== undefined && config !== packageJsonFile) return undefined;
  return {
    dir: cwd,
    name: typeof packageJson.name === 'string' ? packageJson.name : cwd,
    ...(typeof manifest.prefix === 'string' && { prefix: manifest.prefix }),
  };
}

/**
 * The host config that mounts the plugin alone, the file its problems are
 * placed in, and a note on the prefix it is mounted under.
 */
export function pluginCheckConfig(
  plugin: PluginHere,
  options: Record<string, unknown>,
): { config: unknown; file: string; note: string } {
  const prefix = plugin.prefix ?? suggestPrefix(plugin.name, '.');
  const note = plugin.prefix
    ? `mounted under its own prefix "${prefix}"`
    : `its package.json declares no prefix, so it is mounted under "${prefix}", as an operator might (its own names are what follows the "${prefix}.")`;
  return {
    config: { plugins: [{ package: plugin.dir, ...(plugin.prefix ? {} : { prefix }), options }] },
    // The config is not on disk: its problems are placed by the plugin's package.json.
    file: join(plugin.dir, 'mcp-host plugin check'),
    note,
  };
}
