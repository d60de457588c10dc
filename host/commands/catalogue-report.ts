import type { Generation } from '../catalogue/generation.js';
import { ALL_LIST_KINDS, keyOf, type ListKind } from '../catalogue/list-kinds.js';
import { composedKey } from '../catalogue/names.js';
import type { Mount } from '../mounts/mount.js';

const HEADINGS: Record<ListKind, string> = {
  tools: 'tools',
  prompts: 'prompts',
  resources: 'resources',
  resourceTemplates: 'templates',
};

/** A mount's items under the names clients see. */
function exposed(generation: Generation, mount: Mount, kind: ListKind): string[] {
  return mount.items[kind].map((item) =>
    composedKey(kind, keyOf(kind, item), mount.spec.prefix, generation.config.separator),
  );
}

function mountHeader(mount: Mount): string {
  const spec = mount.spec;
  const how = spec.prefix === undefined ? 'flat' : `prefix "${spec.prefix}"`;
  const what =
    spec.kind === 'in-process' ? `${spec.packageName}@${spec.version}` : spec.kind === 'stdio' ? spec.label : spec.url;
  const where = spec.kind === 'in-process' && spec.isolation === 'worker' ? 'in a worker' : spec.kind;
  return `${mount.name}  (${what}, ${where}, ${how}${mount.isUp ? '' : ', down'})`;
}

/** The composed catalogue by mount, for people. */
export function formatCatalogue(generation: Generation): string {
  const lines: string[] = [];
  for (const mount of generation.mounts) {
    lines.push(mountHeader(mount));
    for (const kind of ALL_LIST_KINDS) {
      const names = exposed(generation, mount, kind);
      if (names.length > 0) lines.push(`  ${HEADINGS[kind]}: ${names.join(', ')}`);
    }
  }
  return lines.join('\n');
}

/** One line of totals: `12 tools, 2 prompts, 3 resources, 1 template from 2 plugins`. */
export function formatTotals(generation: Generation): string {
  const count = (kind: ListKind) => generation.mounts.reduce((n, m) => n + m.items[kind].length, 0);
  const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
  return (
    [
      plural(count('tools'), 'tool'),
      plural(count('prompts'), 'prompt'),
      plural(count('resources'), 'resource'),
      plural(count('resourceTemplates'), 'template'),
    ].join(', ') + ` from ${plural(generation.mounts.length, 'plugin')}`
  );
}

/** The composed catalogue by mount, for programs (`mcp-host list --json`). */
export function catalogueJson(generation: Generation): unknown {
  return {
    mounts: generation.mounts.map((mount) => ({
      name: mount.name,
      kind: mount.spec.kind,
      prefix: mount.spec.prefix ?? null,
      flat: mount.spec.flat,
      source: mount.spec.label,
      serverInfo: mount.handshake.serverInfo,
      tools: renamed(generation, mount, 'tools'),
      prompts: renamed(generation, mount, 'prompts'),
      resources: mount.items.resources,
      resourceTemplates: mount.items.resourceTemplates,
    })),
  };
}

function renamed(generation: Generation, mount: Mount, kind: 'tools' | 'prompts'): unknown[] {
  const names = exposed(generation, mount, kind);
  return mount.items[kind].map((item, i) => ({ ...item, name: names[i] }));
}
