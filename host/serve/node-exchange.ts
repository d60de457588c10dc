import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * One HTTP exchange between Node's `http` server and the host's
 * web-standard handlers (the SDK's transports take a `Request` and answer a
 * `Response`).
 *
 * The SDK's own adapter (`toNodeHandler`) builds each request with its body
 * as a web stream, which the host then read back to parse it, and streams
 * every answer through a web-stream reader per chunk. On the hot path (a
 * call in a 2025-era session) that was about a quarter of the host's CPU
 * per call over HTTP. Here the body is read from Node once, into its text and JSON;
 * the `Request` carries what the handlers read of it (method, URL,
 * headers, the signal) and its body only for a reader of the body itself;
 * and the answer is written to the socket as its stream yields, each
 * tick's writes in one.
 */

/** A request body over the bound (the SDK adapter's words, so a client sees one message whoever counted). */
export class RequestBodyTooLarge extends Error {
  constructor(maxBytes: number) {
    super(`Payload Too Large: Request body must not exceed ${maxBytes} bytes`);
  }
}

/** A request whose body was read once. */
export interface ReadRequest {
  /** The request as the handlers see it; it carries its body only when `json` is undefined. */
  request: Request;
  /** The POST body's JSON; undefined for any other method, and for a body that is empty or not JSON. */
  json: unknown;
  /** The body's text, as read ('' for none). */
  text: string;
  /** The request carrying its body, for whoever reads the body itself (another replica it is forwarded to); made once, when first asked for. */
  withBody(): Request;
}

/**
 * The request, its body read whole (at most `maxBytes`, else
 * RequestBodyTooLarge, as it arrives: a chunked body has no length to
 * refuse it by). `signal` is the request's, aborted when the client goes.
 *
 * A 2025-era session's call, the hot path, is served from the JSON alone
 * (the era's classifier, the batch check and the session's transport each
 * take it parsed), so its `Request` is built without the body.
 */
export async function readRequest(req: IncomingMessage, signal: AbortSignal, maxBytes: number): Promise<ReadRequest> {
  const method = req.method ?? 'GET';
  const url = `http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`;
  const headers = headersOf(req);
  const text = method === 'GET' || method === 'HEAD' ? '' : await bodyText(req, maxBytes);
  const bare = new Request(url, { method, headers, signal });
  if (text.length === 0) return { request: bare, json: undefined, text, withBody: () => bare };
  let rebuilt: Request | undefined;
  const withBody = () => (rebuilt ??= new Request(url, { method, headers, signal, body: text }));
  if (method === 'POST') {
    try {
      return { request: bare, json: JSON.parse(text), text, withBody };
    } catch {
      // Not JSON: served from the text, for the handler to refuse as it does.
    }
  }
  return { request: withBody(), json: undefined, text, withBody };
}

/** What the client sent as headers, less the HTTP/2 pseudo-headers. */
function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  return headers;
}

/** UTF-8, with a leading byte-order mark dropped, as `Request.text()` does. */
const utf8 = new TextDecoder();

function bodyText(req: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const take = (chunk: Buffer) => {
      received += chunk.length;
      if (received <= maxBytes) return void chunks.push(chunk);
      // The rest is read and dropped (the caller answers 413 and cuts a client that keeps sending).
      req.off('data', take);
      req.resume();
      reject(new RequestBodyTooLarge(maxBytes));
    };
    const wentMidBody = () => reject(new Error('the client closed the connection before its request body arrived'));
    req.on('data', take);
    req.once('end', () => {
      req.off('close', wentMidBody);
      resolve(utf8.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    });
    req.once('error', reject);
    req.once('close', wentMidBody);
  });
}

/** How many bytes of a stream its client may leave unread (`http.maxStreamQueueBytes`), and who hears when one did. */
export interface StreamBound {
  maxQueuedBytes: number;
  onOverflow(): void;
}

const STREAM_OPENED = new TextEncoder().encode(': stream open\n\n');

/** What each answer's handler wants to hear once the answer is over (onAnswered). */
const answeredHooks = new WeakMap<Response, () => void>();

/**
 * `response`, with `onEnd` called once when writeAnswer is done with it:
 * its body sent whole, failed, or dropped by its client. How a handler
 * learns that a stream it answered with (a call's SSE answer, a GET or
 * `subscriptions/listen` stream) is over, without a stream wrapped around
 * the SDK's own to watch it.
 */
export function onAnswered(response: Response, onEnd: () => void): Response {
  const before = answeredHooks.get(response);
  answeredHooks.set(response, before ? () => (before(), onEnd()) : onEnd);
  return response;
}

/**
 * Write the handler's answer. A whole answer (JSON, or none) goes out in
 * one write with its headers.
 *
 * An SSE stream is written as its events come, each tick's writes in one
 * (a call's answer is often its priming event and its result, made in the
 * same tick), and opened by a comment: Node sends the headers with the
 * first bytes, and a notification stream may carry none for a long while.
 * The SDK's transports enqueue a stream's events whether or not the client
 * reads them, so the stream is read as fast as it yields, and what the
 * client leaves unread waits in Node's buffer, up to the bound: over it the
 * stream is ended (`onOverflow` says so) and the client may reconnect (a GET
 * or listen stream) or retry. The client going (`signal`) cancels the
 * stream at once, so the SDK lets go of it.
 */
export async function writeAnswer(
  res: ServerResponse,
  response: Response,
  signal: AbortSignal,
  bound: StreamBound,
): Promise<void> {
  try {
    if (response.body === null || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
      return await writeWhole(res, response);
    }
    res.writeHead(response.status, Object.fromEntries(response.headers));
    await writeStream(res, response.body.getReader(), signal, bound);
    res.end();
  } finally {
    answeredHooks.get(response)?.();
  }
}

/** Write an answer that is whole (JSON, or none: a refusal, a probe's, a call's JSON answer) in one write with its headers. */
export async function writeWhole(res: ServerResponse, response: Response): Promise<void> {
  const body = response.body === null ? undefined : new Uint8Array(await response.arrayBuffer());
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(body);
}

async function writeStream(
  res: ServerResponse,
  reader: ReadableStreamDefaultReader<Uint8Array>,
  signal: AbortSignal,
  bound: StreamBound,
): Promise<void> {
  const cancel = () => void reader.cancel(signal.reason).catch(() => {});
  if (signal.aborted) cancel();
  else signal.addEventListener('abort', cancel, { once: true });
  let corked = false;
  // Uncorked at the end of the tick, and before the stream's last write returns: Node 22's `end()` on a
  // response still corked never sends what was written since the cork (the client would get the stream's
  // opening comment and nothing else), and a stream's last event and its end often come in one tick.
  const uncork = () => {
    if (!corked) return;
    corked = false;
    res.uncork();
  };
  const write = (chunk: Uint8Array) => {
    if (res.destroyed) return;
    if (!corked) {
      corked = true;
      res.cork();
      process.nextTick(uncork);
    }
    res.write(chunk);
  };
  try {
    write(STREAM_OPENED);
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      write(value);
      if (res.writableLength > bound.maxQueuedBytes) {
        bound.onOverflow();
        await reader.cancel('the client left too much of this stream unread');
        break;
      }
    }
  } catch {
    // The stream failed, or was cancelled as its client went: what was written stands.
  } finally {
    uncork();
    signal.removeEventListener('abort', cancel);
  }
}
