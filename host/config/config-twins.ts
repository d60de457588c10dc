import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Problem } from '../errors.js';

/** The config file's names in one directory, in the order the config search tries them (load.ts). */
const CONFIG_FILE_NAMES = ['js', 'ts', 'mjs', 'cjs', 'mts', 'cts'].map((extension) => `mcp-host.config.${extension}`);

/**
 * The other config files beside the one a host reads (`mcp-host.config.js`
 * and `mcp-host.config.ts` in one directory, as a port from one to the
 * other leaves them): only one is ever read, the first the search finds
 * (or the one --config names), and an edit to the other changes nothing,
 * silently. A warning says which one is read.
 */
export function configTwinsWarning(configFile: string): Problem | undefined {
  const dir = dirname(configFile);
  const used = basename(configFile);
  const others = CONFIG_FILE_NAMES.filter((name) => name !== used && existsSync(join(dir, name)));
  if (others.length === 0) return undefined;
  const unread = others.join(' and ');
  return {
    where: dir,
    what: `holds ${used} and ${unread}: this host reads ${used}, and never ${unread}.`,
    fix: `keep one config file: merge what ${unread} holds into ${used} and delete ${others.length === 1 ? 'it' : 'them'} (or delete ${used} to use ${others[0]}).`,
  };
}
