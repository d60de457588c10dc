import { ErrorCode, RpcError } from '../rpc-error.js';
import { uriNormalForm } from './uri-normal-form.js';

/**
 * Whether a resource URI reads as it is spelled (DESIGN.md, "Protocol
 * extensions through the host": every URI the host judges is judged in the
 * WHATWG form the plugin's SDK will parse, or refused). The host judges a
 * URI by its normal form (uri-normal-form.ts); a plugin built on the SDK
 * reads it with `new URL()`, which deletes tab, LF and CR anywhere, strips
 * leading and trailing C0 controls and spaces, reads `\` as `/` in the
 * special schemes (`file:`, `http:` …), supplies the `//` of `file:x/y` and
 * `http:/x`, maps hosts through IDNA and IPv4 number forms, and drops default
 * ports. Each of those can turn a URI the host judged allowed into one it
 * would have refused: `file:///srv/public/.\t./private/secret` is
 * `file:///srv/private/secret` to the plugin.
 *
 * Such a URI is refused, not rewritten to the WHATWG form and judged there:
 * the host forwards a URI as the client spelled it (a plugin that does not
 * use WHATWG parsing must find its own listed spelling), and a plugin that
 * reads URIs another way (Python's urllib deletes the same characters,
 * others keep them) would read a rewritten URI differently again. Refused,
 * every plugin reads what the host judged: the host's reading and the
 * WHATWG one agree on every URI let through, up to percent-encoding (which
 * WHATWG adds for spaces and non-ASCII characters, and the host's normal form
 * treats alike). A client that sends a URI as a server lists it meets no
 * refusal, unless the server's own listing is so spelled (and then curation
 * and access rules serve it to no one either).
 *
 * Returns what is wrong, as a message's clause, or undefined when the URI
 * reads as it is spelled (or is no URL at all, which a plugin's SDK refuses
 * as invalid itself).
 */
export function uriSpellingProblem(uri: string): string | undefined {
  let href: string | undefined;
  try {
    href = new URL(uri).href;
  } catch {
    // No URL to WHATWG: a plugin's SDK refuses it as invalid; only the characters others delete are refused.
  }
  const reading = href === undefined ? '' : ` (URL parsing reads it as "${href}")`;
  const deleted = /[\t\n\r]/.exec(uri);
  if (deleted) {
    return `contains ${characterName(deleted[0])} at character ${deleted.index + 1}, which URL parsing deletes${reading}`;
  }
  // The first character when it is stripped, else the last.
  const end = isControlOrSpace(uri.charCodeAt(0)) ? 0 : uri.length - 1;
  if (isControlOrSpace(uri.charCodeAt(end))) {
    return `${end === 0 ? 'starts' : 'ends'} with ${characterName(uri[end]!)}, which URL parsing strips${reading}`;
  }
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(uri)?.[1]?.toLowerCase();
  if (scheme !== undefined && SPECIAL_SCHEMES.has(scheme) && /^[^?#]*\\/.test(uri)) {
    return `contains a backslash (\\), which URL parsing reads as "/" in a ${scheme}: URI${reading}`;
  }
  // Most URIs are spelled as WHATWG writes them: no normal form to compare.
  if (href === undefined || href === uri || comparable(uri) === comparable(href)) return undefined;
  return `is read by URL parsing as "${href}"`;
}

/**
 * Refuse (throw -32602) a URI a client sent that does not read as it is
 * spelled, naming what is wrong and the fix. The refusal depends on the
 * spelling alone, so it tells nothing of whether the resource exists.
 */
export function assertReadsAsSpelled(uri: string): void {
  const problem = uriSpellingProblem(uri);
  if (problem === undefined) return;
  throw new RpcError(
    ErrorCode.InvalidParams,
    `Resource URI ${JSON.stringify(uri)} ${problem}: the host neither judges nor forwards a URI that a plugin would read as another. Fix: send the URI exactly as resources/list or resources/templates/list shows it.`,
    { uri, reason: 'ambiguous_uri' },
  );
}

/** The schemes WHATWG URL parsing treats as special (https://url.spec.whatwg.org/#special-scheme). */
const SPECIAL_SCHEMES = new Set(['file', 'ftp', 'http', 'https', 'ws', 'wss']);

const NAMES: Record<string, string> = { '\t': 'a tab', '\n': 'a line feed', '\r': 'a carriage return', ' ': 'a space' };

/** A C0 control or space (U+0000 to U+0020), which URL parsing strips from both ends. */
function isControlOrSpace(code: number): boolean {
  return code <= 0x20;
}

/** `a tab (U+0009)`, `a control character (U+0001)`. */
function characterName(char: string): string {
  const code = `U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  return `${NAMES[char] ?? 'a control character'} (${code})`;
}

/**
 * A URI's normal form with every percent-encoding decoded, and the empty path
 * after an authority as `/` (`https://x` is `https://x/` to WHATWG): two
 * spellings compare equal when they name one resource.
 */
function comparable(uri: string): string {
  return uriNormalForm(uri)
    .replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run.toUpperCase();
      }
    })
    .replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)(?=[?#]|$)/, '$1/');
}
