import { readFileSync } from 'node:fs';

/**
 * The host's own version, read from its package.json so that there is one
 * place to bump it. Plugins' `peerDependencies["mcp-host"]` ranges are checked
 * against it.
 */
export const HOST_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
