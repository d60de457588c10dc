import { isJsonContentType, parseJSONRPCMessage, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { describeThrown } from '../errors.js';
import { LineSplitter } from '../line-splitter.js';
import { ErrorCode } from '../rpc-error.js';

const NEWLINE = 0x0a;
/** Room on a line for the envelope around a result within the mount's maxResultBytes. */
const ENVELOPE_BYTES = 64 * 1024;
const encoder = new TextEncoder();

/** Which mount answers, for the words of its errors. */
export interface Answerer {
  /** `mount "x"` as messages name it. */
  readonly mount: string;
  readonly maxResultBytes: number;
}

/**
 * A 2026-07-28 server may answer a POST with `application/json` whose body
 * is several JSON-RPC messages, one a line, written as they happen: the
 * request's progress and log lines, then its answer (the conformance suite's
 * reference server answers its streaming diagnostic so, chunked). The SDK's
 * client transport reads an `application/json` body as one JSON value and
 * fails at the second message. So the host reads such a body before the SDK
 * does:
 *
 * - one message (the norm) passes on as it came, bytes untouched: the SDK
 *   parses it, once;
 * - several become a `text/event-stream` of the same messages, each passed on
 *   as its line arrives, which the SDK reads as a request's own stream: the
 *   notifications reach the call (progress restarts its timeout, log lines
 *   reach its client), the answer ends it;
 * - a stream with a line that is not a JSON-RPC message, or that ends without
 *   the answer, ends the request with an error naming the mount.
 *
 * Told apart by the first line: a body with a newline after a JSON value
 * followed by more is a stream, and so is one whose first line is a
 * notification (its answer has yet to come: it is passed on now, not when the
 * next line arrives). A pretty-printed single message has no JSON value on
 * its first line, and passes on whole.
 */
export async function readAnswer(response: Response, sent: RequestInit | undefined, by: Answerer): Promise<Response> {
  if (!response.ok || response.status === 202 || !response.body) return response;
  if (!isJsonContentType(response.headers.get('content-type') ?? '')) return response;
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let read = 0;
  /** Where the first line ends, once one has. */
  let firstLineEnd = -1;
  let firstIsValue: boolean | undefined;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return whole(response, chunks, read);
    chunks.push(value);
    read += value.byteLength;
    if (firstLineEnd === -1) {
      // Buffer's indexOf is native (memchr); a Uint8Array's is a slow loop, on every byte of every answer.
      const at = Buffer.from(value.buffer, value.byteOffset, value.byteLength).indexOf(NEWLINE);
      if (at === -1) continue;
      firstLineEnd = read - value.byteLength + at;
      const body = Buffer.concat(chunks, read);
      const first = firstValue(body.toString('utf8', 0, firstLineEnd));
      firstIsValue = first !== undefined;
      // A notification first: the answer is still to come, so this is a stream, passed on from now.
      if (first && 'method' in first) return streamed(response, reader, body, sent, by);
    }
    if (!firstIsValue) continue; // one message over several lines: read whole
    const body = Buffer.concat(chunks, read);
    if (hasContent(body, firstLineEnd + 1)) return streamed(response, reader, body, sent, by);
  }
}

/** The answer's body as it came, read whole: one message, which the SDK parses. */
function whole(response: Response, chunks: Uint8Array[], read: number): Response {
  return new Response(read === 0 ? null : Buffer.concat(chunks, read), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** The JSON-RPC message a line holds, if it holds one. */
function firstValue(line: string): JSONRPCMessage | undefined {
  try {
    return parseJSONRPCMessage(JSON.parse(line));
  } catch {
    return undefined;
  }
}

/** Whether `body` has anything but JSON whitespace from `from` on. */
function hasContent(body: Buffer, from: number): boolean {
  for (let i = from; i < body.length; i++) {
    const byte = body[i];
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return true;
  }
  return false;
}

/**
 * The rest of a streamed answer as a `text/event-stream` of its messages, one
 * event a line, read from the upstream as the SDK reads this stream.
 */
function streamed(
  response: Response,
  reader: ReadableStreamDefaultReader<Uint8Array>,
  start: Buffer,
  sent: RequestInit | undefined,
  by: Answerer,
): Response {
  const request = requestOf(sent);
  let answered = false;
  let lines = 0;
  /** Why the stream has no answer, once it is known to have none. */
  let failed: string | undefined;
  /** The connection broke: the body was not malformed, only cut short. */
  let broken = false;
  const events: Uint8Array[] = [];
  const splitter = new LineSplitter(by.maxResultBytes + ENVELOPE_BYTES, {
    line(text) {
      if (failed !== undefined || text.trim() === '') return;
      lines++;
      let message: JSONRPCMessage;
      try {
        message = parseJSONRPCMessage(JSON.parse(text));
      } catch (error) {
        failed = `its line ${lines} is not a JSON-RPC message (${describeThrown(error)})`;
        return;
      }
      if (!('method' in message) && 'id' in message && message.id === request.id) answered = true;
      events.push(event(message));
    },
    oversized() {
      failed = `its line ${lines + 1} is over the ${by.maxResultBytes} bytes its maxResultBytes allows`;
    },
  });
  const take = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    for (const chunk of events.splice(0)) controller.enqueue(chunk);
  };
  /** The stream is over: with the answer, or with an error that says why there is none. */
  const end = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    if (failed === undefined && !answered)
      failed = `it ended after ${lines} message${lines === 1 ? '' : 's'} without the answer`;
    if (failed !== undefined && request.id !== undefined && !answered) {
      controller.enqueue(
        event({
          jsonrpc: '2.0',
          id: request.id,
          error: {
            code: ErrorCode.InternalError,
            message: broken
              ? `${by.mount} stopped answering ${request.method}: ${failed}.`
              : notAMessageStream(by.mount, request.method, failed),
          },
        }),
      );
    }
    controller.close();
  };
  splitter.push(start);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      take(controller);
      if (failed !== undefined) {
        void reader.cancel(failed).catch(() => {});
        end(controller);
      }
    },
    async pull(controller) {
      let read: Awaited<ReturnType<typeof reader.read>>;
      try {
        read = await reader.read();
      } catch (error) {
        failed = `the connection broke after ${lines} message${lines === 1 ? '' : 's'} (${describeThrown(error)})`;
        broken = true;
        end(controller);
        return;
      }
      const { done, value } = read;
      if (done) splitter.push(Buffer.from('\n'));
      else splitter.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
      take(controller);
      if (failed !== undefined) void reader.cancel(failed).catch(() => {});
      if (done || failed !== undefined) end(controller);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  const headers = new Headers(response.headers);
  headers.set('content-type', 'text/event-stream');
  headers.delete('content-length');
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

/** One message as a server-sent event. */
function event(message: JSONRPCMessage): Uint8Array {
  return encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
}

/** The id and method of the request a POST carried (the SDK sends its body as a string). */
function requestOf(sent: RequestInit | undefined): { id?: string | number; method: string } {
  try {
    const { id, method } = JSON.parse(String(sent?.body)) as { id?: string | number; method?: string };
    return { ...(id !== undefined && { id }), method: String(method) };
  } catch {
    return { method: 'a request' };
  }
}

/** Why an upstream's `application/json` answer could not be read, in the words every such error uses. */
export function notAMessageStream(mount: string, method: string, why: string): string {
  return `${mount} answered ${method} with an application/json body that is neither one JSON-RPC message nor a stream of them, one a line: ${why}.`;
}
