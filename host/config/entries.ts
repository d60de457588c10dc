/**
 * What a plugin entry is: which kind (a package, a command or a URL), and how
 * messages and suggested prefixes name it. Shared by config validation and
 * plugin resolution.
 */

/** The keys that say what an entry runs; an entry has exactly one. */
export const ENTRY_KINDS = ['package', 'command', 'url'] as const;

export type EntryKind = (typeof ENTRY_KINDS)[number];

type EntryLike = Partial<Record<EntryKind | 'args', unknown>>;

/** The kinds an entry names; valid entries name exactly one. */
export function kindsNamedBy(entry: EntryLike): EntryKind[] {
  return ENTRY_KINDS.filter((kind) => entry[kind] !== undefined);
}

/** A human name for an entry: its package, its command line, or its URL. */
export function entryLabel(entry: EntryLike): string {
  if (typeof entry.package === 'string') return entry.package;
  if (typeof entry.command === 'string') return [entry.command, ...stringArgs(entry)].join(' ');
  if (typeof entry.url === 'string') return entry.url;
  return 'plugin';
}

/**
 * The name a suggested prefix is made from: the package, the last word of a
 * command line (`uvx mcp-server-time` → `mcp-server-time`), or the URL.
 */
export function prefixHint(entry: EntryLike): string {
  if (typeof entry.command === 'string') {
    return (
      stringArgs(entry)
        .filter((arg) => !arg.startsWith('-'))
        .at(-1) ?? entry.command
    );
  }
  return entryLabel(entry);
}

function stringArgs(entry: EntryLike): string[] {
  return Array.isArray(entry.args) ? entry.args.filter((arg): arg is string => typeof arg === 'string') : [];
}
