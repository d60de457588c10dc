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
import { HostError } from '../errors.js';

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
  const packageJson = packageJsonIn(cwd);
  const manifest = packageJson?.['mcp-host'];
  if (!packageJson || !isPlainObject(manifest) || 'plugins' in manifest) return undefined;
  const config = await findConfigFile({ cwd }).catch(() => undefined);
  if (config !== undefined && config !== join(cwd, 'package.json')) return undefined;
  return {
    dir: cwd,
    name: typeof packageJson.name === 'string' ? packageJson.name : cwd,
    ...(typeof manifest.prefix === 'string' && { prefix: manifest.prefix }),
  };
}

/** The SDKs a plugin is written with: a package depending on one is a plugin (or a server), not a host's project. */
const MCP_SDKS = ['@modelcontextprotocol/server', '@modelcontextprotocol/sdk'];

/**
 * The refusal for a package in `cwd` written as a plugin (it depends on an
 * MCP SDK) whose package.json has no "mcp-host" field, when no host config
 * is found from `cwd`. Its author ran check to check the plugin: the fix is
 * the field, not a host config.
 */
export async function unmarkedPluginHere(cwd: string): Promise<HostError | undefined> {
  const packageJson = packageJsonIn(cwd);
  if (!packageJson || 'mcp-host' in packageJson) return undefined;
  const depends = [packageJson.dependencies, packageJson.peerDependencies].some(
    (deps) => isPlainObject(deps) && MCP_SDKS.some((sdk) => sdk in deps),
  );
  if (!depends || (await findConfigFile({ cwd }).catch(() => undefined)) !== undefined) return undefined;
  const name = typeof packageJson.name === 'string' ? packageJson.name : 'plugin';
  return new HostError({
    where: join(cwd, 'package.json'),
    what: `the package ${JSON.stringify(name)} has no "mcp-host" field, so check cannot tell that it is a plugin (and no host config is found here).`,
    fix: `add "mcp-host": { "prefix": ${JSON.stringify(suggestPrefix(name, '.'))} } to its package.json, then run mcp-host check again; to serve plugins from this directory instead, write a host config with mcp-host init.`,
  });
}

/** The package.json in `cwd` as an object, when there is one that parses (the config search reports one that does not). */
function packageJsonIn(cwd: string): Record<string, unknown> | undefined {
  const file = join(cwd, 'package.json');
  if (!existsSync(file)) return undefined;
  try {
    const packageJson: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return isPlainObject(packageJson) ? packageJson : undefined;
  } catch {
    return undefined;
  }
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
