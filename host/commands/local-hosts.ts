import { existsSync } from 'node:fs';
import { findConfigFile } from '../config/load.js';
import { HostError } from '../errors.js';
import { askHost, hostSockets, type ControlCommand, type ControlReplies } from '../reload/control-channel.js';

export interface LocalHostsOptions {
  configPath?: string;
  cwd: string;
  /** How long to wait for each host's answer. */
  timeoutMs?: number;
}

/**
 * Ask every host running this config on this machine (as this user)
 * `command` (with the request's other fields) over its control channel, one after the other, and collect the
 * answers. Refused with the fix when the config does not exist, a host
 * does not answer, or no host runs the config.
 */
export async function askLocalHosts<C extends ControlCommand>(
  options: LocalHostsOptions,
  command: C,
  defaultTimeoutMs: number,
  request: { plugin?: string } = {},
): Promise<ControlReplies[C][]> {
  const configFile = await findConfigFile(options);
  if (!existsSync(configFile)) {
    throw new HostError({
      where: configFile,
      what: 'the config file does not exist, so no host can be running it.',
      fix: `name the config file the host was started with: mcp-host ${command} --config PATH.`,
    });
  }
  const replies: ControlReplies[C][] = [];
  for (const [pid, socket] of hostSockets(configFile)) {
    const reply = await askHost(socket, command, options.timeoutMs ?? defaultTimeoutMs, request).catch(
      (error: unknown) => {
        throw new HostError({
          where: `the host with pid ${pid} running ${configFile}`,
          what: `did not answer the ${command} request: ${(error as Error).message}.`,
          fix: 'look at that host\u2019s log (stderr); if it hangs, restart it.',
        });
      },
    );
    if (reply) replies.push(reply);
  }
  if (replies.length === 0) {
    throw new HostError({
      where: configFile,
      what: 'no running mcp-host serves this config.',
      fix: `start one (mcp-host start --config ${configFile}); a host started from another config file answers only for that file (pass it with --config).`,
    });
  }
  return replies;
}
