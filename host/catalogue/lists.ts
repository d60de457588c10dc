import { formatProblem } from '../errors.js';
import { ErrorCode, RpcError } from '../rpc-error.js';
import type { CallHooks } from '../vocabulary/call-hooks.js';
import type { Generation } from './generation.js';
import { LIST_KINDS, keyOf, type ListItem, type ListKind } from '../vocabulary/list-kinds.js';
import type { AccessView } from './access-rules.js';
import { decodeCursor, encodeCursor, type CursorState } from './cursor.js';
import { composedHint, type CacheHint } from '../vocabulary/cache-hints.js';

export interface ComposedPage {
  items: ListItem[];
  nextCursor?: string;
  /** Composed from the hints of the mounts' pages it was made of (see cache-hints.ts). */
  hint: CacheHint;
}

/**
 * One page of a composed list, fetched live from the mounts in config order.
 *
 * Without `pageSize` a page ends at the first mount that has more, so no
 * mount's `nextCursor` is dropped and a page may span several mounts. With
 * `pageSize` the host pages its own output, resuming mid-page of a mount by
 * refetching that page and skipping what it already served.
 *
 * With `access`, the page holds only what that view of the access rules
 * allows (its offsets count those items alone).
 */
export async function listPage(
  generation: Generation,
  kind: ListKind,
  cursor: string | undefined,
  hooks?: CallHooks,
  access?: AccessView,
): Promise<ComposedPage> {
  const problems = generation.index.problems[kind];
  if (problems.length > 0) {
    throw new RpcError(ErrorCode.InternalError, problems.map(formatProblem).join('\n'));
  }
  const start: CursorState =
    cursor === undefined ? { g: generation.id, m: 0 } : decodeCursor(cursor, generation.id, generation.mounts.length);
  const pageSize = generation.config.pageSize ?? Number.POSITIVE_INFINITY;
  const items: ListItem[] = [];
  const hints: (CacheHint | undefined)[] = [];

  for (let m = start.m; m < generation.mounts.length; m++) {
    const mount = generation.mounts[m]!;
    if (!mount.isUp || !mount.provides(kind)) continue; // a down mount's lists are withdrawn
    const view = generation.viewOf(mount);
    let mountCursor = m === start.m ? start.c : undefined;
    let skip = m === start.m ? (start.o ?? 0) : 0;
    for (let pages = 0; pages < mount.spec.maxListPages; pages++) {
      const page = await mount.list(kind, mountCursor, hooks);
      hints.push(page.hint);
      const presented = view.presentPage(kind, page);
      const allowed = access ? presented.filter((item) => access.allows(kind, keyOf(kind, item))) : presented;
      const fresh = allowed.slice(skip);
      const room = pageSize - items.length;
      if (fresh.length > room) {
        items.push(...fresh.slice(0, room));
        return {
          items,
          nextCursor: encodeCursor(cursorAt(generation.id, m, mountCursor, skip + room)),
          hint: composedHint(hints),
        };
      }
      items.push(...fresh);
      if (page.nextCursor === undefined) break;
      if (items.length >= pageSize || pageSize === Number.POSITIVE_INFINITY) {
        return {
          items,
          nextCursor: encodeCursor(cursorAt(generation.id, m, page.nextCursor, 0)),
          hint: composedHint(hints),
        };
      }
      mountCursor = page.nextCursor;
      skip = 0;
    }
  }
  return { items, hint: composedHint(hints) };
}

function cursorAt(g: number, m: number, c: string | undefined, o: number): CursorState {
  return { g, m, ...(c === undefined ? {} : { c }), ...(o > 0 ? { o } : {}) };
}

/** The result field for a kind: `{ tools: [...] }`, `{ resourceTemplates: [...] }`. */
export function asListResult(kind: ListKind, page: ComposedPage): Record<string, unknown> {
  return {
    [LIST_KINDS[kind].field]: page.items,
    ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
  };
}
