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
 */
export function onBodyEnd(response: Response, onEnd: () => void): Response {
  if (response.body === null) {
    onEnd();
    return response;
  }
  const reader = response.body.getReader();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    onEnd();
  };
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
