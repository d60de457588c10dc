import type { ServerResponse } from 'node:http';

/**
 * The body the SDK's transports answer HTTP-level refusals with, so a
 * client sees one shape whether the host or the SDK refused it.
 */
export function jsonRpcErrorResponse(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}

/**
 * A message's body as JSON, read from a copy so that the message itself can
 * still be handed on (to the SDK's handler, or to the client); undefined
 * when the body is not JSON.
 */
export async function peekJson(message: Request | Response): Promise<unknown> {
  return message
    .clone()
    .json()
    .catch(() => undefined);
}

/** A request whose body was read once (readBodyOnce). */
export interface ReadRequest {
  /** The request as received: its body is read already when `json` is defined. */
  request: Request;
  /** The POST body's JSON; undefined for any other method, and for a body that is empty or not JSON (which `request` still carries). */
  json: unknown;
  /** The request carrying its body again, for whoever reads it after (the 2026-07-28 handler, another replica); made once, when first asked for. */
  withBody(): Request;
}

/**
 * A POST's body read once, and its JSON handed on. A 2025-era session's
 * call, the hot path, is served from the JSON alone (the era's classifier,
 * the batch check and the session's transport each take it parsed); a copy
 * per reader (`clone()`) would tee the body's stream and parse it anew each
 * time, and a request rebuilt with the body costs as much, so one is made
 * only for a reader of the body itself.
 */
export async function readBodyOnce(received: Request): Promise<ReadRequest> {
  const intact: ReadRequest = { request: received, json: undefined, withBody: () => received };
  if (received.method !== 'POST') return intact;
  const text = await received.text();
  let rebuilt: Request | undefined;
  const withBody = () => (rebuilt ??= new Request(received, { body: text }));
  try {
    const json: unknown = text.length === 0 ? undefined : JSON.parse(text);
    if (json !== undefined) return { request: received, json, withBody };
  } catch {
    // Not JSON: served from the text, as received.
  }
  return { ...intact, request: withBody(), withBody };
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

const STREAM_OPENED = new TextEncoder().encode(': stream open\n\n');

/**
 * The same response, holding at most `maxBytes` its client has not read.
 * The SDK's transports enqueue a stream's events as they happen, whether
 * or not the client reads them; the Node adapter stops reading the stream
 * while the socket is backed up, so a client that never reads would grow
 * the host without end. Here the stream is read as it is written, into a
 * queue of bounded size: over the bound the stream is ended (`onOverflow`
 * says so), its queue dropped, and the client may reconnect (a GET or
 * listen stream) or retry. A JSON answer is whole already and passes as it is.
 */
export function capQueuedBytes(response: Response, maxBytes: number, onOverflow: () => void): Response {
  if (response.body === null || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        // Node sends a response's headers with its first bytes, and a
        // notification stream may carry none for a long while (its client
        // cannot tell it is listening): an SSE comment opens every stream.
        controller.enqueue(STREAM_OPENED);
        void (async () => {
          try {
            for (;;) {
              const { done, value } = await reader.read();
              if (done) return controller.close();
              controller.enqueue(value);
              if ((controller.desiredSize ?? 0) < 0) {
                onOverflow();
                controller.error(new Error('the client left too much of this stream unread'));
                await reader.cancel('the client left too much of this stream unread');
                return;
              }
            }
          } catch (error) {
            // The consumer cancelled (the client went away), or the source failed.
            try {
              controller.error(error);
            } catch {
              // Already closed or errored.
            }
          }
        })();
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: maxBytes }),
  );
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
