import { specTypeSchemas, type SpecTypeName } from '@modelcontextprotocol/server';
import { describeThrown, type Problem } from '../errors.js';
import { recordCheckedText } from '../vocabulary/checked-result-text.js';

/** How to fix a result over a mount's `maxResultBytes`, wherever it is caught. */
export const TOO_BIG_FIX =
  "return less (page it, or link to a resource), or raise maxResultBytes on the plugin's entry in the host config.";

/** The MCP result type of each method whose answers the host reads or passes on to clients. */
const RESULT_TYPES: Partial<Record<string, SpecTypeName>> = {
  'tools/call': 'CallToolResult',
  'prompts/get': 'GetPromptResult',
  'resources/read': 'ReadResourceResult',
  'completion/complete': 'CompleteResult',
  'tools/list': 'ListToolsResult',
  'prompts/list': 'ListPromptsResult',
  'resources/list': 'ListResourcesResult',
  'resources/templates/list': 'ListResourceTemplatesResult',
};

/**
 * Why an upstream's answer to `method` cannot be passed on, or undefined
 * when it can. A result is bounded (`maxResultBytes`, serialised), must be
 * JSON, and must match the MCP schema for its method: a malformed result
 * would otherwise reach the client as a schema failure naming nothing, and a
 * malformed list item would break every client's list.
 *
 * The result itself is never replaced by the schema's parse (which would
 * strip fields the host does not know): it passes on whole, or not at all.
 *
 * `lastValid`, given for a list page, holds the JSON text of the page last
 * found valid: a page with that very text is valid again without its
 * schema being checked (for 10,000 tools the check costs 5 ms of a 45 ms
 * list; the text is made for the size bound anyway). A list a plugin does
 * not announce changes to is fetched for every client's request, and is
 * mostly the same list each time. What a client receives of the page is
 * that text, so it cannot be malformed.
 */
export function resultProblem(
  method: string,
  result: unknown,
  maxBytes: number,
  lastValid?: { text?: string },
): Omit<Problem, 'where'> | undefined {
  let text: string;
  let bytes: number;
  try {
    text = JSON.stringify(result);
    // A text of n UTF-16 code units is at most 3n bytes of UTF-8: only one that could be over the bound is measured.
    bytes = typeof text === 'string' && text.length * 3 <= maxBytes ? 0 : Buffer.byteLength(text);
  } catch (error) {
    return {
      what: `answered ${method} with a result that cannot be sent as JSON (${describeThrown(error)}).`,
      fix: 'fix the plugin: a result must be plain JSON (no cycles, BigInts, or nesting deeper than the stack).',
    };
  }
  if (bytes > maxBytes) {
    return {
      what: `answered ${method} with a result of ${bytes} bytes, over its limit of ${maxBytes} bytes.`,
      fix: TOO_BIG_FIX,
    };
  }
  if ((result as { resultType?: unknown }).resultType === 'input_required') return inputRequiredProblem(method, result);
  const type = RESULT_TYPES[method];
  if (method === 'skills/list') return skillsListProblem(result);
  if (!type || lastValid?.text === text) return undefined;
  const outcome = specTypeSchemas[type]['~standard'].validate(result);
  if (outcome instanceof Promise) return undefined;
  if (!outcome.issues) {
    // A list page's text is kept by its mount; a call's, get's or read's goes with the result to the wire.
    if (lastValid) lastValid.text = text;
    else recordCheckedText(result as object, text);
    return undefined;
  }
  const [first] = outcome.issues;
  const path = (first?.path ?? [])
    .map((segment) => String(typeof segment === 'object' ? segment.key : segment))
    .join('.');
  const more = outcome.issues.length > 1 ? ` (and ${outcome.issues.length - 1} more)` : '';
  return {
    what: `answered ${method} with a result that is not a valid MCP ${type}: ${path ? `${path}: ` : ''}${first?.message ?? 'invalid'}${more}.`,
    fix: 'fix the plugin: its results must follow the MCP schema.',
  };
}

/** The methods a 2026-07-28 server may answer with `input_required`. */
const MULTI_ROUND_TRIP = new Set(['tools/call', 'prompts/get', 'resources/read']);

/**
 * An `input_required` answer (a 2026-07-28 upstream's, passed on as it came):
 * only where the revision allows it, and carrying what a client needs to
 * continue. Its embedded requests are checked by the SDK as it sends them.
 */
export function inputRequiredProblem(method: string, result: unknown): Omit<Problem, 'where'> | undefined {
  const { inputRequests, requestState } = result as { inputRequests?: unknown; requestState?: unknown };
  const asks = typeof inputRequests === 'object' && inputRequests !== null && !Array.isArray(inputRequests);
  let what: string | undefined;
  if (!MULTI_ROUND_TRIP.has(method))
    what = `answered ${method} with input_required, which only tools/call, prompts/get and resources/read may answer.`;
  else if (inputRequests !== undefined && !asks)
    what = `answered ${method} with input_required whose inputRequests is not an object.`;
  else if (requestState !== undefined && typeof requestState !== 'string')
    what = `answered ${method} with input_required whose requestState is not a string.`;
  else if (!asks && requestState === undefined)
    what = `answered ${method} with input_required carrying neither inputRequests nor requestState.`;
  return what ? { what, fix: 'fix the plugin: its results must follow the MCP schema.' } : undefined;
}

/**
 * A `skills/list` page (SEP-2640), which the SDK has no spec type for: the
 * host composes, routes and rewrites its entries by their `uri`, so each
 * must be an object with one. The rest of an entry passes on as it came.
 */
function skillsListProblem(result: unknown): Omit<Problem, 'where'> | undefined {
  const skills = (result as { skills?: unknown }).skills;
  const entry = Array.isArray(skills)
    ? skills.findIndex((skill) => typeof (skill as { uri?: unknown } | null)?.uri !== 'string')
    : -1;
  if (Array.isArray(skills) && entry === -1) return undefined;
  return {
    what: Array.isArray(skills)
      ? `answered skills/list with an entry (skills[${entry}]) that has no string "uri".`
      : 'answered skills/list with a result whose "skills" is not an array.',
    fix: 'fix the plugin: a skills/list result is { skills: [{ uri, frontmatter, resources }, …] } (SEP-2640).',
  };
}
