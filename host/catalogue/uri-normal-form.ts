/**
 * The normal form of a resource URI, which include/exclude rules judge
 * (DESIGN.md, "Curation"; later access rules too): one URI has many
 * spellings, and a rule that saw one spelling must not let another through
 * to a plugin that reads them all as the same resource. A client asking for
 * `FILE:///safe/%2e%2e/private/x` asks, as a plugin that decodes and
 * resolves it will serve it, for `file:///private/x`.
 *
 * RFC 3986's syntax-based normalisation (section 6.2.2), and then what a
 * plugin reading a path is likely to do with it:
 *
 * - the scheme and the host in lower case (`SECRET://Keys` → `secret://keys`);
 * - percent-encoded unreserved characters decoded (`%70rivate` → `private`,
 *   `%2e` → `.`), and `%2F` too (`private%2Fx` → `private/x`: a plugin that
 *   decodes the path before splitting it reads a separator); other
 *   percent-encodings kept, in upper case;
 * - runs of `/` in the path as one (`file:////private`: a file system reads
 *   `//` as `/`), then the dot segments resolved (`/safe/../private`,
 *   `/./private` → `/private`; never above the root);
 * - `file://localhost/` and `file:/` as `file:///`, the same file (RFC 8089).
 *
 * The query and fragment are left as they are. A string that is not a URI
 * with a scheme (a bare glob like `**`) is returned unchanged.
 */
export function uriNormalForm(uri: string): string {
  const parsed = /^([A-Za-z][A-Za-z0-9+.-]*):(\/\/([^/?#]*))?([^?#]*)(.*)$/s.exec(uri);
  if (!parsed) return uri;
  const [, scheme, hasAuthority, authority = '', path, rest] = parsed as unknown as [
    string,
    string,
    string | undefined,
    string | undefined,
    string,
    string,
  ];
  const normalScheme = scheme.toLowerCase();
  let normal = `${normalScheme}:`;
  // `file:/private/x` is `file:///private/x` (RFC 8089): the same file.
  if (hasAuthority !== undefined || (normalScheme === 'file' && path.startsWith('/'))) {
    const host = normalAuthority(decodeUnreserved(authority));
    normal += `//${normalScheme === 'file' && host === 'localhost' ? '' : host}`;
  }
  const decoded = decodeUnreserved(path, true);
  return normal + (decoded.startsWith('/') ? withoutDotSegments(decoded.replace(/\/{2,}/g, '/')) : decoded) + rest;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** Percent-encoded unreserved characters (and `%2F`, when `slash`) decoded; other encodings in upper case. */
function decodeUnreserved(text: string, slash = false): string {
  return text.replace(/%([0-9A-Fa-f]{2})/g, (encoding, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(char) || (slash && char === '/') ? char : encoding.toUpperCase();
  });
}

/** `user@Host:port` with the host in lower case (the user info is case-sensitive). */
function normalAuthority(authority: string): string {
  const at = authority.lastIndexOf('@');
  return authority.slice(0, at + 1) + authority.slice(at + 1).toLowerCase();
}

/** RFC 3986's remove_dot_segments on an absolute path: `.` dropped, `..` takes away the segment before it. */
function withoutDotSegments(path: string): string {
  const kept: string[] = [];
  const segments = path.split('/').slice(1);
  for (const [index, segment] of segments.entries()) {
    const last = index === segments.length - 1;
    if (segment === '.' || segment === '..') {
      if (segment === '..') kept.pop();
      // A path ending in a dot segment names a directory: `/a/b/..` is `/a/`.
      if (last) kept.push('');
      continue;
    }
    kept.push(segment);
  }
  return `/${kept.join('/')}`;
}
