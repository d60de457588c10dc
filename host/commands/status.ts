import { formatHostStatus } from '../host-status.js';
import { askLocalHosts, type LocalHostsOptions } from './local-hosts.js';

export interface StatusCommandOptions extends LocalHostsOptions {
  json: boolean;
}

/**
 * `mcp-host status`: what every host running this config on this machine
 * serves (generation, config hash, uptime, sessions, mounts), asked over
 * its control channel. Exit 1 when no host runs this config.
 */
export async function status(options: StatusCommandOptions): Promise<number> {
  const replies = await askLocalHosts(options, 'status', 10_000);
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ hosts: replies }, null, 2)}\n`);
    return 0;
  }
  for (const reply of replies) {
    process.stdout.write(formatHostStatus(`mcp-host (pid ${reply.pid}, ${reply.configFile})`, reply.status));
  }
  return 0;
}
