import { isPlainObject } from '../plain-object.js';

/**
 * SEP-2243: a 2026-07-28 tool may mark arguments with `x-mcp-header`, and a
 * client calling it over HTTP mirrors each into an `Mcp-Param-<name>`
 * header, so that intermediaries route on them without reading the body.
 * The host meets both sides: it checks what its clients mirror
 * (serve/param-headers.ts) and mirrors what it calls a remote upstream with
 * (mounts/mirrored-params.ts), since a server that declares the headers
 * refuses a call without them.
 */

/** A tool argument mirrored into an `Mcp-Param-<header>` header. */
export interface HeaderParam {
  /** Where the argument sits in `arguments`: a chain of `properties` keys. */
  path: string[];
  header: string;
  type: string;
}

/** What `x-mcp-header` may name: an RFC 9110 token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const MIRRORED_TYPES = new Set(['string', 'integer', 'number', 'boolean']);
export const BASE64_PREFIX = '=?base64?';
export const BASE64_SUFFIX = '?=';

/**
 * The arguments a tool's input schema marks with `x-mcp-header`, reached
 * through `properties` only, as the spec permits. A declaration the spec
 * does not permit (not a token, not a primitive) marks nothing: the tool is
 * the plugin's to fix, and its clients will not mirror it either.
 */
export function headerParamsOf(inputSchema: unknown, path: string[] = []): HeaderParam[] {
  if (!isPlainObject(inputSchema)) return [];
  const found: HeaderParam[] = [];
  const header = inputSchema['x-mcp-header'];
  const type = inputSchema.type;
  if (path.length > 0 && typeof header === 'string' && TOKEN.test(header) && typeof type === 'string') {
    if (MIRRORED_TYPES.has(type)) found.push({ path, header, type });
  }
  if (isPlainObject(inputSchema.properties)) {
    for (const [key, child] of Object.entries(inputSchema.properties))
      found.push(...headerParamsOf(child, [...path, key]));
  }
  return found;
}

/** The argument at `path` in a call's `arguments`, if there is one. */
export function argumentAt(args: unknown, path: string[]): unknown {
  let node = args;
  for (const key of path) {
    if (!isPlainObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

/** How a client writes an argument in its header, before any Base64; undefined when it sends none. */
export function asHeaderText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/**
 * The `Mcp-Param-*` headers of one call: each marked argument the call
 * carries, as text, wrapped in `=?base64?…?=` (Base64 of its UTF-8) when
 * it would not survive as a plain HTTP field value: empty, anything outside
 * visible ASCII, space and tab, whitespace at either end (which field
 * parsing strips), or text that already looks wrapped.
 */
export function mirroredHeaders(params: HeaderParam[], args: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const param of params) {
    const text = asHeaderText(argumentAt(args, param.path));
    if (text === undefined) continue;
    headers[`Mcp-Param-${param.header}`] = isPlainFieldValue(text)
      ? text
      : `${BASE64_PREFIX}${Buffer.from(text, 'utf8').toString('base64')}${BASE64_SUFFIX}`;
  }
  return headers;
}

function isPlainFieldValue(text: string): boolean {
  return (
    text !== '' &&
    text === text.trim() &&
    !(text.startsWith(BASE64_PREFIX) && text.endsWith(BASE64_SUFFIX)) &&
    /^[\t\x20-\x7e]*$/.test(text)
  );
}
