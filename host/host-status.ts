import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { endSentence } from './config/problem-wording.js';
import { formatProblem } from './errors.js';
import type { Generation } from './catalogue/generation.js';
import type { Mount, MountState } from './mounts/mount.js';
import type { HostRuntime, ReloadRecord } from './runtime.js';
import { stableJson } from './stable-json.js';
import { ALL_LIST_KINDS, LIST_KINDS, type ListKind } from './vocabulary/list-kinds.js';

/**
 * A session whose client sent nothing for this long counts as idle (it may stay open until its idle timeout):
 * a minute, or MCP_HOST_STATUS_ACTIVE_MS in the host's environment.
 */
function activeWithinMs(): number {
  const set = Number(process.env.MCP_HOST_STATUS_ACTIVE_MS);
  return Number.isFinite(set) && set > 0 ? set : 60_000;
}

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
  /** Of those, the sessions whose client sent a request within the last minute; the others are idle. */
  activeSessions: number;
  idleSessions: number;
  /** With virtual servers in the config: each one's open sessions (a removed one's while its clients stay). */
  serverSessions?: Record<string, number>;
  /** Where clients reach it: `stdio`, or its HTTP endpoint's URL. */
  serving: string[];
  /** The last reload's outcome (none since the start when absent): a refused one means the old generation serves on. */
  lastReload?: ReloadRecord;
  mounts: MountStatus[];
}

export interface MountStatus {
  name: string;
  plugin: string;
  state: MountState;
  /** Why a mount is down, and what brings it back. */
  cause?: string;
  fix?: string;
  /** Where an mcp-host plugin runs (`none`, `worker`, `process`, `sandbox`); a child or a URL says how it is reached. */
  isolation: string;
  /** The package version served (an mcp-host plugin's), and the one on disk when an install changed it since. */
  version?: string;
  versionOnDisk?: string;
  /** What of it clients are served, after curation. */
  served: Record<ListKind, number>;
}

export function hostStatus(runtime: HostRuntime): HostStatus {
  const generation = runtime.current;
  const { id, config, mounts } = generation;
  let sessions = 0;
  let activeSessions = 0;
  const serverSessions: Record<string, number> = Object.fromEntries(
    Object.keys(config.servers ?? {}).map((name) => [name, 0]),
  );
  const activeSince = Date.now() - activeWithinMs();
  for (const session of runtime.sessions) {
    // The runtime also holds the 2026-07-28 endpoint's notifier, which is no client's session.
    if (session.fansOut) continue;
    sessions += 1;
    if ((session.lastActive ?? 0) >= activeSince) activeSessions += 1;
    const server = session.identity?.server;
    if (server !== undefined) serverSessions[server] = (serverSessions[server] ?? 0) + 1;
  }
  return {
    generation: id,
    configHash: createHash('sha256').update(stableJson(config)).digest('hex').slice(0, 12),
    uptimeSeconds: Math.round(process.uptime()),
    sessions,
    activeSessions,
    idleSessions: sessions - activeSessions,
    ...(Object.keys(serverSessions).length > 0 && { serverSessions }),
    serving: runtime.serving,
    ...(runtime.lastReload && { lastReload: runtime.lastReload }),
    mounts: mounts.map((mount) => mountStatus(generation, mount)),
  };
}

function mountStatus(generation: Generation, mount: Mount): MountStatus {
  const { spec } = mount;
  const view = generation.viewOf(mount);
  const served = Object.fromEntries(
    ALL_LIST_KINDS.map((kind) => [kind, mount.items[kind].filter((item) => view.curate(kind, item)).length]),
  ) as Record<ListKind, number>;
  const onDisk = spec.kind === 'in-process' ? versionOnDisk(spec.packageDir) : undefined;
  return {
    name: mount.name,
    plugin: spec.label,
    state: mount.state,
    ...(mount.outage && !mount.isUp && { cause: mount.outage.cause, fix: mount.outage.fix }),
    isolation:
      spec.kind === 'in-process'
        ? spec.isolation
        : spec.kind === 'remote'
          ? 'remote'
          : spec.sandbox
            ? 'sandbox'
            : 'child',
    ...(spec.kind === 'in-process' && { version: spec.version }),
    ...(spec.kind === 'in-process' && onDisk !== undefined && onDisk !== spec.version && { versionOnDisk: onDisk }),
    served,
  };
}

/** The version an install left in a package's directory now (unreadable: nothing to tell). */
function versionOnDisk(packageDir: string): string | undefined {
  try {
    const { version } = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as {
      version?: unknown;
    };
    return typeof version === 'string' ? version : undefined;
  } catch {
    return undefined;
  }
}

/** One host's status as text: a headline, where it serves, its last reload, then one line per mount. */
export function formatHostStatus(host: string, status: HostStatus): string {
  const { generation, configHash, uptimeSeconds, sessions, mounts } = status;
  const down = mounts.filter((mount) => mount.state !== 'up').length;
  const lines = [
    `${host}: generation ${generation}, config ${configHash}; up ${formatUptime(uptimeSeconds)}; ` +
      `${sessions} session${sessions === 1 ? '' : 's'} (${status.activeSessions} active, ${status.idleSessions} idle); ` +
      `mounts ${mounts.length - down} up, ${down} down`,
  ];
  if (status.serving.length > 0) lines.push(`  serving: ${status.serving.join(', ')}`);
  if (status.serverSessions) {
    const each = Object.entries(status.serverSessions).map(([name, count]) => `${name} ${count}`);
    lines.push(`  virtual servers' sessions: ${each.join(', ')}`);
  }
  if (status.lastReload) lines.push(...formatLastReload(status.lastReload));
  for (const mount of mounts) {
    const why =
      mount.cause === undefined
        ? ''
        : `: ${endSentence(mount.cause)}${mount.fix === undefined ? '' : ` Fix: ${endSentence(mount.fix)}`}`;
    const version =
      mount.version === undefined
        ? ''
        : ` ${mount.version}${mount.versionOnDisk === undefined ? '' : ` (${mount.versionOnDisk} on disk: reload to serve it)`}`;
    const served = ALL_LIST_KINDS.filter((kind) => mount.served[kind] > 0)
      .map((kind) => `${mount.served[kind]} ${LIST_KINDS[kind].noun}${mount.served[kind] === 1 ? '' : 's'}`)
      .join(', ');
    lines.push(
      // What it serves while up; while down, why and the fix (`down: …`, as scripts and admins read it).
      `  ${mount.name} (${mount.plugin}${version}, ${mount.isolation}): ${mount.state}${why || (served && `, ${served}`)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

function formatLastReload(reload: ReloadRecord): string[] {
  const head = `  last reload (${reload.trigger}) at ${reload.at}: `;
  if (reload.outcome === 'applied') return [`${head}applied, generation ${reload.generation} serving`];
  if (reload.outcome === 'unchanged')
    return [`${head}nothing a client sees changed, generation ${reload.generation} serving`];
  return [
    `${head}REFUSED, generation ${reload.generation} keeps serving:`,
    ...(reload.problems ?? []).map((problem) => `    - ${formatProblem(problem)}`),
  ];
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
