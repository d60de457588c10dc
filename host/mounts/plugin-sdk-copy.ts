import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { HostError, describeThrown } from '../errors.js';
import { isPlainObject } from '../plain-object.js';

export type ServeStdio = typeof serveStdio;

const SDK = '@modelcontextprotocol/server';

/** Where the host's own copy of the SDK v2 server package is: looked up at the first plugin linked, not by every start. */
let hostCopy: { dir: string | undefined } | undefined;

/**
 * The `serveStdio` of the copy of `@modelcontextprotocol/server` a plugin
 * resolves, which is the copy its server was built with: the SDK keeps an
 * instance's era and handlers in state private to its own copy, so a
 * server linked through another copy's entry cannot be served (it answered
 * every request "Internal server error"). npm gives a plugin its own copy
 * whenever its version range or install layout differs from the host's, so
 * that is the normal case, not an exception.
 *
 * `where` names the plugin in a refusal.
 */
export async function pluginServeStdio(entryFile: string, where: string): Promise<ServeStdio> {
  const dir = sdkDirFrom(dirname(entryFile));
  hostCopy ??= { dir: sdkDirFrom(dirname(fileURLToPath(import.meta.url))) };
  if (dir === undefined || dir === hostCopy.dir) return serveStdio;
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    version?: string;
    exports?: Record<string, unknown>;
  };
  const refusal = (what: string) =>
    new HostError({
      where,
      what: `its server was made with its own copy of ${SDK} ${manifest.version ?? '(no version)'} (${dir}), and ${what}, so mcp-host cannot link it at 2026-07-28.`,
      fix: `install a version of ${SDK} that has the "./stdio" entry (2.x: npm install ${SDK}@^2 in the plugin), or remove "2026-07-28" from the protocolVersions of the plugin's package.json "mcp-host" key to be linked at a 2025-era revision.`,
    });
  const entry = manifest.exports?.['./stdio'];
  const file = isPlainObject(entry) && isPlainObject(entry.import) ? entry.import.default : undefined;
  if (typeof file !== 'string') throw refusal('that copy has no "./stdio" entry to serve it with');
  let loaded: { serveStdio?: unknown };
  try {
    loaded = (await import(pathToFileURL(join(dir, file)).href)) as { serveStdio?: unknown };
  } catch (error) {
    throw refusal(`its "./stdio" entry failed to load (${describeThrown(error)})`);
  }
  if (typeof loaded.serveStdio !== 'function') throw refusal('its "./stdio" entry exports no serveStdio');
  return loaded.serveStdio as ServeStdio;
}

/** The real directory of the `@modelcontextprotocol/server` package Node resolves from `from`, if any. */
function sdkDirFrom(from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', SDK);
    if (visible(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * Whether `file` exists as far as this process may look. In a plugin's own
 * process (isolation 'process' or 'sandbox') Node's permission model throws
 * for a path it was not granted, such as a `node_modules` folder above the
 * host's build that Node's own resolution would only pass through: a folder
 * it may not read is one it could not resolve a package from either.
 */
function visible(file: string): boolean {
  try {
    return existsSync(file);
  } catch {
    return false;
  }
}
