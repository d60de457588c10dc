import {
  argumentAt,
  asHeaderText,
  BASE64_PREFIX,
  BASE64_SUFFIX,
  type HeaderParam,
} from '../vocabulary/mirrored-params.js';

/** The JSON-RPC code for request headers that disagree with the body (`HeaderMismatch`). */
const HEADER_MISMATCH = -32020;
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * The refusal of a 2026-07-28 `tools/call` whose `Mcp-Param-*` headers do
 * not carry the arguments they mirror, or undefined when they do. For each
 * marked argument the body carries, its header must be present and equal
 * to it: Base64-decoded when wrapped as `=?base64?…?=` (and then canonical
 * Base64 of UTF-8), taken literally otherwise, numbers compared as numbers.
 * An argument the body leaves out or sets to null needs no header.
 */
export function paramHeaderRefusal(
  params: HeaderParam[],
  args: unknown,
  headers: Headers,
  id: unknown,
): Response | undefined {
  for (const param of params) {
    const value = argumentAt(args, param.path);
    const expected = asHeaderText(value);
    if (expected === undefined) continue;
    const name = `Mcp-Param-${param.header}`;
    const argument = param.path.join('.');
    const sent = headers.get(name);
    if (sent === null) {
      return mismatch(
        id,
        name,
        `the body carries ${argument}=${JSON.stringify(value)} but the ${name} header is absent; send it with the argument's value`,
      );
    }
    const decoded = decoded64(sent);
    if (decoded === undefined) {
      return mismatch(
        id,
        name,
        `the ${name} header is not valid Base64 inside =?base64?…?= (canonical padding, A-Z a-z 0-9 + / only, UTF-8 text); encode the argument's value again`,
      );
    }
    const equal =
      typeof value === 'number' && (param.type === 'integer' || param.type === 'number') && DECIMAL.test(decoded)
        ? Number(decoded) === value
        : decoded === expected;
    if (!equal) {
      return mismatch(
        id,
        name,
        `the ${name} header says ${JSON.stringify(decoded)} but the body carries ${argument}=${JSON.stringify(value)}; send the same value in both`,
      );
    }
  }
  return undefined;
}

/** The SDK's shape for a header that disagrees with the body: 400, `HeaderMismatch`, the header named in `data`. */
function mismatch(id: unknown, header: string, why: string): Response {
  const message = `Bad Request: the request headers and body disagree: ${why}`;
  return Response.json(
    { jsonrpc: '2.0', id: id ?? null, error: { code: HEADER_MISMATCH, message, data: { header } } },
    { status: 400 },
  );
}

/** A header value as text: Base64-decoded when wrapped, literal otherwise; undefined when the wrapping holds no valid Base64. */
function decoded64(value: string): string | undefined {
  if (!value.startsWith(BASE64_PREFIX) || !value.endsWith(BASE64_SUFFIX)) return value;
  const payload = value.slice(BASE64_PREFIX.length, value.length - BASE64_SUFFIX.length);
  if (!CANONICAL_BASE64.test(payload)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(payload, 'base64'));
  } catch {
    return undefined;
  }
}
