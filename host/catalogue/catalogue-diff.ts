import type { Generation } from './generation.js';
import { stableJson } from '../stable-json.js';
import type { Identity } from '../vocabulary/identity.js';
import { accessViewOf, type AccessView } from './access-rules.js';
import { discoveryOf } from './virtual-server.js';
import {
  ALL_LIST_KINDS,
  changedListOf,
  type ChangedList,
  type ListItem,
  type ListKind,
} from '../vocabulary/list-kinds.js';

export interface KindDiff {
  added: string[];
  removed: string[];
  changed: string[];
}

/** What a reload changed, for `list_changed` and for the admin who asked. */
export interface CatalogueDiff {
  plugins: { added: string[]; removed: string[]; replaced: string[] };
  lists: Record<ListKind, KindDiff>;
  /** The lists whose clients must be told: empty when nothing a client sees changed. */
  changedLists: Set<ChangedList>;
}

/**
 * Items as JSON, computed once per item object: a mount a reload keeps
 * keeps its item objects too, so with many plugins mounted a reload
 * serialises only the items of the plugins it started.
 */
const itemJson = new WeakMap<ListItem, string>();

function jsonOf(item: ListItem): string {
  let json = itemJson.get(item);
  if (json === undefined) {
    json = JSON.stringify(item);
    itemJson.set(item, json);
  }
  return json;
}

/**
 * Every item a client of the generation sees, by composed key (curated, and
 * without what the pins policy withholds). An item as seen is its composed
 * key with its own JSON and the description its entry gives it, if any: the
 * key carries the renaming.
 */
function visible(generation: Generation, kind: ListKind, access?: AccessView): Map<string, string> {
  const entries = new Map<string, string>();
  for (const [key, { item, served }] of generation.index.owners[kind]) {
    if (access && !access.allows(kind, key)) continue;
    const described = served.description === item.description ? '' : `\0${String(served.description)}`;
    entries.set(key, jsonOf(item) + described);
  }
  return entries;
}

export function diffGenerations(before: Generation, after: Generation): CatalogueDiff {
  const lists = {} as Record<ListKind, KindDiff>;
  const changedLists = new Set<ChangedList>();
  for (const kind of ALL_LIST_KINDS) {
    const old = visible(before, kind);
    const now = visible(after, kind);
    const diff: KindDiff = {
      added: [...now.keys()].filter((key) => !old.has(key)),
      removed: [...old.keys()].filter((key) => !now.has(key)),
      changed: [...now.keys()].filter((key) => old.has(key) && old.get(key) !== now.get(key)),
    };
    lists[kind] = diff;
    if (diff.added.length + diff.removed.length + diff.changed.length > 0) {
      changedLists.add(changedListOf(kind));
    }
  }
  // How tools are listed (every tool, or search) is part of what a client's tools/list shows.
  if (stableJson(before.config.discovery) !== stableJson(after.config.discovery)) changedLists.add('tools');
  const oldMounts = new Map(before.mounts.map((m) => [m.name, m]));
  const newMounts = new Map(after.mounts.map((m) => [m.name, m]));
  return {
    plugins: {
      added: [...newMounts.keys()].filter((name) => !oldMounts.has(name)),
      removed: [...oldMounts.keys()].filter((name) => !newMounts.has(name)),
      replaced: [...newMounts].filter(([name, m]) => oldMounts.has(name) && oldMounts.get(name) !== m).map(([n]) => n),
    },
    lists,
    changedLists,
  };
}

/**
 * The lists whose change `identity` can see: those where what its access
 * rules let it see differs between the two generations (their rules may
 * differ too, after a reload).
 */
export function changedListsSeenBy(before: Generation, after: Generation, identity: Identity): Set<ChangedList> {
  const accessBefore = accessViewOf(before.config, identity);
  const accessAfter = accessViewOf(after.config, identity);
  const changed = new Set<ChangedList>();
  for (const kind of ALL_LIST_KINDS) {
    const old = visible(before, kind, accessBefore);
    const now = visible(after, kind, accessAfter);
    const same = old.size === now.size && [...now].every(([key, json]) => old.get(key) === json);
    if (!same) changed.add(changedListOf(kind));
  }
  // A virtual server's discovery may change alone: its clients' tools/list shows it.
  if (stableJson(discoveryOf(before.config, identity)) !== stableJson(discoveryOf(after.config, identity))) {
    changed.add('tools');
  }
  return changed;
}

/** `plugins added: a, b`, one line per kind of change that has any: for the log and for `mcp-host reload`. */
export function pluginChanges(plugins: CatalogueDiff['plugins']): string[] {
  return (['added', 'removed', 'replaced'] as const)
    .filter((key) => plugins[key].length > 0)
    .map((key) => `plugins ${key}: ${plugins[key].join(', ')}`);
}
