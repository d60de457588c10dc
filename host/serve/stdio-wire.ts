import type { Readable, Writable } from 'node:stream';
import {
  INVALID_REQUEST,
  PARSE_ERROR,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
  parseJSONRPCMessage,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type RequestId,
  type Transport,
} from '@modelcontextprotocol/server';
import { LineSplitter } from '../line-splitter.js';
import { isPlainObject } from '../plain-object.js';
import { recordLimitHit } from '../sinks/telemetry.js';
import { messageLine } from '../proxy/shared-list-results.js';
import { writeAsHost } from '../mounts/plugin-output.js';
import { SENT } from '../vocabulary/sent.js';
import { keepCheckedTexts } from '../vocabulary/checked-result-text.js';

export interface WireObserver {
  received(message: JSONRPCMessage): void;
  sent(message: JSONRPCMessage): void;
}

/**
 * The host's side of its stdio connection: newline-delimited JSON-RPC on
 * stdin and stdout, like the SDK's `StdioServerTransport`, except for what
 * a client gets wrong. The SDK's transport skips a line that is not JSON
 * without a word, reports JSON that is not JSON-RPC only to the server's
 * error callback (the client waits for an answer that never comes), and
 * closes the connection on a line over its buffer size (the host then
 * serves no one). Here each gets the answer JSON-RPC 2.0 prescribes, and the
 * connection carries on:
 *
 * - a line that is not JSON: -32700 Parse error, id null;
 * - JSON that is not a JSON-RPC message (a batch, no `"jsonrpc": "2.0"`,
 *   params that are not an object, an id that is neither string nor
 *   number): -32600 Invalid Request, with its id when it has a usable one;
 * - a line over `maxLineBytes`: skipped unread, -32600, id null.
 *
 * A malformed response (the client's answer to a request of the host's) is
 * only reported: answering a response would start a conversation about it.
 */
export class StdioWire implements Transport {
  /** Sees each message read and written: telemetry's view of what the SDK's entry answers itself. */
  observer?: WireObserver;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly lines: LineSplitter;
  private closed = false;
  /** Input paused until stdout drains. */
  private held = false;
  /** Whether a line was written in this turn of the event loop. */
  private turnWritten = false;
  /** Lines sent after it in this turn, not yet written. */
  private queued: string[] = [];

  constructor(
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
    maxLineBytes = STDIO_DEFAULT_MAX_BUFFER_SIZE,
  ) {
    this.lines = new LineSplitter(maxLineBytes, {
      line: (text) => {
        if (text.trim() !== '') this.parse(text);
      },
      oversized: () =>
        this.refuse(null, INVALID_REQUEST, `Invalid Request: a message over ${maxLineBytes} bytes was skipped`),
    });
    // Its answers are written from the text each result's check made (messageLine).
    keepCheckedTexts();
  }

  async start(): Promise<void> {
    this.stdin.on('data', this.receive);
    this.stdin.on('error', this.failed);
    this.stdin.on('end', this.ended);
    this.stdin.on('close', this.ended);
    this.stdout.on('error', this.broken);
  }

  /**
   * Answers are batched: the first line of a turn of the event loop is
   * written at once (a lone answer waits for nothing); the answers after it
   * in that turn are written together at its end. Each write to the pipe is
   * a system call that wakes the client, and ten concurrent calls' answers
   * mostly come in one turn.
   *
   * A notification or request is never batched with the answer after it: it
   * goes out at once (behind what is queued, so order holds), and an answer
   * sent in the same turn waits for the next. The SDK's client handles a
   * notification a microtask after reading it but settles an answer at once,
   * dropping that call's progress handler: a call's last progress written in
   * one piece with its result would never reach the caller.
   *
   * Backpressure: while stdout is backed up (a client that stops reading
   * its answers) the host stops reading stdin, so it takes no new request
   * whose answer would only queue; it reads again once stdout drains. A
   * client that keeps sending then blocks on its own full pipe, and the
   * host's memory holds one read's worth of requests, not all of them.
   */
  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the stdio connection is closed'));
    this.observer?.sent(message);
    const line = messageLine(message);
    if ('method' in message) {
      this.flush();
      this.writeNow(line);
    } else if (this.turnWritten || this.queued.length > 0) {
      // Behind lines still queued, in order: a call's progress before its result.
      if (this.queued.push(line) === 1) setImmediate(this.flush);
    } else {
      this.writeNow(line);
    }
    // Resolved at once: the SDK awaits each send, and a sender held until
    // the drain would keep its answer (and its request) alive meanwhile.
    return SENT;
  }

  /** Write `line` now, and mark this turn as written: answers after it in the turn are batched. */
  private writeNow(line: string): void {
    if (!this.turnWritten) {
      this.turnWritten = true;
      setImmediate(this.endTurn);
    }
    if (!writeAsHost(this.stdout, line)) this.holdInput();
  }

  private readonly endTurn = (): void => {
    this.turnWritten = false;
  };

  private readonly flush = (): void => {
    if (this.queued.length === 0) return;
    const text = this.queued.length === 1 ? this.queued[0]! : this.queued.join('');
    this.queued = [];
    if (!writeAsHost(this.stdout, text)) this.holdInput();
  };

  private holdInput(): void {
    if (this.held) return;
    this.held = true;
    recordLimitHit('stdio.backpressure');
    this.stdin.pause();
    this.stdout.once('drain', () => {
      this.held = false;
      if (!this.closed) this.stdin.resume();
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // What was sent before the close is still said.
    this.flush();
    this.stdin.off('data', this.receive);
    this.stdin.off('error', this.failed);
    this.stdin.off('end', this.ended);
    this.stdin.off('close', this.ended);
    // `broken` stays: an EPIPE after the close must not become an unhandled 'error'.
    this.stdin.pause();
    this.lines.clear();
    this.onclose?.();
  }

  private readonly receive = (chunk: Buffer): void => this.lines.push(chunk);

  private readonly failed = (error: Error): void => this.onerror?.(error);

  /** The client's end of stdout is gone (EPIPE): nothing more can be said, so the connection ends. */
  private readonly broken = (error: Error): void => {
    if (this.closed) return;
    this.onerror?.(error);
    void this.close();
  };

  private readonly ended = (): void => void this.close();

  private parse(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.refuse(null, PARSE_ERROR, 'Parse error: the line is not JSON');
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = isPlainRequest(value) ? value : parseJSONRPCMessage(value);
    } catch {
      if (isResponseShaped(value)) {
        this.onerror?.(new Error('the client sent a response that is not valid JSON-RPC; it was dropped'));
        return;
      }
      this.refuse(
        usableId(value),
        INVALID_REQUEST,
        'Invalid Request: expected one JSON-RPC 2.0 request or notification: an object with "jsonrpc": "2.0", a string "method", an object or absent "params", and a string or number "id" for a request',
      );
      return;
    }
    this.observer?.received(message);
    this.onmessage?.(message);
  }

  private refuse(id: RequestId | null, code: number, message: string): void {
    // `id: null` is JSON-RPC's own for "could not tell"; the SDK's message type leaves it out.
    this.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage).catch((error: unknown) =>
      this.onerror?.(error instanceof Error ? error : new Error(String(error))),
    );
  }
}

/**
 * A request the SDK's schema accepts as it is, told by hand: `"jsonrpc":
 * "2.0"`, a string or integer id, a string method, params an object
 * without `_meta`, and no other key. The schema's parse (zod) returns the
 * same request, for about 3 µs, and nearly every call a client makes is
 * this shape; anything else (a `_meta`, a notification, a response, what
 * is malformed) is parsed by the schema, which says what is wrong.
 */
function isPlainRequest(value: unknown): value is JSONRPCRequest {
  if (!isPlainObject(value) || value.jsonrpc !== '2.0' || typeof value.method !== 'string') return false;
  const { id, params } = value;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return false;
  if (params !== undefined && (!isPlainObject(params) || '_meta' in params)) return false;
  for (const key in value) if (key !== 'jsonrpc' && key !== 'id' && key !== 'method' && key !== 'params') return false;
  return true;
}

function isResponseShaped(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !('method' in value) && ('result' in value || 'error' in value);
}

function usableId(value: unknown): RequestId | null {
  const id = isPlainObject(value) ? value.id : undefined;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}
