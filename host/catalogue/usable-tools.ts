import type { Identity } from '../vocabulary/identity.js';
import type { Owner } from './catalogue-index.js';
import type { Generation } from './generation.js';

/**
 * The tools an identity may use in a generation, by served name: the one
 * view that a search's results, a search-mode list and the 'auto' threshold
 * are all taken from, so that whatever decides what an identity may use
 * (curation and pins already, in the index; access rules, DESIGN.md
 * "Identity and access") applies to a search exactly as to `tools/list`.
 * A call is served for any of them, listed or not (routing.ts).
 *
 * Every identity may use every served tool until access rules narrow it:
 * `identity` is what they will be judged by.
 */
export function usableTools(generation: Generation, _identity: Identity): ReadonlyMap<string, Owner> {
  return generation.index.owners.tools;
}
