/**
 * The host as a real child process, driven by the SDK's own Client over
 * stdio: what every end-to-end test starts from.
 *
 *   const host = await startStdioHost(t, configFile);
 *   await host.client.listTools();
 *   await host.until('a tools/list_changed', () => host.notified.tools > 0);
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { Client, type ClientOptions } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { REPO_ROOT } from './packages.js';

/** The built CLI the tests run, as a user would (`npm run build` first). */
export const CLI = join(REPO_ROOT, 'dist/host/cli.js');

export type ListName = 'tools' | 'prompts' | 'resources';

export interface StdioHost {
  client: Client;
  pid: number;
  /** How many `list_changed` notifications arrived, per list. */
  notified: Record<ListName, number>;
  /** Everything the host wrote to stderr so far (its pino log). */
  log(): string;
  /** Wait until `check` holds, failing with the host's log after `ms`. */
  until(what: string, check: () => boolean, ms?: number): Promise<void>;
}

interface Teardown {
  teardown(fn: () => unknown): void;
}

export interface StartOptions {
  /** Extra arguments after `start --config FILE`. */
  args?: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  clientOptions?: ClientOptions;
}

export async function startStdioHost(t: Teardown, configFile: string, options: StartOptions = {}): Promise<StdioHost> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'start', '--config', configFile, ...(options.args ?? [])],
    env: { ...process.env, MCP_HOST_LOG_LEVEL: 'debug', ...options.env } as Record<string, string>,
    ...(options.cwd ? { cwd: options.cwd } : {}),
    stderr: 'pipe',
  });
  let log = '';
  transport.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const client = new Client({ name: 'mcp-host-test', version: '1.0.0' }, options.clientOptions);
  const notified: Record<ListName, number> = { tools: 0, prompts: 0, resources: 0 };
  for (const list of ['tools', 'prompts', 'resources'] as const) {
    client.setNotificationHandler(`notifications/${list}/list_changed`, () => void notified[list]++);
  }
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`the host did not start: ${String(error)}\nhost log:\n${log}`, { cause: error });
  }
  t.teardown(() => client.close());
  return {
    client,
    pid: transport.pid!,
    notified,
    log: () => log,
    until: (what, check, ms) => until(what, check, ms, () => log),
  };
}

/** Poll until `check` holds; fail naming what was awaited (and the host's log, when given). */
export async function until(what: string, check: () => boolean, ms = 10_000, log?: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${log ? `; host log:\n${log()}` : ''}`);
    await sleep(10);
  }
}
