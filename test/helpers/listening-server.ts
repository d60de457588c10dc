import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { until } from './host.js';
import type { Teardown } from './host.js';

/** A server script (`args`) that prints `listening on URL`: its URL, and the process (stopped when the test ends). */
export async function startListening(
  t: Teardown,
  args: string[],
): Promise<{ url: string; child: ChildProcessByStdio<null, Readable, Readable> }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => child.kill());
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await until(`${args[0]} to listen`, () => out.includes('/mcp'));
  return { url: /listening on (\S+)/.exec(out)![1]!, child };
}
