import { composeCatalogue } from '../catalogue/compose.js';
import type { Mount } from '../mounts/mount.js';
import type { Generation } from '../catalogue/generation.js';
import { HostError } from '../errors.js';
import type { Logger } from '../log.js';
import { valueChanges } from '../pins/drift.js';
import {
  DEFINITION_FIELDS,
  LOCK_FILE_NAME,
  PINNED_KINDS,
  lockFileOf,
  pin as pinItem,
  readLock,
  writeLock,
  type LockedMounts,
  type PinnedKind,
} from '../pins/lock.js';
import { HostRuntime } from '../runtime.js';

export interface PinOptions {
  configPath?: string;
  cwd: string;
  logger: Logger;
  /** Show what drifted from the lock instead of writing it. */
  diff: boolean;
}

/**
 * `mcp-host pin`: write mcp-host.lock.json from the definitions the config
 * serves (curated, as clients see them, including any the lock now
 * withholds: pinning is how they are let through). `--diff` writes nothing
 * and shows, per tool and prompt, which fields drifted and how; it exits 1
 * when anything did, so CI can gate on it.
 */
export async function pin(options: PinOptions): Promise<number> {
  const runtime = new HostRuntime(options.logger);
  // The lock is read here, not by the build: a malformed one must not stop `pin` from replacing it.
  const { config, generation } = await composeCatalogue({ ...options, events: runtime.events, id: 1, withLock: false });
  try {
    const file = lockFileOf(config.file);
    const lock = await readLock(config.file).catch((error: unknown) => {
      if (options.diff) throw error;
      return undefined;
    });
    const served = servedDefinitions(generation, lock?.mounts ?? {}, options.logger);
    if (options.diff) {
      if (!lock) {
        throw new HostError({
          where: file,
          what: 'does not exist, so nothing is pinned to compare with.',
          fix: 'review the served definitions (mcp-host list --json), then run mcp-host pin.',
        });
      }
      const lines = driftLines(lock.mounts, served);
      process.stdout.write(
        lines.length > 0 ? `${lines.join('\n')}\n` : `no drift: every served tool and prompt matches ${file}\n`,
      );
      return lines.length > 0 ? 1 : 0;
    }
    await writeLock(file, served);
    const count = (kind: PinnedKind) =>
      Object.values(served).reduce((n, m) => n + Object.keys(m[kind] ?? {}).length, 0);
    process.stdout.write(
      `pinned ${count('tools')} tools and ${count('prompts')} prompts of ${Object.keys(served).length} plugins in ${file}\n` +
        `A running host picks it up at its next reload (it watches ${LOCK_FILE_NAME} when reload.watch is on).\n`,
    );
    return 0;
  } finally {
    runtime.swap(generation);
    await runtime.close();
  }
}

/**
 * Every served tool and prompt, pinned, per mount. A mount that is down
 * could not say what it serves: its pins are carried over from the lock,
 * so that pinning while one upstream is unreachable does not unpin it.
 */
export function servedDefinitions(generation: Generation, previous: LockedMounts, logger: Logger): LockedMounts {
  const mounts: LockedMounts = {};
  const seen = new Set<Mount>();
  // Each view's mounts: a dual-era upstream's two faces are pinned each under its own key.
  for (const [mount, view] of generation.eraViews.flatMap((era) =>
    era.mounts.map((m) => [m, era.viewOf(m)] as const),
  )) {
    if (seen.has(mount)) continue;
    seen.add(mount);
    if (!mount.isUp) {
      const kept = previous[mount.pinName];
      if (kept) mounts[mount.pinName] = kept;
      logger.warn(
        `${mount.description} is down: ${kept ? 'its pins are kept as they were' : 'nothing of it is pinned'}`,
      );
      continue;
    }
    const lists: LockedMounts[string] = {};
    for (const kind of PINNED_KINDS) {
      const pinned: Record<string, ReturnType<typeof pinItem>> = {};
      for (const item of mount.items[kind]) {
        const served = view.curate(kind, item);
        if (served) pinned[String(served.name)] = pinItem(kind, served);
      }
      if (Object.keys(pinned).length > 0) lists[kind] = pinned;
    }
    mounts[mount.pinName] = lists;
  }
  return mounts;
}

/** What `pin --diff` prints: per mount, per tool or prompt, what changed field by field. */
export function driftLines(locked: LockedMounts, served: LockedMounts): string[] {
  const lines: string[] = [];
  for (const name of new Set([...Object.keys(served), ...Object.keys(locked)])) {
    const mountLines: string[] = [];
    for (const kind of PINNED_KINDS) {
      const noun = kind === 'tools' ? 'tool' : 'prompt';
      const now = served[name]?.[kind] ?? {};
      const then = locked[name]?.[kind] ?? {};
      for (const [item, pinned] of Object.entries(now)) {
        const before = then[item];
        if (!before) {
          mountLines.push(`  ${noun} "${item}": new, not in ${LOCK_FILE_NAME}`);
        } else if (before.hash !== pinned.hash) {
          mountLines.push(`  ${noun} "${item}": changed`);
          for (const field of DEFINITION_FIELDS[kind]) {
            const changes = valueChanges(field, before.definition[field], pinned.definition[field]);
            mountLines.push(...changes.map((change) => `    ${change}`));
          }
        }
      }
      for (const item of Object.keys(then)) {
        if (!(item in now)) mountLines.push(`  ${noun} "${item}": pinned, no longer served`);
      }
    }
    if (mountLines.length > 0) lines.push(`${name}:`, ...mountLines);
  }
  return lines;
}
