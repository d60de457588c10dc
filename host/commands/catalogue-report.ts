import type { Generation } from '../catalogue/generation.js';
import { ALL_LIST_KINDS, keyOf, type ListKind } from '../vocabulary/list-kinds.js';
import type { Mount } from '../mounts/mount.js';
import { virtualServerOf } from '../catalogue/virtual-server.js';
import { MCP_PATH } from '../serve/listen-address.js';

const HEADINGS: Record<ListKind, string> = {
  tools: 'tools',
  prompts: 'prompts',
  resources: 'resources',
  resourceTemplates: 'templates',
  skills: 'skills',
};

/** A mount's items under the names clients see (curated, shortened, without withheld ones). */
function exposed(generation: Generation, mount: Mount, kind: ListKind): string[] {
  return generation.served(mount, kind).map((item) => keyOf(kind, item));
}

const ISOLATION_WORDS = {
  none: 'in-process',
  worker: 'in a worker',
  process: 'in its own process',
  sandbox: 'in a sandbox',
} as const;

function mountHeader(mount: Mount): string {
  const spec = mount.spec;
  const how = spec.prefix === undefined ? 'flat' : `prefix "${spec.prefix}"`;
  const what =
    spec.kind === 'in-process' ? `${spec.packageName}@${spec.version}` : spec.kind === 'stdio' ? spec.label : spec.url;
  const where = spec.kind === 'in-process' ? ISOLATION_WORDS[spec.isolation] : spec.kind;
  return `${mount.name}  (${what}, ${where}, ${how}${mount.isUp ? '' : ', down'})`;
}

/** The composed catalogue by mount, for people. */
export function formatCatalogue(generation: Generation): string {
  const lines: string[] = [];
  for (const mount of generation.mounts) {
    lines.push(mountHeader(mount));
    const listed = (face: Mount, view: Generation, era = '') =>
      ALL_LIST_KINDS.flatMap((kind) => {
        const names = exposed(view, face, kind);
        return names.length > 0 ? [`  ${HEADINGS[kind]}${era}: ${names.join(', ')}`] : [];
      });
    const face = mount.legacyFace;
    // An upstream of two eras that shows each its own catalogue has both listed, each under its era.
    const same = !face || listed(mount, generation).join() === listed(face, generation.view('legacy')).join();
    if (same) lines.push(...listed(mount, generation));
    else
      lines.push(
        ...listed(mount, generation, ' (2026-07-28)'),
        ...listed(face, generation.view('legacy'), ' (2025-era)'),
      );
  }
  return lines.join('\n');
}

/** Each virtual server's members (docs/virtual-servers.md), for people: what its clients are served, access rules aside. */
export function formatServers(generation: Generation): string {
  return Object.keys(generation.config.servers ?? {})
    .map((name) => {
      const server = virtualServerOf(generation.config, name)!;
      const path = name === 'default' ? `${MCP_PATH} and ${MCP_PATH}/default` : `${MCP_PATH}/${name}`;
      const lines = ALL_LIST_KINDS.flatMap((kind) => {
        const members = [...generation.index.owners[kind].keys()].filter((key) => server.includes(kind, key));
        return members.length > 0 ? [`  ${HEADINGS[kind]}: ${members.join(', ')}`] : [];
      });
      return [`virtual server ${name}  (${path})`, ...(lines.length > 0 ? lines : ['  (no members)'])].join('\n');
    })
    .join('\n');
}

/** One line of totals: `12 tools, 2 prompts, 3 resources, 1 template from 2 plugins`. */
export function formatTotals(generation: Generation): string {
  const count = (kind: ListKind) => generation.mounts.reduce((n, m) => n + generation.served(m, kind).length, 0);
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
      tools: generation.served(mount, 'tools'),
      prompts: generation.served(mount, 'prompts'),
      resources: generation.served(mount, 'resources'),
      resourceTemplates: generation.served(mount, 'resourceTemplates'),
    })),
  };
}
