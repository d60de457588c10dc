import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from './code-location.js';

/**
 * The host's own version, read from its package.json so that there is one
 * place to bump it. Plugins' `peerDependencies["mcp-host"]` ranges are checked
 * against it.
 */
export const HOST_VERSION: string = (
  JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;
