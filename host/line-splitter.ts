const NEWLINE = 0x0a;
/**
 * How much of each end of a dropped line is kept: room for what says which
 * message it was (a JSON-RPC response names its id at one end or the other).
 */
const EDGE_BYTES = 256;
const EMPTY = Buffer.alloc(0);

export interface LineEvents {
  /** A complete line, without its newline (JSON.parse takes a trailing \r as whitespace). */
  line(text: string): void;
  /** A line over the limit ended. It was not kept: only its first and last bytes are given. */
  oversized(head: string, tail: string): void;
}

/**
 * Newline-delimited framing, as MCP's stdio transport is, with a bound on
 * a line. Used both ways: on the host's own stdin (clients' messages) and on
 * each stdio child's stdout (upstreams' answers).
 *
 * The SDK's `ReadBuffer` does not serve either end: it concatenates its
 * whole buffer on every chunk (a large message costs time quadratic in its
 * size), and when a line overflows it throws the chunk away, including any
 * whole messages after that line in the same chunk. Here a line is kept as
 * its chunks and joined once; a line over `maxLineBytes` is dropped as it
 * streams (memory stays bounded), and what follows it is read as usual.
 */
export class LineSplitter {
  /** The current line so far. */
  private pieces: Buffer[] = [];
  private length = 0;
  /** The current line is over the limit: the rest of it is dropped, save its ends. */
  private skipping = false;
  private head = EMPTY;
  private tail = EMPTY;

  constructor(
    private readonly maxLineBytes: number,
    private readonly events: LineEvents,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      if (this.length === 0 && !this.skipping && end - start <= this.maxLineBytes) {
        // The whole line is in this chunk (as nearly every message is): decoded from the chunk, with no piece or copy made.
        this.events.line(chunk.toString('utf8', start, end));
      } else {
        this.take(chunk.subarray(start, end));
        this.lineEnded();
      }
      start = end + 1;
    }
    if (start < chunk.length) this.take(chunk.subarray(start));
  }

  /** Forget the line in progress (the stream it came from is gone). */
  clear(): void {
    this.pieces = [];
    this.length = 0;
    this.skipping = false;
    this.head = EMPTY;
    this.tail = EMPTY;
  }

  private take(piece: Buffer): void {
    if (!this.skipping && this.length + piece.length <= this.maxLineBytes) {
      this.pieces.push(piece);
      this.length += piece.length;
      return;
    }
    if (!this.skipping) {
      this.skipping = true;
      this.head = Buffer.from(Buffer.concat(firstBytes([...this.pieces, piece])).subarray(0, EDGE_BYTES));
      this.keepTail(Buffer.concat(this.pieces.slice(-2)));
      this.pieces = [];
      this.length = 0;
    }
    this.keepTail(piece.length >= EDGE_BYTES ? piece : Buffer.concat([this.tail, piece]));
  }

  /** Keep the last bytes seen of a dropped line (a copy: the chunk they came in may be large). */
  private keepTail(bytes: Buffer): void {
    this.tail = Buffer.from(bytes.subarray(Math.max(0, bytes.length - EDGE_BYTES)));
  }

  private lineEnded(): void {
    if (this.skipping) {
      const [head, tail] = [this.head.toString('utf8'), this.tail.toString('utf8')];
      this.skipping = false;
      this.head = EMPTY;
      this.tail = EMPTY;
      this.events.oversized(head, tail);
      return;
    }
    const line = Buffer.concat(this.pieces, this.length).toString('utf8');
    this.pieces = [];
    this.length = 0;
    this.events.line(line);
  }
}

/** The leading pieces that hold a line's first EDGE_BYTES. */
function firstBytes(pieces: Buffer[]): Buffer[] {
  const first: Buffer[] = [];
  let length = 0;
  for (const piece of pieces) {
    if (length >= EDGE_BYTES) break;
    first.push(piece);
    length += piece.length;
  }
  return first;
}
