import { createHash } from 'node:crypto';
import type { Separator } from '../config/types.js';
import type { Problem } from '../errors.js';
import type { ListKind } from '../vocabulary/list-kinds.js';

/**
 * The spec's tool-name charset (2025-11-25, "Tool names"): letters, digits,
 * `_`, `-` and `.`. A composed name outside it is refused at preflight rather
 * than served to a client that would reject it.
 */
const TOOL_NAME = /^[A-Za-z0-9_.-]+$/;

/** `weather` + `.` + `forecast` → `weather.forecast`; a flat mount keeps the name. */
export function qualify(prefix: string | undefined, name: string, separator: Separator): string {
  return prefix === undefined ? name : `${prefix}${separator}${name}`;
}

/** Tools and prompts are renamed by a mount's prefix; resource URIs and templates are not (but see served-uris.ts). */
export function isRenamed(kind: ListKind): kind is 'tools' | 'prompts' {
  return kind === 'tools' || kind === 'prompts';
}

/** Hex digits of hash a shortened name ends with: one clash in about 4 billion pairs. */
const SHORT_HASH_LENGTH = 8;

/**
 * A composed name cut to `maxNameLength` (`shortenNames: true`): a readable
 * head, `_`, and a hash of the whole name. It depends on the name alone, so
 * it is the same at every start and on every replica, and two long names
 * sharing a head still differ.
 */
export function shortenName(composed: string, maxNameLength: number): string {
  if (composed.length <= maxNameLength) return composed;
  const hash = createHash('sha256').update(composed).digest('hex').slice(0, SHORT_HASH_LENGTH);
  const head = composed.slice(0, Math.max(0, maxNameLength - SHORT_HASH_LENGTH - 1));
  return head === '' ? hash.slice(0, maxNameLength) : `${head}_${hash}`;
}

/**
 * Why a composed tool or prompt name cannot be served, or undefined when it
 * can. `renamed` is set when the entry's `rename` chose the name, which is
 * then where the fix belongs.
 */
export function composedNameProblem(
  kind: ListKind,
  composed: string,
  own: string,
  mountDescription: string,
  prefix: string | undefined,
  maxNameLength: number,
  renamed = false,
): Problem | undefined {
  const noun = kind === 'tools' ? 'tool' : 'prompt';
  const renameFix = `change its rename in the entry's ${kind}.rename`;
  if (composed.length > maxNameLength) {
    return {
      where: mountDescription,
      what: `${noun} "${own}" is exposed as "${composed}", ${composed.length} characters, over maxNameLength ${maxNameLength}.`,
      fix:
        (renamed
          ? `${renameFix}, `
          : prefix === undefined
            ? `rename the ${noun} (${kind}.rename in its entry), `
            : `mount it under a shorter prefix than "${prefix}", `) +
        'set shortenNames: true, or raise maxNameLength (the spec allows 128).',
    };
  }
  if (kind === 'tools' && !TOOL_NAME.test(composed)) {
    return {
      where: mountDescription,
      what: `tool "${own}" is exposed as "${composed}", which has characters outside the spec's tool-name set [A-Za-z0-9_.-].`,
      fix: `${renamed ? renameFix : 'rename the tool (tools.rename in its entry, or in the plugin)'} using only letters, digits, "_", "-" and ".".`,
    };
  }
  return undefined;
}
