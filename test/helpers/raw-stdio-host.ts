/**
 * The host as a child process on stdio, spoken to in raw lines, for tests
 * of what is on the wire itself: every line it writes to stdout is kept,
 * parsed, and any that is not JSON is kept apart (`garbage`), where the
 * SDK's client would skip it unseen.
 *
 *   const host = new RawStdioHost(t, configFile);
 *   host.send(rawInitializeLine('raw'));
 *   await host.answer(0);
 *   t.same(host.garbage, []);
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Test } from 'tap';
import { CLI, stopWithin } from './host.js';
import { EVENT_MS } from './timing.js';

export type Message = { jsonrpc?: string; id?: unknown; result?: unknown; error?: { code: number; message: string } };

/** The host as a child process, spoken to in raw lines on its stdin and stdout. */
export class RawStdioHost {
  readonly child: ChildProcess;
  /** Everything the host wrote to stdout, parsed: it must all be JSON-RPC. */
  readonly received: Message[] = [];
  /** Lines on stdout that were not JSON. */
  readonly garbage: string[] = [];
  stderr = '';
  private partial = '';
  private nextId = 1;

  constructor(t: Test, config: string) {
    this.child = spawn(process.execPath, [CLI, 'start', '--config', config], {
      env: { ...process.env, MCP_HOST_LOG_LEVEL: 'info' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (text: string) => {
      const lines = (this.partial + text).split('\n');
      this.partial = lines.pop()!;
      for (const line of lines) {
        try {
          this.received.push(JSON.parse(line) as Message);
        } catch {
          this.garbage.push(line);
        }
      }
    });
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    // Ended as a client ends a stdio server: its stdin closed.
    t.teardown(() => stopWithin(this.child, () => this.child.stdin!.end()));
  }

  send(line: string): void {
    this.child.stdin!.write(`${line}\n`);
  }

  /** Every message answering `id` so far. */
  answersTo(id: unknown): Message[] {
    return this.received.filter((message) => message.id === id && ('result' in message || 'error' in message));
  }

  async answer(id: unknown, ms = EVENT_MS): Promise<Message> {
    const deadline = Date.now() + ms;
    for (;;) {
      const [found] = this.answersTo(id);
      if (found) return found;
      if (this.child.exitCode !== null) throw new Error(`the host exited (${this.child.exitCode}):\n${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`no answer to ${JSON.stringify(id)} within ${ms} ms:\n${this.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  /** Send a request with a fresh id and wait for its answer. */
  async request(method: string, params?: Record<string, unknown>): Promise<Message> {
    const id = `r${this.nextId++}`;
    this.send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) }));
    return this.answer(id);
  }

  /** Messages received after `mark` (an index into `received`) answering nothing: what unsolicited output there was. */
  since(mark: number): Message[] {
    return this.received.slice(mark);
  }
}
