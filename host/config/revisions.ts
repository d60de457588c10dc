/**
 * A list of MCP revisions, as the host config's `protocolVersions` and a
 * plugin manifest's `"mcp-host".protocolVersions` both give one. An unknown
 * revision string is an error in either place: a typo would otherwise narrow
 * the range silently.
 */
import type { Problem } from '../errors.js';
import { DEFAULT_REVISIONS, isKnownRevision, KNOWN_REVISIONS } from '../protocol-versions.js';
import { closestMatch, describeValue, quotedChoices } from './problem-wording.js';

/** Every problem with `value` as a revision list; `where(index)` places one element, `where()` the list. */
export function revisionListProblems(value: unknown, where: (index?: number) => string): Problem[] {
  if (!Array.isArray(value) || value.length === 0) {
    return [
      {
        where: where(),
        what: `expected a non-empty array of MCP revisions, got ${describeValue(value)}.`,
        fix: `list the revisions, e.g. ${JSON.stringify(DEFAULT_REVISIONS.slice(-2))}, or leave it out: a host config then means every published revision, a plugin manifest every revision.`,
      },
    ];
  }
  const problems: Problem[] = [];
  value.forEach((revision: unknown, index) => {
    if (typeof revision === 'string' && isKnownRevision(revision)) return;
    const guess = typeof revision === 'string' ? closestMatch(revision, KNOWN_REVISIONS) : undefined;
    problems.push({
      where: where(index),
      what: `${describeValue(revision)} is not an MCP revision mcp-host knows.`,
      fix: guess ? `did you mean "${guess}"?` : `use one of ${quotedChoices(KNOWN_REVISIONS)}.`,
    });
  });
  return problems;
}
