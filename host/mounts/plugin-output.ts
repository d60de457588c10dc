/**
 * stdout belongs to the transport (DESIGN.md, "Containment"): in stdio mode
 * it carries the client's JSON-RPC, and a line a plugin printed there would
 * reach the client as if the host had sent it. And stderr is the host's
 * log: a line a plugin printed there could pass for one of the host's.
 *
 * So what in-process plugin code writes to either goes to the host's log,
 * one entry per line, under the plugin's name (`"plugin"`) and the stream it
 * was written to (`"stream"`), the text as the entry's message, as a stdio
 * child's stderr is logged: `console.log`, `process.stdout.write`,
 * `console.error`, `process.stderr.write`, and `fs` writes to descriptor 1
 * (`fs.writeSync(1, …)`, a write stream on fd 1). In the host's thread the
 * plugin is the one whose async context the write is made in
 * (fault-attribution.ts); a worker's thread is all its plugin's, and its
 * writes to descriptors 1 and 2 go to the worker's own streams, which the
 * host reads and logs (worker-channel.ts).
 *
 * What cannot be caught in a process shared with the plugin, docs/security.md
 * says: descriptor 2 written through `fs` in the host's thread (the host's
 * own log writes there, from any context), a descriptor the plugin opens
 * itself (`/dev/stdout`, `/proc/self/fd/1`), and native code. A plugin
 * trusted less runs at `'process'` or `'sandbox'`, with a stdout of its own.
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import type { Logger } from '../log.js';
import { pluginInContext } from './isolation/in-process-link.js';

/** Where a write to a standard descriptor goes instead; false: it is written as asked. */
type Divert = (fd: number, bytes: Buffer) => boolean;

/** Log each line of `bytes` as the plugin's, written to `stream`. */
export function logPluginLines(logger: Logger, stream: 'stdout' | 'stderr', bytes: Buffer | string): void {
  for (const line of bytes.toString().split('\n')) {
    const text = line.trimEnd();
    if (text !== '') logger.info({ stream }, text);
  }
}

/** The streams' own `write`, before `markPluginOutput` stood in front of it. */
const unmarked = new WeakMap<object, NodeJS.WritableStream['write']>();

/**
 * Write as the host, whatever the async context: the stdio transport's
 * answers are the host's even when host work a plugin set off sends them.
 */
export function writeAsHost(stream: NodeJS.WritableStream, chunk: string): boolean {
  return (unmarked.get(stream) ?? stream.write).call(stream, chunk);
}

/** In the host's thread: the plugin in context's writes to stdout and stderr go to the host's log. */
export function markPluginOutput(): void {
  for (const stream of ['stdout', 'stderr'] as const) {
    const target = process[stream];
    const write = target.write;
    unmarked.set(target, write);
    target.write = function (this: unknown, chunk: unknown, ...rest: unknown[]): boolean {
      const claim = pluginInContext();
      if (!claim) return Reflect.apply(write, this, [chunk, ...rest]) as boolean;
      const encoding = typeof rest[0] === 'string' ? (rest[0] as BufferEncoding) : undefined;
      logPluginLines(claim.logger, stream, bytesOf(chunk, undefined, encoding));
      const done = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
      if (done) process.nextTick(done);
      return true;
    } as typeof target.write;
  }
  divertDescriptorWrites((fd, bytes) => {
    const claim = pluginInContext();
    if (fd !== 1 || !claim) return false;
    logPluginLines(claim.logger, 'stdout', bytes);
    return true;
  });
}

/**
 * In a plugin's worker: `fs` writes to descriptors 1 and 2 go to the
 * worker's `process.stdout` and `process.stderr`, which the host reads as
 * the plugin's; `ownLine()` says when a write to 2 is the worker's logger's
 * own (already marked with the plugin's name), to be written as it is.
 */
export function divertWorkerDescriptors(ownLine: () => boolean): void {
  divertDescriptorWrites((fd, bytes) => {
    if (fd === 2 && ownLine()) return false;
    (fd === 1 ? process.stdout : process.stderr).write(bytes);
    return true;
  });
}

/** `fs`'s writes (sync, callback and stream) to descriptors 1 and 2, offered to `divert` first. */
function divertDescriptorWrites(divert: Divert): void {
  const standard = (fd: unknown): fd is number => fd === 1 || fd === 2;
  const { writeSync, write, writevSync, writev, writeFileSync, appendFileSync } = fs;
  const done = (args: unknown[], ...results: unknown[]) => {
    const callback = args.findLast((arg) => typeof arg === 'function') as ((...r: unknown[]) => void) | undefined;
    if (callback) process.nextTick(callback, null, ...results);
  };
  Object.assign(fs, {
    writeSync(fd: unknown, data: unknown, a?: unknown, b?: unknown, ...rest: unknown[]) {
      const bytes = standard(fd) ? bytesOf(data, a, b) : undefined;
      if (bytes && divert(fd as number, bytes)) return bytes.length;
      return Reflect.apply(writeSync, fs, [fd, data, a, b, ...rest]) as number;
    },
    write(fd: unknown, data: unknown, ...rest: unknown[]) {
      const bytes = standard(fd) ? bytesOf(data, rest[0], rest[1]) : undefined;
      if (bytes && divert(fd as number, bytes)) return done(rest, bytes.length, data);
      return Reflect.apply(write, fs, [fd, data, ...rest]) as void;
    },
    writevSync(fd: unknown, views: ArrayBufferView[], ...rest: unknown[]) {
      const bytes = standard(fd) ? Buffer.concat(views.map((view) => bytesOf(view))) : undefined;
      if (bytes && divert(fd as number, bytes)) return bytes.length;
      return Reflect.apply(writevSync, fs, [fd, views, ...rest]) as number;
    },
    writev(fd: unknown, views: ArrayBufferView[], ...rest: unknown[]) {
      const bytes = standard(fd) ? Buffer.concat(views.map((view) => bytesOf(view))) : undefined;
      if (bytes && divert(fd as number, bytes)) return done(rest, bytes.length, views);
      return Reflect.apply(writev, fs, [fd, views, ...rest]) as void;
    },
    writeFileSync(file: unknown, data: unknown, options?: unknown) {
      if (standard(file) && divert(file, bytesOf(data, undefined, encodingOf(options)))) return;
      return Reflect.apply(writeFileSync, fs, [file, data, options]) as void;
    },
    appendFileSync(file: unknown, data: unknown, options?: unknown) {
      if (standard(file) && divert(file, bytesOf(data, undefined, encodingOf(options)))) return;
      return Reflect.apply(appendFileSync, fs, [file, data, options]) as void;
    },
  });
  // `import { writeSync } from 'node:fs'` reads the module's named exports, which do not follow the object unless told.
  syncBuiltinESMExports();
}

function encodingOf(options: unknown): BufferEncoding | undefined {
  if (typeof options === 'string') return options as BufferEncoding;
  return (options as { encoding?: BufferEncoding } | undefined)?.encoding ?? undefined;
}

/**
 * The bytes a write of `data` would write: a string in its encoding (the
 * argument after its position), or the part of a buffer its offset and
 * length (or `{ offset, length }`) name.
 */
function bytesOf(data: unknown, a?: unknown, b?: unknown): Buffer {
  if (typeof data === 'string') return Buffer.from(data, typeof b === 'string' ? (b as BufferEncoding) : 'utf8');
  const view = data as ArrayBufferView;
  const whole = Buffer.from(view.buffer, view.byteOffset, view.byteLength);
  const range =
    typeof a === 'object' && a !== null
      ? (a as { offset?: number; length?: number })
      : { offset: typeof a === 'number' ? a : undefined, length: typeof b === 'number' ? b : undefined };
  const offset = range.offset ?? 0;
  return whole.subarray(offset, range.length === undefined ? undefined : offset + range.length);
}
