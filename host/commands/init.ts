import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findConfigFile } from '../config/load.js';
import { HostError } from '../errors.js';
import { nearestPackageJson, nearestPackageType } from '../module-type.js';

const CONFIG_NAME = 'mcp-host.config.js';

/**
 * `mcp-host init`: a starter config in the working directory, written as
 * an ES module or as CommonJS to match the nearest package.json "type", so
 * that the project's own tools read it the way Node does. It mounts
 * nothing: every example is a comment, so `check` and `start` work at once
 * and nothing reaches the network. Never overwrites a config.
 */
export async function init(options: { cwd: string }): Promise<number> {
  const file = join(options.cwd, CONFIG_NAME);
  const existing = existsSync(file) ? file : await findConfigFile({ cwd: options.cwd }).catch(() => undefined);
  if (existing) {
    throw new HostError({
      where: existing,
      what: 'a config already exists here; init never overwrites one.',
      fix: `edit it, add plugins with mcp-host add PACKAGE, or remove it and run mcp-host init again.`,
    });
  }
  const format = nearestPackageType(options.cwd);
  writeFileSync(file, starterConfig(format));
  const packageJson = nearestPackageJson(options.cwd);
  process.stdout.write(
    packageJson === undefined
      ? `wrote ${file} (CommonJS, as Node reads a .js file with no package.json)\n` +
          `there is no package.json in ${options.cwd} or above it: run npm init -y here, so that mcp-host add installs packages beside this config\n`
      : `wrote ${file} (${format === 'module' ? 'an ES module' : 'CommonJS'}, like the "type" of ${packageJson})\n`,
  );
  process.stdout.write(
    'next: mcp-host add PACKAGE to mount a plugin or an MCP server from npm; mcp-host check to see the catalogue\n',
  );
  return 0;
}

function starterConfig(format: 'module' | 'commonjs'): string {
  return `// The mcp-host config: the MCP servers this host mounts and serves as one.
// mcp-host check validates it and prints the catalogue; mcp-host start serves it
// (over stdio, or Streamable HTTP with an http section). A running host reloads
// when this file is saved.

/** @type {import('mcp-host').HostConfig} */
${format === 'module' ? 'export default' : 'module.exports ='} {
  // name: 'my-host', // the serverInfo clients see (default: "mcp-host")
  plugins: [
    // Add one with \`mcp-host add PACKAGE\` (npm install, check, then a line here), or by hand:
    // { package: '@modelcontextprotocol/server-memory', prefix: 'memory' }, // an MCP server from npm, run over stdio
    // { package: './plugins/clock' }, // a local plugin package; prefix from its package.json
    // { command: 'uvx', args: ['mcp-server-time'], prefix: 'time' }, // any stdio MCP server
    // { url: 'http://127.0.0.1:4000/mcp', prefix: 'remote' }, // any Streamable HTTP MCP server
  ],
};
`;
}
