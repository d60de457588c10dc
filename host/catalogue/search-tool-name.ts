/**
 * The host's own tool in search mode (DESIGN.md names it: clients and docs call it by this name). A file of its
 * own so that what only names the tool (the front server, the audit, a generation's check of its names) does not
 * load the search index's code, which a host loads only when it first builds an index.
 */
export const SEARCH_TOOL_NAME = 'search_tools';
