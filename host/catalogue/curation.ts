import { createRequire } from 'node:module';
import type Picomatch from 'picomatch';
import type { ItemCuration } from '../config/types.js';
import type { Problem } from '../errors.js';
import type { CurationConfig } from '../loader/types.js';
import { judgedAs, keyOf, type ListItem, type ListKind } from '../vocabulary/list-kinds.js';
import { uriNormalForm } from './uri-normal-form.js';
import { uriSpellingProblem } from './uri-spelling.js';

const require = createRequire(import.meta.url);
/** picomatch is loaded when a config first curates by glob: a host whose entries name no globs never reads it. */
const picomatch = (...args: Parameters<typeof Picomatch>) => (require('picomatch') as typeof Picomatch)(...args);

/** `*` matches names with dots too: a tool name is one word, not a path. */
const GLOB_OPTIONS = { dot: true } as const;

type Matcher = (name: string) => boolean;

/** Whether a name matches one of `globs`, as curation matches names (discovery's alwaysVisible too). */
export function nameMatcher(globs: string[]): Matcher {
  return picomatch(globs, GLOB_OPTIONS);
}

/** The part of an entry's curation that applies to one list. */
interface ListCuration {
  include?: Matcher;
  exclude?: Matcher;
  /** The plugin's name -> the name served. */
  rename: Map<string, string>;
  /** The name served -> the plugin's name. */
  renamedFrom: Map<string, string>;
  describe: Map<string, string>;
}

/**
 * What of one mount a generation serves (DESIGN.md, "Curation"): include and
 * exclude globs over the plugin's own names (or URIs), renames, replaced
 * descriptions. Globs are compiled once per generation by picomatch, so
 * judging a name costs one regular-expression test.
 *
 * Curation is the generation's, never the mount's: a kept plugin instance
 * serves under each generation's curation, so editing it re-creates nothing.
 */
export class Curation {
  private readonly lists: Record<'tools' | 'prompts' | 'resources', ListCuration>;

  /** `entryWhere` names the config entry, for warnings: `mcp-host.config.js: plugins[2]`. */
  constructor(
    readonly config: CurationConfig = {},
    private readonly entryWhere = 'plugin entry',
  ) {
    const compile = (globs: string[] | undefined) => (globs?.length ? nameMatcher(globs) : undefined);
    const listOf = (key: 'tools' | 'prompts' | 'resources'): ListCuration => {
      const section: ItemCuration = normalGlobs(key, config[key] ?? {});
      const rename = new Map(Object.entries(section.rename ?? {}));
      const describe = new Map(Object.entries(section.describe ?? {}));
      const renamedFrom = new Map([...rename].map(([own, served]) => [served, own]));
      return {
        ...(compile(section.include) && { include: compile(section.include)! }),
        ...(compile(section.exclude) && { exclude: compile(section.exclude)! }),
        rename,
        renamedFrom,
        describe,
      };
    };
    this.lists = { tools: listOf('tools'), prompts: listOf('prompts'), resources: listOf('resources') };
  }

  /**
   * Whether the item the plugin calls `own` (a name, URI or URI template) is
   * served. A URI is judged by its normal form, however it is spelled
   * (uri-normal-form.ts), as are the globs that judge it. A URI that URL
   * parsing reads as another (uri-spelling.ts) is served by no include or
   * exclude: a rule cannot tell which resource it names. Clients' URIs are
   * refused before this with a clearer answer; this keeps a plugin's own
   * listing of one out of a curated list too.
   */
  serves(kind: ListKind, own: string): boolean {
    const key = judgedAs(kind);
    const list = this.lists[key];
    if (list.include === undefined && list.exclude === undefined) return true;
    if (key !== 'resources') return (list.include === undefined || list.include(own)) && !list.exclude?.(own);
    if (uriSpellingProblem(own) !== undefined) return false;
    const judged = uriNormalForm(own);
    return (list.include === undefined || list.include(judged)) && !list.exclude?.(judged);
  }

  /** The name served for the plugin's `own`, before prefixing. */
  servedName(kind: 'tools' | 'prompts', own: string): string {
    return this.lists[kind].rename.get(own) ?? own;
  }

  /**
   * The plugin's own name for a served name (before prefixing), or undefined
   * when no served item has that name: it is curated out, or renamed away.
   */
  ownName(kind: 'tools' | 'prompts', served: string): string | undefined {
    const list = this.lists[kind];
    const own = list.renamedFrom.get(served) ?? (list.rename.has(served) ? undefined : served);
    return own !== undefined && this.serves(kind, own) ? own : undefined;
  }

  /** Whether the entry says which names exist (include, exclude or rename), not just how they are described. */
  definesNames(kind: 'tools' | 'prompts'): boolean {
    const list = this.lists[kind];
    return list.include !== undefined || list.exclude !== undefined || list.rename.size > 0;
  }

  /** The description served instead of the plugin's, if the entry replaces it. */
  description(kind: 'tools' | 'prompts', own: string): string | undefined {
    return this.lists[kind].describe.get(own);
  }

  /**
   * A glob, rename or description that matches none of the mount's items:
   * not an error (servers change between versions), but worth a warning,
   * since it most likely means a typo or a tool the plugin no longer has.
   */
  unmatched(items: Record<ListKind, ListItem[]>): Problem[] {
    const where = this.entryWhere;
    const warnings: Problem[] = [];
    for (const key of ['tools', 'prompts', 'resources'] as const) {
      const section = this.config[key];
      if (!section) continue;
      const own =
        key === 'resources'
          ? [
              ...items.resources.map((i) => keyOf('resources', i)),
              ...items.resourceTemplates.map((i) => keyOf('resourceTemplates', i)),
              ...items.skills.map((i) => keyOf('skills', i)),
            ]
          : items[key].map((i) => keyOf(key, i));
      const judged = key === 'resources' ? own.map(uriNormalForm) : own;
      const noun = key === 'resources' ? 'resource or template URI' : key.slice(0, -1) + ' name';
      for (const clause of ['include', 'exclude'] as const) {
        for (const glob of section[clause] ?? []) {
          const matches = picomatch(key === 'resources' ? uriNormalForm(glob) : glob, GLOB_OPTIONS);
          if (!judged.some((name) => matches(name))) {
            warnings.push({
              where: `${where}.${key}.${clause}`,
              what: `the glob "${glob}" matches no ${noun} the plugin serves.`,
              fix: `correct or remove it (the plugin serves: ${sample(own)}).`,
            });
          }
        }
      }
      if (key === 'resources') continue;
      for (const clause of ['rename', 'describe'] as const) {
        const names = new Set(own);
        for (const name of Object.keys((section as ItemCuration)[clause] ?? {})) {
          if (!names.has(name)) {
            warnings.push({
              where: `${where}.${key}.${clause}`,
              what: `"${name}" is not a ${noun} the plugin serves, so this ${clause} does nothing.`,
              fix: `use one of the plugin's own names, before prefixing (it serves: ${sample(own)}).`,
            });
          }
        }
      }
    }
    return warnings;
  }
}

/** A resources section's globs in the normal form of the URIs they judge (`SECRET://*` judges `secret://…`). */
function normalGlobs(key: 'tools' | 'prompts' | 'resources', section: ItemCuration): ItemCuration {
  if (key !== 'resources') return section;
  return {
    ...section,
    ...(section.include && { include: section.include.map(uriNormalForm) }),
    ...(section.exclude && { exclude: section.exclude.map(uriNormalForm) }),
  };
}

/** The first few names, for a message. */
function sample(names: readonly string[]): string {
  if (names.length === 0) return 'none';
  const shown = names.slice(0, 8).map((n) => `"${n}"`);
  return names.length > 8 ? `${shown.join(', ')} and ${names.length - 8} more` : shown.join(', ');
}
