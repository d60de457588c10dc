/**
 * The wording shared by every check that reports a problem in the host config,
 * a plugin's package.json or a plugin's definition, so that all refusals name
 * places and values the same way.
 */
import { basename } from 'node:path';
import type { Problem } from '../errors.js';

/**
 * Where a problem sits in the host config: `mcp-host.config.js: plugins[2].prefix`.
 * A config kept in package.json lives under its `"mcp-host"` key, so the path says so.
 */
export function configWhere(configFile: string, path?: string): string {
  const file = basename(configFile);
  const inPackageJson = file === 'package.json';
  if (!path) return inPackageJson ? `${file}: "mcp-host"` : file;
  return `${file}: ${inPackageJson ? `"mcp-host".${path}` : path}`;
}

/** A plugin named for messages: `plugin "@acme/mcp-weather" (plugins[2])`. */
export function pluginWhere(entryPath: string, label: string): string {
  return `plugin "${label}" (${entryPath})`;
}

/** A value as a message shows what it got: strings quoted, containers by kind. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
    case 'number':
    case 'boolean':
    case 'bigint':
    case 'undefined':
      return String(value);
    case 'function':
      return 'a function';
    default:
      return 'an object';
  }
}

/** A thrown error's message as the end of a sentence: with a final period, and no second one. */
export function endSentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** `"a", "b" or "c"`: the accepted values a message lists. */
export function quotedChoices(values: readonly string[], conjunction = 'or'): string {
  const quoted = values.map((value) => JSON.stringify(value));
  return quoted.length <= 1 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} ${conjunction} ${quoted.at(-1)}`;
}

/**
 * The candidate a mistyped word most likely meant: same letters in another
 * case, or at most two edits away (a third of the word for short words).
 */
export function closestMatch(word: string, candidates: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance <= Math.min(2, Math.ceil(candidate.length / 3)) && (!best || distance < best.distance)) {
      best = { candidate, distance };
    }
  }
  return best?.candidate;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** An unknown key is an error, never ignored: a typo would otherwise silently do nothing. */
export function unknownKeyProblem(where: string, key: string, knownKeys: readonly string[]): Problem {
  const guess = closestMatch(key, knownKeys);
  return {
    where,
    what: `unknown key "${key}".`,
    fix: guess
      ? `did you mean "${guess}"?`
      : `remove it; the keys allowed here are ${quotedChoices(knownKeys, 'and')}.`,
  };
}
