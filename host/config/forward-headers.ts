/**
 * `forwardHeaders`: the one way a client's credentials reach a plugin or an
 * upstream. By default a client's HTTP headers stop at the host: a mount
 * serves every client through one shared connection, and a header meant
 * for the host (or for another mount) must not leak to it. A mount that
 * authenticates each user itself names the headers it needs:
 *
 *   forwardHeaders: ['X-Tenant']                              // as they come
 *   forwardHeaders: { Authorization: 'X-Weather-Authorization' } // renamed
 *
 * The object form is for a host that checks its own bearer token: the
 * client's `Authorization` then holds the host's token, which the host
 * never passes on (the spec's "token passthrough" anti-pattern), so the
 * client sends the upstream's credential in a header of its own and the
 * host renames it. (IBM ContextForge's passthrough headers and its
 * X-Upstream-Authorization solve the same problem the same way.)
 */
import type { Problem } from '../errors.js';
import { isPlainObject } from '../plain-object.js';
import { describeValue } from './problem-wording.js';
import type { ForwardHeaders } from './types.js';

/** One header a mount receives: `from` the client's request (lower case), sent `as` this name. */
export interface ForwardedHeader {
  from: string;
  as: string;
}

/** RFC 9110's token: what a header name may be made of. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Headers that belong to the host's own connection to the upstream (its
 * session, its negotiated revision, the body's framing) or to HTTP itself:
 * a client's value for them would break that connection, not authenticate it.
 */
const CONNECTION_HEADERS = new Set([
  'accept',
  'connection',
  'content-length',
  'content-type',
  'host',
  'keep-alive',
  'last-event-id',
  'mcp-protocol-version',
  'mcp-session-id',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** The pairs a valid `forwardHeaders` names, in config order. */
export function forwardedHeadersOf(value: ForwardHeaders | undefined): ForwardedHeader[] {
  return (headerPairs(value) ?? []).map(([as, from]) => ({ from: String(from).toLowerCase(), as: String(as) }));
}

/** `[sent as, from the client]` for each header named: a name alone is both; undefined for neither form. */
function headerPairs(value: unknown): (readonly [unknown, unknown])[] | undefined {
  if (Array.isArray(value)) return value.map((name: unknown) => [name, name] as const);
  return isPlainObject(value) ? Object.entries(value) : undefined;
}

/** What is wrong with an entry's `forwardHeaders`, each problem worded for `where`. */
export function forwardHeadersProblems(
  value: unknown,
  where: string,
  context: { staticHeaders: unknown; hostChecksTokens: boolean },
): Problem[] {
  const shapeFix =
    'list the client\'s headers to pass on, e.g. forwardHeaders: ["X-Tenant"], or rename them, e.g. forwardHeaders: { Authorization: "X-Weather-Authorization" }.';
  const pairs = headerPairs(value);
  if (!pairs) {
    return [
      {
        where,
        what: `expected an array of header names or an object of them, got ${describeValue(value)}.`,
        fix: shapeFix,
      },
    ];
  }
  const problems: Problem[] = [];
  const sent = new Set<string>();
  const staticNames = new Set(
    isPlainObject(context.staticHeaders) ? Object.keys(context.staticHeaders).map((name) => name.toLowerCase()) : [],
  );
  for (const [as, from] of pairs) {
    const bad = [as, from].find((name) => typeof name !== 'string' || !HEADER_NAME.test(name));
    if (bad !== undefined) {
      problems.push({ where, what: `${describeValue(bad)} is not an HTTP header name.`, fix: shapeFix });
      continue;
    }
    const name = (as as string).toLowerCase();
    if (CONNECTION_HEADERS.has(name)) {
      problems.push({
        where,
        what: `"${as}" belongs to mcp-host's own connection to the upstream; a client's value for it cannot be passed on.`,
        fix: `remove "${as}" from forwardHeaders.`,
      });
    } else if (sent.has(name)) {
      problems.push({ where, what: `sets "${as}" twice.`, fix: `forward one client header as "${as}".` });
    } else if (staticNames.has(name)) {
      problems.push({
        where,
        what: `"${as}" is set both by headers (for every request) and by forwardHeaders (from the client).`,
        fix: `keep one: headers for a credential the host holds, forwardHeaders for one each client brings.`,
      });
    }
    sent.add(name);
    if (context.hostChecksTokens && (from as string).toLowerCase() === 'authorization') {
      problems.push({
        where,
        what: "forwards the client's Authorization header, but with http.auth or http.oauth that header carries the client's token for mcp-host itself, which the host never passes on.",
        fix: `have clients send the upstream's credential in a header of their own, and rename it: forwardHeaders: { ${JSON.stringify(as)}: "X-Upstream-Authorization" }.`,
      });
    }
  }
  return problems;
}
