/**
 * `mcp-host` as a command by name, as an installed host is: a shim in the
 * workspace that runs the built CLI, first on PATH in the environment
 * returned. A shell block or a client (the MCP Inspector) that starts
 * `mcp-host` by name starts this one.
 */
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CLI } from './host.js';
import type { Workspace } from './packages.js';

export function cliOnPath(ws: Workspace): NodeJS.ProcessEnv {
  const bin = join(ws.dir, '.bin');
  mkdirSync(bin, { recursive: true });
  chmodSync(ws.writeFile('.bin/mcp-host', `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`), 0o755);
  return { ...process.env, PATH: `${bin}:${process.env.PATH}` };
}
