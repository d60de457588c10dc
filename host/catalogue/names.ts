import type { Separator } from '../config/types.js';
import type { Problem } from '../errors.js';
import type { ListKind } from './list-kinds.js';

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

/** Tools and prompts are renamed by a mount's prefix; resource URIs and templates never are. */
export function isRenamed(kind: ListKind): kind is 'tools' | 'prompts' {
  return kind === 'tools' || kind === 'prompts';
}

/** The key a client sees for a mount's item: its name under the mount's prefix, or its URI as it is. */
export function composedKey(kind: ListKind, own: string, prefix: string | undefined, separator: Separator): string {
  return isRenamed(kind) ? qualify(prefix, own, separator) : own;
}

/** Why a composed tool or prompt name cannot be served, or undefined when it can. */
export function composedNameProblem(
  kind: ListKind,
  composed: string,
  own: string,
  mountDescription: string,
  prefix: string | undefined,
  maxNameLength: number,
): Problem | undefined {
  const noun = kind === 'tools' ? 'tool' : 'prompt';
  if (composed.length > maxNameLength) {
    return {
      where: mountDescription,
      what: `${noun} "${own}" is exposed as "${composed}", ${composed.length} characters, over maxNameLength ${maxNameLength}.`,
      fix:
        prefix === undefined
          ? `rename the ${noun} in the plugin, or raise maxNameLength (the spec allows 128).`
          : `mount it under a shorter prefix than "${prefix}", or raise maxNameLength (the spec allows 128).`,
    };
  }
  if (kind === 'tools' && !TOOL_NAME.test(composed)) {
    return {
      where: mountDescription,
      what: `tool "${own}" is exposed as "${composed}", which has characters outside the spec's tool-name set [A-Za-z0-9_.-].`,
      fix: 'rename the tool in the plugin using only letters, digits, "_", "-" and ".".',
    };
  }
  return undefined;
}
