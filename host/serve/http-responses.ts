import type { ServerResponse } from 'node:http';

/**
 * The body the SDK's transports answer HTTP-level refusals with, so a
 * client sees one shape whether the host or the SDK refused it.
 */
export function jsonRpcErrorResponse(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}

/** Write a small, fully buffered web `Response` (a refusal) to a Node response. */
export async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  const body = await response.text();
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(body);
}

/**
 * The same response, with `onEnd` called once when its body has been sent
 * whole, failed, or was dropped by the client: how the host learns that a
 * stream (a call's SSE answer, a GET or `subscriptions/listen` stream) is
 * over.
 *
 * `signal` (the request's, aborted when the client disconnects) ends the
 * stream at once: the Node adapter would otherwise notice only at the next
 * chunk, up to a keep-alive interval later, and until then the SDK keeps
 * the stream (a reconnecting GET would be refused as a second stream).
 */
export function onBodyEnd(response: Response, onEnd: () => void, signal?: AbortSignal): Response {
  if (response.body === null) {
    onEnd();
    return response;
  }
  const reader = response.body.getReader();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    signal?.removeEventListener('abort', dropped);
    onEnd();
  };
  const dropped = () => {
    end();
    reader.cancel(signal?.reason).catch(() => {});
  };
  if (signal?.aborted) dropped();
  else signal?.addEventListener('abort', dropped, { once: true });
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          end();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        end();
        controller.error(error);
      }
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
