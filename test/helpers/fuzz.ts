/**
 * A small seeded generator of hostile MCP traffic: well-formed requests
 * with odd params, unknown methods, JSON-RPC shapes that are wrong in one
 * way, batches, bare JSON values, mutated serialisations, random text and
 * deep nesting. The same seed gives the same messages, so a failure can be
 * replayed.
 *
 *   const fuzz = new Fuzzer(7);
 *   const line = fuzz.message(); // one JSON-RPC-ish text, no newline in it
 */

/** mulberry32: small, fast, and good enough to spread test inputs. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** Methods a host answers, so that well-formed requests reach real handlers. */
const REAL_METHODS = [
  'ping',
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'completion/complete',
  'logging/setLevel',
];
const NOTIFICATIONS = ['notifications/initialized', 'notifications/roots/list_changed', 'notifications/progress'];
const ODD_STRINGS = [
  '',
  ' ',
  'null',
  '\u0000',
  '\ud83d\ude00',
  'é',
  '../../etc/passwd',
  '%00',
  'a'.repeat(300),
  '"}',
  '\\',
];

export class Fuzzer {
  private readonly random: () => number;
  private nextId = 1;

  constructor(readonly seed: number) {
    this.random = mulberry32(seed);
  }

  int(below: number): number {
    return Math.floor(this.random() * below);
  }

  chance(p: number): boolean {
    return this.random() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** A fresh request id, never used before by this fuzzer. */
  id(): string | number {
    const n = this.nextId++;
    return this.chance(0.5) ? `fuzz-${this.seed}-${n}` : 1_000_000 * this.seed + n;
  }

  /** Any JSON value, nested at most `depth` deep. */
  value(depth = 3): unknown {
    const kind = this.int(depth > 0 ? 8 : 5);
    switch (kind) {
      case 0:
        return null;
      case 1:
        return this.chance(0.5);
      case 2:
        return this.pick([0, -1, 1.5, 1e308, -0, 2 ** 53, this.int(1000)]);
      case 3:
        return this.pick(ODD_STRINGS);
      case 4:
        return this.word();
      case 5:
      case 6: {
        const object: Record<string, unknown> = {};
        for (let i = this.int(4); i > 0; i--)
          object[this.pick(['name', 'cursor', 'uri', '_meta', this.word()])] = this.value(depth - 1);
        return object;
      }
      default:
        return Array.from({ length: this.int(4) }, () => this.value(depth - 1));
    }
  }

  /** Params for a real method: often plausible, sometimes wrong in one field. */
  params(method: string): Record<string, unknown> {
    switch (method) {
      case 'tools/call':
        return {
          name: this.pick(['good.echo', 'good.nope', 'nope', '', 'good.', '.echo']),
          arguments: this.chance(0.6) ? { text: this.pick(['hi', 42, null, ...ODD_STRINGS]) } : this.value(2),
        };
      case 'tools/list':
      case 'prompts/list':
      case 'resources/list':
        return this.chance(0.5) ? {} : { cursor: this.pick(['', 'abc', 'eyJnIjoxfQ', this.word(), 42]) };
      case 'resources/read':
      case 'resources/subscribe':
        return { uri: this.pick(['', 'file:///nope', 'nope://x', this.word(), 7]) };
      case 'prompts/get':
        return { name: this.pick(['good.x', '', 'x']), arguments: this.value(1) };
      case 'completion/complete':
        return { ref: this.value(2), argument: this.value(2) };
      case 'logging/setLevel':
        return { level: this.pick(['debug', 'info', 'emergency', 'loud', 3]) };
      default:
        return this.value(2) as Record<string, unknown>;
    }
  }

  word(): string {
    const letters = 'abcdefghijklmnopqrstuvwxyz/_.-';
    return Array.from({ length: 1 + this.int(12) }, () => this.pick([...letters])).join('');
  }

  /** A well-formed request for a real method. */
  request(): Record<string, unknown> {
    const method = this.pick(REAL_METHODS);
    return { jsonrpc: '2.0', id: this.id(), method, params: this.params(method) };
  }

  /** One message as text: what a confused or hostile client might send. Never contains a newline. */
  message(): string {
    const roll = this.int(100);
    let text: string;
    if (roll < 25) text = JSON.stringify(this.request());
    else if (roll < 35)
      text = JSON.stringify({ jsonrpc: '2.0', id: this.id(), method: this.word(), params: this.value(2) });
    else if (roll < 42)
      text = JSON.stringify({ jsonrpc: '2.0', method: this.pick(NOTIFICATIONS), params: this.value(2) });
    else if (roll < 57) text = JSON.stringify(this.misshapen());
    else if (roll < 62) text = JSON.stringify(Array.from({ length: this.int(4) }, () => this.request()));
    else if (roll < 70) text = JSON.stringify(this.value(4));
    else if (roll < 85) text = this.mutate(JSON.stringify(this.request()));
    else if (roll < 93)
      text = Array.from({ length: this.int(80) }, () => String.fromCharCode(32 + this.int(95))).join('');
    else text = this.deep();
    return text.replace(/[\r\n]/g, ' ');
  }

  /** A request wrong in exactly one JSON-RPC way. */
  private misshapen(): unknown {
    const request = this.request();
    switch (this.int(8)) {
      case 0:
        delete request.jsonrpc;
        return request;
      case 1:
        return { ...request, jsonrpc: this.pick(['1.0', '2', 2, null]) };
      case 2:
        return { ...request, id: this.pick([null, true, { a: 1 }, [1], 1.5]) };
      case 3:
        return { ...request, method: this.pick([42, null, ['tools/list'], {}]) };
      case 4:
        return { ...request, params: this.pick(['str', 42, [1, 2], true]) };
      case 5:
        return { ...request, [this.word()]: this.value(1) };
      case 6:
        return { jsonrpc: '2.0', id: this.id() };
      default:
        return { jsonrpc: '2.0', id: this.id(), result: this.value(1), error: { code: 'x' } };
    }
  }

  /** A serialisation cut, flipped, spliced or doubled. */
  private mutate(text: string): string {
    const at = this.int(text.length);
    switch (this.int(5)) {
      case 0:
        return text.slice(0, at);
      case 1:
        return text.slice(0, at) + String.fromCharCode(32 + this.int(95)) + text.slice(at + 1);
      case 2:
        return text.slice(0, at) + this.pick(['{', '}', '"', ',', ':', '[', ']', '\\', '\u0000']) + text.slice(at);
      case 3:
        return text.slice(0, at) + text.slice(at + 1 + this.int(5));
      default:
        return text + text;
    }
  }

  /** A request whose params nest thousands deep: parsers and printers that recurse meet their stack. */
  private deep(): string {
    const depth = 1000 + this.int(20_000);
    const [open, close] = this.chance(0.5) ? ['[', ']'] : ['{"a":', '}'];
    const method = this.pick(['tools/call', 'tools/list', this.word()]);
    return `{"jsonrpc":"2.0","id":${JSON.stringify(this.id())},"method":"${method}","params":{"name":"good.echo","arguments":{"text":${open.repeat(depth)}1${close.repeat(depth)}}}}`;
  }
}
