#!/usr/bin/env node
// `node scripts/project-node.mjs COMMAND [ARGS...]`: run COMMAND with the Node.js this project is developed, tested
// and measured on (Node 24 LTS) first on PATH. `npm test`, `npm start`, the benches and the conformance run go
// through it, so a machine whose `node` is another major (CI's image ships Node 20, past its end of life) still
// runs them on the Node the figures and the suite were made on.
//
// Where the `node` running this script is already that major, COMMAND runs as it is. Otherwise the Node of that
// major is installed once from the npm registry (the official binaries, packaged as `node-<platform>-<arch>`, the
// same route scripts/conformance.sh takes for the suite's Node 22) into a cache directory, and later runs reuse it.
//
// Environment:
//   MCP_HOST_NODE       the major to run on (default 24); CI also runs the suite once with 22, the oldest the host
//                       supports (package.json engines)
//   MCP_HOST_NODE_HOME  where the installed Node is kept (default $XDG_CACHE_HOME/mcp-host, else ~/.cache/mcp-host)
//
// Written for any Node from 18 on, since it is what runs before the project's Node is there. It prints nothing on
// stdout: `npm start` serves stdio MCP through it.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

const wanted = Number(process.env.MCP_HOST_NODE ?? 24);
const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write('usage: node scripts/project-node.mjs COMMAND [ARGS...]\n');
  process.exit(2);
}
if (!Number.isInteger(wanted) || wanted < 22) {
  process.stderr.write(
    `project-node: MCP_HOST_NODE=${process.env.MCP_HOST_NODE} is not a Node major this project runs on. ` +
      'Fix: set it to 22 or later, or unset it for Node 24.\n',
  );
  process.exit(2);
}

/** The bin directory of a Node of the wanted major, installing it from the npm registry when it is not there. */
function nodeBinDirectory() {
  const home =
    process.env.MCP_HOST_NODE_HOME ??
    path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'mcp-host');
  const directory = path.join(home, `node-${wanted}`);
  const packageName = `node-${process.platform}-${process.arch}`;
  const bin = path.join(directory, 'node_modules', packageName, 'bin');
  if (existsSync(path.join(bin, 'node'))) return bin;
  process.stderr.write(`project-node: installing Node ${wanted} (${packageName}@${wanted}) into ${directory} ...\n`);
  mkdirSync(directory, { recursive: true });
  const manifest = path.join(directory, 'package.json');
  if (!existsSync(manifest)) writeFileSync(manifest, '{ "name": "mcp-host-node-runtime", "private": true }\n');
  // npm's output goes to stderr (stdio 1 → 2): stdout stays the command's own.
  const install = spawnSync(
    'npm',
    ['install', '--no-audit', '--no-fund', '--loglevel=error', '--prefix', directory, `${packageName}@${wanted}`],
    { stdio: ['ignore', 2, 2] },
  );
  if (install.status !== 0 || !existsSync(path.join(bin, 'node'))) {
    process.stderr.write(
      `project-node: could not install ${packageName}@${wanted} from the npm registry (npm exit ${install.status}). ` +
        `Fix: install Node ${wanted} yourself and put it first on PATH, or set MCP_HOST_NODE_HOME to a writable directory.\n`,
    );
    process.exit(1);
  }
  return bin;
}

const current = Number(process.versions.node.split('.')[0]);
const env = { ...process.env };
if (current !== wanted) env.PATH = `${nodeBinDirectory()}${path.delimiter}${process.env.PATH ?? ''}`;

const child = spawn(command, args, { stdio: 'inherit', env });
// The command is what the caller started: a signal sent to this process reaches it (SIGHUP reloads a host), and
// its exit is ours. Ctrl-C already reaches the whole foreground group, the command included: this process only
// waits for the command to end, so a host still drains on SIGINT.
process.on('SIGINT', () => {});
for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('error', (error) => {
  process.stderr.write(`project-node: could not run ${command}: ${error.message}\n`);
  process.exit(127);
});
child.on('exit', (code, signal) => {
  if (!signal) process.exit(code ?? 1);
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
});
