import type { Problem } from '../errors.js';
import type { Mount } from '../mounts/mount.js';
import type { Drift } from '../pins/drift.js';
import { ALL_LIST_KINDS, LIST_KINDS, keyOf, type ListItem, type ListKind } from '../vocabulary/list-kinds.js';
import type { MountView } from './mount-view.js';
import { composedNameProblem, isRenamed } from './names.js';
import { servedUnderPrefix } from '../vocabulary/served-uris.js';

/** Who serves a composed name or URI, and under which name of its own. */
export interface Owner {
  mount: Mount;
  /** The mount's own name for it (the tool name before prefixing and renaming, or the URI). */
  own: string;
  /** The item as the mount lists it. */
  item: ListItem;
  /** The item as clients see it (curated, renamed, prefixed). */
  served: ListItem;
}

/** A tool or prompt that differs from the lock, on the mount that serves it. */
export interface MountDrift {
  mount: Mount;
  drift: Drift;
  /** Withheld from clients (`pins: 'refuse'`), or served with a warning. */
  withheld: boolean;
}

/**
 * Every composed name and URI of a generation, mapped to its owner, built
 * from the mounts' drained copies of their lists as each mount's view
 * presents them: what the entry's curation leaves out, or the pins policy
 * withholds, is not here, so it is neither routed to nor judged for
 * collisions (excluding or renaming is how a flat collision is fixed).
 *
 * Routing reads it (a flat name is owned by whichever flat mount lists it:
 * never "try each until one does not say unknown", which would run a failing
 * tool's side effects twice), and so do collision checks: two mounts exposing
 * one name or URI fail the list that would show both, because a client has no
 * way to tell them apart and silently dropping one would be worse.
 */
export class CatalogueIndex {
  readonly owners: Record<ListKind, Map<string, Owner>> = {
    tools: new Map(),
    prompts: new Map(),
    resources: new Map(),
    resourceTemplates: new Map(),
    skills: new Map(),
  };
  /** Collisions and unservable names, per list. */
  readonly problems: Record<ListKind, Problem[]> = {
    tools: [],
    prompts: [],
    resources: [],
    resourceTemplates: [],
    skills: [],
  };
  /** Tools and prompts that differ from the lock (none without a lock). */
  readonly drifts: MountDrift[] = [];
  /** Withheld tools and prompts by composed name: a call to one is told why. */
  readonly withheld: Record<'tools' | 'prompts', Map<string, Drift>> = { tools: new Map(), prompts: new Map() };

  constructor(views: readonly MountView[], maxNameLength: number) {
    for (const kind of ALL_LIST_KINDS) {
      for (const view of views) {
        const { mount } = view;
        for (const item of mount.items[kind]) {
          const served = view.curate(kind, item);
          if (!served) continue;
          const own = keyOf(kind, item);
          const composed = keyOf(kind, served);
          if (isRenamed(kind)) {
            const renamed = view.curation.servedName(kind, own) !== own;
            const problem = composedNameProblem(
              kind,
              composed,
              own,
              mount.description,
              mount.spec.prefix,
              maxNameLength,
              renamed,
            );
            if (problem) this.problems[kind].push(problem);
            const drift = view.driftOf(kind, item, served);
            if (drift) {
              const withheld = view.withholds(kind, item, served);
              this.drifts.push({ mount, drift, withheld });
              if (withheld) {
                this.withheld[kind].set(composed, drift);
                continue;
              }
            }
          }
          const existing = this.owners[kind].get(composed);
          if (existing === undefined) this.owners[kind].set(composed, { mount, own, item, served });
          else if (existing.mount !== mount) this.problems[kind].push(collision(kind, composed, existing.mount, mount));
          else if (existing.own !== own)
            this.problems[kind].push(renameCollision(kind, composed, mount, existing.own, own));
        }
      }
    }
  }

  /** Every problem of every list: what preflight refuses. */
  get allProblems(): Problem[] {
    return ALL_LIST_KINDS.flatMap((kind) => this.problems[kind]);
  }
}

function collision(kind: ListKind, composed: string, first: Mount, second: Mount): Problem {
  const { noun } = LIST_KINDS[kind];
  const renamed = isRenamed(kind);
  const flatOne = [first, second].find((mount) => mount.spec.flat) ?? second;
  return {
    where: `${first.description} and ${second.description}`,
    what: `both expose the ${noun} "${composed}", and a client could not tell them apart.`,
    fix: renamed
      ? `mount ${flatOne.description} under a prefix (set "prefix" instead of "flat: true" in its config entry), or leave the ${noun} out of one entry (${kind}.exclude) or rename it there (${kind}.rename).`
      : servedUnderPrefix(composed)
        ? `mount ${flatOne.description} under a prefix (set "prefix" instead of "flat: true" in its config entry: its ui:// and skill:// URIs are then served under the prefix), or leave the ${noun} out of one entry (resources.exclude).`
        : `resource URIs are never rewritten, so leave the ${noun} out of one entry (resources.exclude), or remove it from one of the plugins.`,
  };
}

/** Two of one mount's items served under one name: a rename onto a name the plugin already uses. */
function renameCollision(kind: ListKind, composed: string, mount: Mount, first: string, second: string): Problem {
  const { noun } = LIST_KINDS[kind];
  return {
    where: mount.description,
    what: `its ${noun}s "${first}" and "${second}" would both be served as "${composed}" (by ${kind}.rename), and a client could not tell them apart.`,
    fix: `rename one of them to a name the plugin does not use, or exclude one (${kind}.exclude).`,
  };
}
