import { createHash } from 'node:crypto';
import { endSentence } from './config/problem-wording.js';
import type { MountState } from './mounts/mount.js';
import type { HostRuntime } from './runtime.js';
import { stableJson } from './stable-json.js';

/**
 * What a running host serves, as `mcp-host status` shows it (and, per
 * replica, `status --cluster`): enough to see a host that did not take a
 * change, a mount that is down, or a host that restarted.
 */
export interface HostStatus {
  generation: number;
  /** A short hash of the live config as validated (the same file and environment give the same hash). */
  configHash: string;
  /** Seconds since the host process started. */
  uptimeSeconds: number;
  /** Client sessions open now: a stdio client, 2025-era HTTP sessions (2026-07-28 requests hold none). */
  sessions: number;
  mounts: MountStatus[];
}

export interface MountStatus {
  name: string;
  plugin: string;
  state: MountState;
  /** Why a mount is down, and what brings it back. */
  cause?: string;
  fix?: string;
}

export function hostStatus(runtime: HostRuntime): HostStatus {
  const { id, config, mounts } = runtime.current;
  let sessions = 0;
  // The runtime also holds the 2026-07-28 endpoint's notifier, which is no client's session.
  for (const session of runtime.sessions) if (!session.fansOut) sessions += 1;
  return {
    generation: id,
    configHash: createHash('sha256').update(stableJson(config)).digest('hex').slice(0, 12),
    uptimeSeconds: Math.round(process.uptime()),
    sessions,
    mounts: mounts.map((mount) => ({
      name: mount.name,
      plugin: mount.spec.label,
      state: mount.state,
      ...(mount.outage && !mount.isUp && { cause: mount.outage.cause, fix: mount.outage.fix }),
    })),
  };
}

/** One host's status as text: a headline, then one line per mount. */
export function formatHostStatus(host: string, status: HostStatus): string {
  const { generation, configHash, uptimeSeconds, sessions, mounts } = status;
  const down = mounts.filter((mount) => mount.state !== 'up').length;
  const lines = [
    `${host}: generation ${generation}, config ${configHash}; up ${formatUptime(uptimeSeconds)}; ` +
      `${sessions} session${sessions === 1 ? '' : 's'}; mounts ${mounts.length - down} up, ${down} down`,
  ];
  for (const mount of mounts) {
    const why =
      mount.cause === undefined
        ? ''
        : `: ${endSentence(mount.cause)}${mount.fix === undefined ? '' : ` Fix: ${endSentence(mount.fix)}`}`;
    lines.push(`  ${mount.name} (${mount.plugin}): ${mount.state}${why}`);
  }
  return `${lines.join('\n')}\n`;
}

/** "42 s", "3 min 5 s", "2 h 10 min", "4 d 3 h": the two largest units are enough to tell a restart. */
export function formatUptime(seconds: number): string {
  const units: [string, number][] = [
    ['d', 86_400],
    ['h', 3_600],
    ['min', 60],
    ['s', 1],
  ];
  const parts: string[] = [];
  let left = seconds;
  for (const [unit, size] of units) {
    const count = Math.floor(left / size);
    left -= count * size;
    if (count > 0 || (parts.length === 0 && size === 1)) parts.push(`${count} ${unit}`);
    if (parts.length > 0 && (parts.length === 2 || count === 0)) break;
  }
  return parts.join(' ');
}
