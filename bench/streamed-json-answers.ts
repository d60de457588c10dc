/**
 * Answers a 2026-07-28 request the way the conformance suite's reference
 * server answers its streaming diagnostic: `application/json`, chunked, the
 * body the exchange's JSON-RPC messages one a line (progress and log lines as
 * they happen, then the result), where the SDK would open an SSE stream.
 *
 * The SDK serves no such body itself (its `responseMode` is SSE or one JSON
 * message, dropping what comes before the result), so the direct baseline of
 * `scripts/conformance.sh --streamed-json` re-encodes the SDK's SSE answers:
 * the suite then judges the plugin answering in streamed bodies directly, and
 * the host mounting that server, on the same scenarios. A
 * `subscriptions/listen` stream stays SSE: it is a stream by nature, and the
 * SDK serves it so whatever the response mode.
 */
import type { McpHttpHandler } from '@modelcontextprotocol/server';

type Fetch = McpHttpHandler['fetch'];

/** `handler.fetch`, with every SSE answer to a POST but a listen stream re-encoded as a streamed JSON body. */
export function answeringInStreamedJson(handler: McpHttpHandler): { fetch: Fetch } {
  return {
    fetch: async (request, options) => {
      const response = await handler.fetch(request, options);
      const isSse = response.headers.get('content-type')?.startsWith('text/event-stream') ?? false;
      const method = (options?.parsedBody as { method?: unknown } | undefined)?.method;
      if (request.method !== 'POST' || !isSse || method === 'subscriptions/listen' || !response.body) return response;
      const headers = new Headers(response.headers);
      headers.set('content-type', 'application/json');
      return new Response(response.body.pipeThrough(new TextDecoderStream()).pipeThrough(sseToJsonLines()), {
        status: response.status,
        headers,
      });
    },
  };
}

/**
 * SSE events in, one JSON-RPC message a line out (UTF-8). An event's `data:`
 * lines join with a newline (as SSE reads them) into one message, written
 * again on one line; ids, `retry:` and comments (the priming event,
 * keep-alives) have no place in a JSON body and are dropped.
 */
function sseToJsonLines(): TransformStream<string, Uint8Array> {
  const encoder = new TextEncoder();
  let pending = '';
  let data: string[] = [];
  return new TransformStream({
    transform(chunk, controller) {
      pending += chunk;
      let end: number;
      while ((end = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, end).replace(/\r$/, '');
        pending = pending.slice(end + 1);
        if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
        else if (line === '' && data.length > 0) {
          const message: unknown = JSON.parse(data.join('\n'));
          data = [];
          controller.enqueue(encoder.encode(`${JSON.stringify(message)}\n`));
        }
      }
    },
  });
}
