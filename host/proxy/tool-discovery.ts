import type { Generation } from '../catalogue/generation.js';
import { nameMatcher } from '../catalogue/curation.js';
import { SEARCH_TOOL_NAME } from '../catalogue/search-tool-name.js';
import { usableTools } from '../catalogue/usable-tools.js';
import { discoveryOf, searchModeOf } from '../catalogue/virtual-server.js';
import type { DiscoveryConfig } from '../config/types.js';
import { MAX_SEARCH_RESULTS } from '../config/validate.js';
import { ErrorCode, RpcError } from '../rpc-error.js';
import type { Identity } from '../vocabulary/identity.js';
import type { ListItem } from '../vocabulary/list-kinds.js';
import { isPlainObject } from '../plain-object.js';
import type { SurfacedTools } from './surfaced-tools.js';

type Params = Record<string, unknown>;
type Discovery = Required<DiscoveryConfig>;

/**
 * The longest query searched. A search's cost grows with its words, and a
 * request is cheap to make long: a task is said in a sentence or two.
 */
const MAX_QUERY_LENGTH = 500;

/**
 * The discovery settings when `identity` is served search rather than
 * every tool, else undefined: always in `'search'` mode, above `threshold`
 * usable tools in `'auto'`, never in `'all'` or without a discovery
 * section. Judged per identity, on what that identity may use, under its
 * virtual server's discovery where it has one.
 */
export function searchServed(generation: Generation, identity: Identity): Discovery | undefined {
  const discovery = discoveryOf(generation.config, identity);
  if (discovery?.mode === 'search') return discovery;
  if (discovery?.mode === 'auto' && usableTools(generation, identity).size > discovery.threshold) return discovery;
  return undefined;
}

/** Whether a `tools/call` may be the search tool's: the hot path leaves those to the front server. */
export function maySearch(generation: Generation, params: unknown): boolean {
  // The name first: it is one comparison, where the mode is looked up over every virtual server (once per call).
  return isPlainObject(params) && params.name === SEARCH_TOOL_NAME && searchModeOf(generation.config) !== undefined;
}

/** Per discovery settings (the host's, or a virtual server's), its `alwaysVisible` compiled. */
const alwaysVisibleMatchers = new WeakMap<Discovery, (name: string) => boolean>();

/**
 * The tools list of a client served search: the search tool, the
 * `alwaysVisible` tools it may use, and (a 2025-era session) what its
 * searches surfaced that it may still use, in the order found. One page:
 * it is small by construction.
 */
export function searchModeTools(
  generation: Generation,
  identity: Identity,
  discovery: Discovery,
  cursor: unknown,
  surfaced?: SurfacedTools,
): ListItem[] {
  if (cursor !== undefined) {
    throw new RpcError(
      ErrorCode.InvalidParams,
      `Invalid cursor: this host serves tools by search (discovery.mode '${discovery.mode}'), and its tools/list is one page. Fix: call tools/list without a cursor.`,
    );
  }
  const usable = usableTools(generation, identity);
  const { alwaysVisible } = discovery;
  let visible = alwaysVisibleMatchers.get(discovery);
  if (!visible) alwaysVisibleMatchers.set(discovery, (visible = nameMatcher(alwaysVisible)));
  const listed = new Map<string, ListItem>([[SEARCH_TOOL_NAME, searchToolDefinition(usable.size)]]);
  if (alwaysVisible.length > 0) {
    for (const [name, { served }] of usable) if (visible(name)) listed.set(name, served);
  }
  for (const name of surfaced?.names ?? []) {
    const owner = usable.get(name);
    if (owner && !listed.has(name)) listed.set(name, owner.served);
  }
  return [...listed.values()];
}

/**
 * Serve a call of the search tool: the found tools' full definitions, best
 * first, in `structuredContent.tools` (and as JSON text for clients that
 * read only content). A 2025-era session's found tools are also added to
 * its list (`surfaced`); `surfacedChanged` then says its list changed.
 */
export async function searchTools(
  generation: Generation,
  identity: Identity,
  discovery: Discovery,
  params: Params,
  session: { surfaced?: SurfacedTools | undefined; present?: ((tools: ListItem[]) => ListItem[]) | undefined } = {},
): Promise<{ result: Params; surfacedChanged: boolean }> {
  const args = searchArguments(discovery, params.arguments);
  // Bad arguments are the caller's to correct, so they are a tool error it reads (as the spec has input validation).
  if (typeof args === 'string')
    return { result: { content: [{ type: 'text', text: args }], isError: true }, surfacedChanged: false };
  const { query, limit, mount } = args;
  const usable = usableTools(generation, identity);
  const index = await generation.toolSearch();
  const found = await index.search(query, {
    limit,
    usable: (name) => usable.has(name),
    ...(mount !== undefined && { mount }),
  });
  const surfacedChanged =
    session.surfaced?.surface(
      found.map((tool) => tool.name!),
      discovery.maxSurfaced,
    ) ?? false;
  const tools = session.present ? session.present(found) : found;
  const result = {
    content: [
      {
        type: 'text',
        text:
          tools.length === 0
            ? `No tool matches "${query}". Try other words: what the tool does, or the thing it acts on.`
            : JSON.stringify({ tools }),
      },
    ],
    structuredContent: { tools },
  };
  return { result, surfacedChanged };
}

/** The search's arguments, or what is wrong with them and how to fix it. */
function searchArguments(
  discovery: Discovery,
  args: unknown,
): { query: string; limit: number; mount?: string } | string {
  const fix = `Fix: call ${SEARCH_TOOL_NAME} with { "query": "what you want to do" }, and optionally "limit" (1 to ${MAX_SEARCH_RESULTS}) and "mount" (a prefix).`;
  const given = isPlainObject(args) ? args : {};
  const { query, limit, mount } = given;
  if (typeof query !== 'string' || query.trim() === '') {
    return `Invalid arguments for tool ${SEARCH_TOOL_NAME}: "query" must be a non-empty string, got ${JSON.stringify(query) ?? 'nothing'}. ${fix}`;
  }
  if (query.length > MAX_QUERY_LENGTH) {
    return `Invalid arguments for tool ${SEARCH_TOOL_NAME}: "query" is ${query.length} characters, over the ${MAX_QUERY_LENGTH} a search takes. ${fix}`;
  }
  if (
    limit !== undefined &&
    !(Number.isInteger(limit) && (limit as number) >= 1 && (limit as number) <= MAX_SEARCH_RESULTS)
  ) {
    return `Invalid arguments for tool ${SEARCH_TOOL_NAME}: "limit" must be an integer from 1 to ${MAX_SEARCH_RESULTS}, got ${JSON.stringify(limit)}. ${fix}`;
  }
  if (mount !== undefined && typeof mount !== 'string') {
    return `Invalid arguments for tool ${SEARCH_TOOL_NAME}: "mount" must be a mount's prefix, got ${JSON.stringify(mount)}. ${fix}`;
  }
  return {
    query,
    limit: (limit as number | undefined) ?? discovery.results,
    ...(mount !== undefined && { mount }),
  };
}

/** The search tool as clients list it (bench/discovery.ts counts its tokens). */
export function searchToolDefinition(toolCount: number): ListItem {
  return {
    name: SEARCH_TOOL_NAME,
    title: 'Search tools',
    description:
      `Find the right tool among the ${toolCount} this server offers: search with the user's own words for what ` +
      'they want done (e.g. "will it rain in Paris tomorrow"); if no result fits, search again naming the kind of ' +
      'tool or the thing it acts on (e.g. "weather forecast"). ' +
      'Returns the best-matching tools with their full definitions (name, description, input schema), best first; ' +
      'call a found tool by its name, with arguments that fit its input schema.',
    inputSchema: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          description: 'What the user wants done, in their own words (e.g. "open a pull request").',
        },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_SEARCH_RESULTS,
          description: 'How many tools to return at most.',
        },
        mount: { type: 'string', description: 'Only tools of the mount with this prefix (e.g. "github").' },
      },
      required: ['query'],
    },
    outputSchema: {
      type: 'object',
      properties: { tools: { type: 'array', items: { type: 'object' } } },
      required: ['tools'],
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  };
}
