import type { Identity } from '../vocabulary/identity.js';
import { accessViewOf, narrowsViews } from './access-rules.js';
import type { Owner } from './catalogue-index.js';
import type { Generation } from './generation.js';

/** Per generation, the usable tools of each view (`AccessView.key`: virtual server and matching rules). */
const narrowed = new WeakMap<Generation, Map<string, ReadonlyMap<string, Owner>>>();

/**
 * The tools an identity may use in a generation, by served name: the one
 * view that a search's results, a search-mode list and the 'auto' threshold
 * are all taken from, so that whatever decides what an identity may use
 * (curation and pins, in the index; the access rules, access-rules.ts)
 * applies to a search exactly as to `tools/list`. A call is served for any
 * of them, listed or not (routing.ts).
 *
 * Without access rules or virtual servers every identity may use every
 * served tool. With them, the view is made once per generation and view key
 * (virtual server and set of matching rules): every identity of the same
 * key shares it, as it shares their list pages.
 */
export function usableTools(generation: Generation, identity: Identity): ReadonlyMap<string, Owner> {
  const all = generation.index.owners.tools;
  if (!narrowsViews(generation.config)) return all;
  const view = accessViewOf(generation.config, identity);
  let byRules = narrowed.get(generation);
  if (!byRules) narrowed.set(generation, (byRules = new Map()));
  let usable = byRules.get(view.key);
  if (!usable) {
    usable = new Map([...all].filter(([name]) => view.allows('tools', name)));
    byRules.set(view.key, usable);
  }
  return usable;
}
