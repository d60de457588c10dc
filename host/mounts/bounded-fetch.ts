import type { FetchLike } from '@modelcontextprotocol/client';

/** How long one request to an upstream's OAuth metadata or token endpoint may take. */
const OAUTH_FETCH_TIMEOUT_MS = 10_000;
/** The most of such an answer read: metadata documents and token answers are a few kilobytes. */
const OAUTH_ANSWER_MAX_BYTES = 256 * 1024;

/**
 * The fetch the host's OAuth client of an upstream uses (upstream-authorization.ts): the upstream names where
 * its metadata is, so a hostile or broken one could answer slowly forever, or with a body that fills the host's
 * memory. Each answer is given OAUTH_FETCH_TIMEOUT_MS and read whole up to OAUTH_ANSWER_MAX_BYTES; beyond, the request fails naming why.
 */
export function boundedFetch(): FetchLike {
  return async (url, init) => {
    const deadline = AbortSignal.timeout(OAUTH_FETCH_TIMEOUT_MS);
    const response = await fetch(url, {
      ...init,
      signal: init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline,
    });
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of response.body ?? []) {
      size += chunk.byteLength;
      // A TypeError, as fetch's own failures are: the SDK's discovery passes those on, where it would take
      // another error for "no metadata here" and look elsewhere.
      if (size > OAUTH_ANSWER_MAX_BYTES)
        throw new TypeError(
          `${String(url)} answered more than ${OAUTH_ANSWER_MAX_BYTES} bytes, far more than OAuth metadata or a token answer takes`,
        );
      chunks.push(chunk);
    }
    return new Response(size === 0 ? null : Buffer.concat(chunks), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
