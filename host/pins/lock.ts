import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ListItem } from '../vocabulary/list-kinds.js';
import { uiResourceOf } from '../vocabulary/served-uris.js';
import { HostError, describeThrown } from '../errors.js';
import { isPlainObject } from '../plain-object.js';
import { stableJson } from '../stable-json.js';

export const LOCK_FILE_NAME = 'mcp-host.lock.json';

/** The lists whose definitions are pinned: what a model reads and acts on. */
export type PinnedKind = 'tools' | 'prompts';
export const PINNED_KINDS: readonly PinnedKind[] = ['tools', 'prompts'];

/**
 * The fields of a definition that are pinned, per kind: everything that
 * tells a model what an item does, and for a tool the UI it shows its user
 * (`ui`: the MCP Apps resource its `_meta` names, as clients see it).
 */
export const DEFINITION_FIELDS: Record<PinnedKind, readonly string[]> = {
  tools: ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations', 'ui'],
  prompts: ['name', 'title', 'description', 'arguments'],
};

/** Pinned fields that are not a field of the item itself; a tool without a UI pins none, so its hash is as before. */
const DERIVED_FIELDS: Record<string, (item: ListItem) => unknown> = { ui: uiResourceOf };

export interface PinnedDefinition {
  hash: string;
  /** The definition itself, so that `pin --diff` can say what changed and how. */
  definition: Record<string, unknown>;
}

/** Per mount (its prefix, or its package, command or URL when flat), per served name. */
export type LockedMounts = Record<string, Partial<Record<PinnedKind, Record<string, PinnedDefinition>>>>;

export interface Lock {
  file: string;
  mounts: LockedMounts;
}

/** The lock file of a config: beside it, so that it is committed with it. */
export function lockFileOf(configFile: string): string {
  return join(dirname(configFile), LOCK_FILE_NAME);
}

/** A served item's pinned fields, as clients see them (after curation). */
export function definitionOf(kind: PinnedKind, item: ListItem): Record<string, unknown> {
  const fields = DEFINITION_FIELDS[kind].map((f) => [f, DERIVED_FIELDS[f] ? DERIVED_FIELDS[f](item) : item[f]]);
  return Object.fromEntries(fields.filter(([, value]) => value !== undefined));
}

/** Key order does not change the hash; any change to any pinned field does. */
export function hashDefinition(definition: Record<string, unknown>): string {
  return `sha256:${createHash('sha256').update(stableJson(definition)).digest('hex')}`;
}

export function pin(kind: PinnedKind, item: ListItem): PinnedDefinition {
  const definition = definitionOf(kind, item);
  return { hash: hashDefinition(definition), definition };
}

/** The lock beside the config, or undefined when there is none (nothing is pinned). */
export async function readLock(configFile: string): Promise<Lock | undefined> {
  const file = lockFileOf(configFile);
  if (!existsSync(file)) return undefined;
  const refuse = (what: string) =>
    new HostError({
      where: file,
      what,
      fix: `review the served definitions and write it again with mcp-host pin, or delete it to stop pinning.`,
    });
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw refuse(`cannot be read as JSON: ${describeThrown(error)}.`);
  }
  if (!isPlainObject(parsed) || parsed.lockfileVersion !== 1 || !isPlainObject(parsed.mounts)) {
    throw refuse('is not an mcp-host lock (expected { "lockfileVersion": 1, "mounts": { … } }).');
  }
  for (const [mount, lists] of Object.entries(parsed.mounts)) {
    const wellFormed =
      isPlainObject(lists) &&
      PINNED_KINDS.every(
        (kind) =>
          lists[kind] === undefined ||
          (isPlainObject(lists[kind]) &&
            Object.values(lists[kind]).every(
              (p) => isPlainObject(p) && typeof p.hash === 'string' && isPlainObject(p.definition),
            )),
      );
    if (!wellFormed) throw refuse(`has a malformed entry for the mount "${mount}".`);
  }
  return { file, mounts: parsed.mounts as LockedMounts };
}

export async function writeLock(file: string, mounts: LockedMounts): Promise<void> {
  await writeFile(file, `${JSON.stringify({ lockfileVersion: 1, mounts }, null, 2)}\n`);
}
