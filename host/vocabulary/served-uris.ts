import { isPlainObject } from '../plain-object.js';

/** The MCP Apps extension (SEP-1865): tools name `ui://` resources the client renders. */
export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';
/** What the host declares it renders, as a client of its upstreams (the mime type of an MCP App's HTML). */
export const APPS_CLIENT_SETTINGS = { mimeTypes: ['text/html;profile=mcp-app'] };
/** The Skills extension (SEP-2640): `skills/list`, `skills/get` and `skill://` resources. */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/**
 * The URI schemes a prefixed mount's URIs are served under its prefix, the
 * one exception to "resource URIs are never rewritten" (DESIGN.md,
 * "Protocol extensions through the host"). Other URIs name something of
 * their own (a file, a web page, a note) and two mounts naming one are a
 * real collision; a `ui://` or `skill://` URI names only a place in its
 * server's own namespace (every app server has its `ui://widget`, every
 * skills server its `skill://pdf/SKILL.md`), so without the prefix two
 * mounts could not both be served.
 */
const PREFIXED = /^(ui|skill):\/\//i;

/** Whether a URI (or template) is one a prefixed mount serves under its prefix. */
export function servedUnderPrefix(uri: string): boolean {
  return PREFIXED.test(uri);
}

/** The prefix a `ui://` or `skill://` URI a client sent is under (its authority), when it is one of those. */
export function prefixOf(served: string): string | undefined {
  const scheme = PREFIXED.exec(served);
  return scheme ? /^[^/?#]*/.exec(served.slice(scheme[0].length))![0] : undefined;
}

/**
 * `ui://widget` of the mount prefixed `weather` as clients see it:
 * `ui://weather/widget`. The prefix takes the authority's place and the
 * mount's own authority becomes the first path segment, so the skill name
 * (a `SKILL.md`'s parent segment) stays last, as SEP-2640 requires. A flat
 * mount's URIs, and other schemes, are served as they are.
 */
export function servedUri(prefix: string | undefined, own: string): string {
  if (prefix === undefined) return own;
  const scheme = PREFIXED.exec(own);
  return scheme ? `${scheme[0]}${prefix}/${own.slice(scheme[0].length)}` : own;
}

/**
 * The mount's own URI for a URI a client sent, or undefined when the mount
 * does not serve it: a `ui://` or `skill://` URI not under the mount's
 * prefix, or one whose path has a dot segment (`ui://weather/../x`), which
 * URL parsing would resolve across the prefix into another mount's
 * namespace or the plugin would read as another resource than the one
 * curation and access rules judged.
 */
export function ownUri(prefix: string | undefined, served: string): string | undefined {
  if (prefix === undefined) return served;
  const scheme = PREFIXED.exec(served);
  if (!scheme) return served;
  const under = `${prefix}/`;
  const rest = served.slice(scheme[0].length);
  if (!rest.startsWith(under)) return undefined;
  const own = rest.slice(under.length);
  const path = own.split(/[?#]/, 1)[0]!;
  if (path.split('/').some((segment) => /^(\.|%2e){1,2}$/i.test(segment))) return undefined;
  return `${scheme[0]}${own}`;
}

type Item = Record<string, unknown>;

/** The UI a tool names (`_meta.ui.resourceUri`, else the legacy `_meta["ui/resourceUri"]`), if any. */
export function uiResourceOf(tool: Item): string | undefined {
  const meta = tool._meta;
  if (!isPlainObject(meta)) return undefined;
  const ui = meta.ui;
  if (isPlainObject(ui) && typeof ui.resourceUri === 'string') return ui.resourceUri;
  return typeof meta['ui/resourceUri'] === 'string' ? meta['ui/resourceUri'] : undefined;
}

/**
 * A tool as clients see it: its `_meta.ui.resourceUri` (and the legacy
 * `_meta["ui/resourceUri"]`, which SEP-1865 still lets servers send) under
 * the mount's prefix, so that reading what the tool names reaches this mount.
 */
export function servedTool(prefix: string | undefined, tool: Item): Item {
  const meta = tool._meta;
  if (prefix === undefined || !isPlainObject(meta)) return tool;
  let served = meta;
  const ui = meta.ui;
  if (isPlainObject(ui) && typeof ui.resourceUri === 'string') {
    served = { ...served, ui: { ...ui, resourceUri: servedUri(prefix, ui.resourceUri) } };
  }
  const legacy = meta['ui/resourceUri'];
  if (typeof legacy === 'string') served = { ...served, 'ui/resourceUri': servedUri(prefix, legacy) };
  return served === meta ? tool : { ...tool, _meta: served };
}

/** An item with a URI field (a resource's `uri`, a template's `uriTemplate`) as clients see it. */
export function servedUriField(prefix: string | undefined, item: Item, field: 'uri' | 'uriTemplate'): Item {
  const own = item[field];
  if (typeof own !== 'string') return item;
  const served = servedUri(prefix, own);
  return served === own ? item : { ...item, [field]: served };
}

/**
 * A skill entry (SEP-2640) as clients see it: its `uri` and the `uri` of
 * each of its files, so that a client reading a file the entry lists reads
 * it from this mount.
 */
export function servedSkill(prefix: string | undefined, skill: Item): Item {
  if (prefix === undefined) return skill;
  const files = skill.resources;
  return {
    ...servedUriField(prefix, skill, 'uri'),
    ...(Array.isArray(files) && {
      resources: files.map((file: unknown) => (isPlainObject(file) ? servedUriField(prefix, file, 'uri') : file)),
    }),
  };
}

/**
 * A result whose array `field` holds items with URIs (a read's `contents`,
 * a directory read's `resources`), each URI under the mount's prefix.
 */
export function servedUrisIn(prefix: string | undefined, result: Item, field: string): Item {
  const items = result[field];
  if (prefix === undefined || !Array.isArray(items)) return result;
  return {
    ...result,
    [field]: items.map((item: unknown) => (isPlainObject(item) ? servedUriField(prefix, item, 'uri') : item)),
  };
}
