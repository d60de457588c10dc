import type { Separator } from '../config/types.js';
import type { Problem } from '../errors.js';
import type { Mount } from '../mounts/mount.js';
import { ALL_LIST_KINDS, LIST_KINDS, keyOf, type ListItem, type ListKind } from './list-kinds.js';
import { composedKey, composedNameProblem, isRenamed } from './names.js';

/** Who serves a composed name or URI, and under which name of its own. */
export interface Owner {
  mount: Mount;
  /** The mount's own name for it (the tool name before prefixing, or the URI). */
  own: string;
  /** The item as the mount lists it. */
  item: ListItem;
}

/**
 * Every composed name and URI of a generation, mapped to its owner, built
 * from the mounts' drained copies of their lists.
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
  };
  /** Collisions and unservable names, per list. */
  readonly problems: Record<ListKind, Problem[]> = { tools: [], prompts: [], resources: [], resourceTemplates: [] };

  constructor(mounts: readonly Mount[], separator: Separator, maxNameLength: number) {
    for (const kind of ALL_LIST_KINDS) {
      for (const mount of mounts) {
        for (const item of mount.items[kind]) {
          const own = keyOf(kind, item);
          const composed = composedKey(kind, own, mount.spec.prefix, separator);
          if (isRenamed(kind)) {
            const problem = composedNameProblem(
              kind,
              composed,
              own,
              mount.description,
              mount.spec.prefix,
              maxNameLength,
            );
            if (problem) this.problems[kind].push(problem);
          }
          const existing = this.owners[kind].get(composed);
          if (existing === undefined) this.owners[kind].set(composed, { mount, own, item });
          else if (existing.mount !== mount) this.problems[kind].push(collision(kind, composed, existing.mount, mount));
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
      ? `mount ${flatOne.description} under a prefix (set "prefix" instead of "flat: true" in its config entry).`
      : `resource URIs are never rewritten, so remove the ${noun} from one of the plugins or unmount one of them.`,
  };
}
