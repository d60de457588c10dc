/**
 * Mount prefixes (DESIGN.md, "Composition rules"): `[A-Za-z0-9_-]+`, never
 * containing the separator, used once. The same rules apply to a prefix in
 * the host config and to one a plugin's package.json declares.
 */
import type { Problem } from '../errors.js';
import { describeValue, quotedChoices } from './problem-wording.js';
import type { Separator } from './types.js';

const PREFIX_CHARACTERS = /^[A-Za-z0-9_-]+$/;
const ALLOWED = 'letters, digits, "_" and "-"';

/**
 * Why `prefix` cannot be a mount prefix, or undefined when it can. `nameHint`
 * (a package name, a command) is where a suggested prefix comes from.
 * `separator` is undefined when the config's own separator is invalid: that
 * is reported on its own, and the prefix is then checked for characters only.
 */
export function prefixProblem(
  prefix: unknown,
  separator: Separator | undefined,
  where: string,
  nameHint: string,
): Problem | undefined {
  if (typeof prefix !== 'string') {
    return {
      where,
      what: `expected a string of ${ALLOWED}, got ${describeValue(prefix)}.`,
      fix: `e.g. prefix: "${suggestPrefix(nameHint, separator)}", or flat: true to mount with names unchanged.`,
    };
  }
  if (prefix === '') {
    return {
      where,
      what: 'the prefix is empty.',
      fix: `use ${ALLOWED}, e.g. "${suggestPrefix(nameHint, separator)}", or flat: true to mount with names unchanged.`,
    };
  }
  const suggestion = suggestPrefix(prefix, separator);
  if (separator !== undefined && prefix.includes(separator)) {
    return {
      where,
      what: `"${prefix}" contains the separator "${separator}".`,
      // '.' is not a prefix character at all; "_" is, but a composed name is
      // split at the separator, so a prefix containing it could not be split back.
      fix:
        separator === '.'
          ? `use only ${ALLOWED}, e.g. "${suggestion}".`
          : `remove "${separator}" from it, e.g. "${suggestion}": composed names are split at the separator.`,
    };
  }
  if (!PREFIX_CHARACTERS.test(prefix)) {
    const invalid = [...new Set(prefix.replace(/[A-Za-z0-9_-]/g, ''))];
    return {
      where,
      what: `"${prefix}" contains ${quotedChoices(invalid, 'and')}; a prefix is only ${ALLOWED}.`,
      fix: `use e.g. "${suggestion}".`,
    };
  }
  return undefined;
}

/**
 * A valid prefix made from a name: `@acme/mcp-weather` → `weather`,
 * `./plugins/clock` → `clock`, `we.ather` → `weather`.
 */
export function suggestPrefix(name: string, separator: Separator | undefined): string {
  const lastSegment = name.split(/[\\/]/).filter(Boolean).at(-1) ?? name;
  const withoutMcpWords = lastSegment
    .replace(/^(mcp-server-|mcp-|server-)/, '')
    .replace(/(-mcp-server|-mcp|-server)$/, '');
  let cleaned = withoutMcpWords.replace(/[^A-Za-z0-9_-]/g, '');
  if (separator !== undefined) cleaned = cleaned.split(separator).join('');
  return cleaned || 'plugin';
}

/** The refusal of a prefix some earlier entry already uses. */
export function duplicatePrefixProblem(
  where: string,
  prefix: string,
  declaredByPackage: boolean,
  first: { path: string; label: string },
): Problem {
  return {
    where,
    what: `the prefix "${prefix}"${declaredByPackage ? ' (declared by its package.json)' : ''} is already used by ${first.path} ("${first.label}").`,
    fix: `give one of the two another prefix (an entry's prefix overrides its package's), or mount one with flat: true.`,
  };
}
