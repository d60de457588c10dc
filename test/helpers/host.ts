/**
 * The host as a real child process, as the tests drive it: on stdio with the
 * SDK's own Client, over HTTP at the URL it logs, or as a one-shot CLI run.
 *
 *   const host = await startStdioHost(t, configFile);
 *   await host.client.listTools();
 *   await host.until('a tools/list_changed', () => host.notified.tools > 0);
 *
 *   const { url } = await startHttpHost(t, configFile);
 *   const { code, stdout, stderr } = await runCli(['check', '--config', configFile]);
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import {
  Client,
  StreamableHTTPClientTransport,
  type ClientOptions,
  type FetchLike,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { Test } from 'tap';
import { REPO_ROOT } from './packages.js';
import { EVENT_MS, EXIT_MS } from './timing.js';

/** The built CLI the tests run, as a user would: the bundle the bin names (`npm run build` first). */
export const CLI = join(REPO_ROOT, 'dist/bundle/cli.js');

export type ListName = 'tools' | 'prompts' | 'resources';

export interface StdioHost {
  client: Client;
  /** The client's transport, for a test that watches the wire itself. */
  transport: StdioClientTransport;
  pid: number;
  /** How many `list_changed` notifications arrived, per list. */
  notified: Record<ListName, number>;
  /** Everything the host wrote to stderr so far (its pino log). */
  log(): string;
  /** Wait until `check` holds, failing with the host's log after `ms`. */
  until(what: string, check: () => boolean, ms?: number): Promise<void>;
}

/** The part of a tap test the helpers use. */
export interface Teardown {
  teardown(fn: () => unknown): void;
}

export interface StartOptions {
  /** Extra arguments after `start --config FILE`. */
  args?: string[];
  /** Set for the host, over MCP_HOST_LOG_LEVEL=debug (and the test's own environment, see `inheritEnv`). */
  env?: NodeJS.ProcessEnv;
  /**
   * false: the host gets only the SDK's default environment (PATH, HOME, …)
   * plus `env`, as an MCP client launches a server; not the test's own.
   */
  inheritEnv?: boolean;
  cwd?: string;
  clientOptions?: ClientOptions;
  /** The Node.js binary the host runs on (default: the test's own). */
  node?: string;
}

/** With `configFile` undefined the host finds its config itself, searching from `options.cwd`, as `npm start` does. */
export async function startStdioHost(
  t: Teardown,
  configFile: string | undefined,
  options: StartOptions = {},
): Promise<StdioHost> {
  const transport = new StdioClientTransport({
    command: options.node ?? process.execPath,
    args: [CLI, 'start', ...(configFile === undefined ? [] : ['--config', configFile]), ...(options.args ?? [])],
    env: {
      ...(options.inheritEnv === false ? {} : process.env),
      MCP_HOST_LOG_LEVEL: 'debug',
      ...options.env,
    } as Record<string, string>,
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
  t.teardown(() => closeStdioHost(client, transport));
  return {
    client,
    transport,
    pid: transport.pid!,
    notified,
    log: () => log,
    until: (what, check, ms) => until(what, check, ms, () => log),
  };
}

/**
 * End a stdio host the way a client that quits does (SIGTERM, which the host
 * answers by stopping) and give it EXIT_MS to exit. The SDK's own close ends
 * stdin and kills the host 4 s later (SIGTERM at 2 s, SIGKILL at 4): on a
 * loaded machine a host still writing its coverage as it exits is killed,
 * and what it served is lost from the coverage (CI once measured
 * input-required.ts at 84% lines for it, 97% on a quiet run).
 */
async function closeStdioHost(client: Client, transport: StdioClientTransport): Promise<void> {
  const pid = transport.pid;
  const closed = new Promise<void>((resolve) => {
    const previous = client.onclose;
    client.onclose = () => {
      previous?.();
      resolve();
    };
  });
  if (pid !== null && signal(pid, 'SIGTERM')) {
    const killer = setTimeout(() => signal(pid, 'SIGKILL'), EXIT_MS);
    await Promise.race([closed, sleep(2 * EXIT_MS, undefined, { ref: false })]);
    clearTimeout(killer);
  }
  await client.close();
}

/** Send a signal; false when the process is already gone. */
function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}

export interface HttpHost {
  /** The endpoint, as the host logged it once listening (its real port). */
  url: string;
  child: ChildProcess;
  /** Everything the host wrote to stderr so far (its pino log). */
  log(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

export interface HttpStartOptions {
  /** The arguments after `start --config FILE`. */
  args?: string[];
  /** Set for the host, over the test's own environment and MCP_HOST_LOG_LEVEL=info. */
  env?: NodeJS.ProcessEnv;
  /** The Node.js binary the host runs on (default: the test's own). */
  node?: string;
}

/**
 * End a host the way its user would (`stop`), so that it writes its
 * coverage as it exits (a killed process writes none); killed if it has
 * not exited after EXIT_MS.
 */
export async function stopWithin(child: ChildProcess, stop: () => void): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  stop();
  const killer = setTimeout(() => child.kill('SIGKILL'), EXIT_MS);
  await exited;
  clearTimeout(killer);
}

/**
 * `mcp-host start --config FILE --http 127.0.0.1:0` (or `args` in place of
 * the --http flag), its URL learned from the `listening on http://…` log
 * line; stopped (SIGTERM) when the test ends.
 */
export async function startHttpHost(
  t: Teardown,
  configFile: string,
  { args = ['--http', '127.0.0.1:0'], env = {}, node = process.execPath }: HttpStartOptions = {},
): Promise<HttpHost> {
  const child = spawn(node, [CLI, 'start', '--config', configFile, ...args], {
    env: { ...process.env, MCP_HOST_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
    // Its own process group, ended when this test process ends (endedWithTheTest).
    detached: true,
  });
  endedWithTheTest(child);
  let log = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // Stopped as an operator stops it.
  t.teardown(() => stopWithin(child, () => child.kill('SIGTERM')));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      const match = /listening on (http:\/\/[^\s"]+)/.exec(log);
      if (match) resolve(match[1]!);
    });
    void exited.then((code) => reject(new Error(`the host exited (${code}) before listening:\n${log}`)));
  });
  return { url, child, log: () => log, exited };
}

/** The HTTP hosts of this test process still running. */
const runningHosts = new Set<ChildProcess>();
let endingHostsOnExit = false;

/**
 * A host whose test process ends (it finished, failed, or was killed with
 * SIGINT, SIGTERM or SIGHUP, as tap's timeout and Ctrl-C do) is stopped
 * with it: its process group is sent SIGTERM, which the host answers by
 * closing its own children. A stdio host needs none of this: it exits when
 * its stdin, this process's pipe, closes.
 */
function endedWithTheTest(child: ChildProcess): void {
  if (!endingHostsOnExit) {
    endingHostsOnExit = true;
    process.once('exit', endRunningHosts);
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      process.once(signal, () => {
        endRunningHosts();
        // Raised again, now without this listener: the test process ends as the signal would have ended
        // it (a handler that deferred to this one, as tap's signal-exit does, then acts).
        process.kill(process.pid, signal);
      });
    }
  }
  runningHosts.add(child);
  child.once('exit', () => runningHosts.delete(child));
}

function endRunningHosts(): void {
  for (const child of runningHosts) {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // its group is gone already
    }
  }
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** How long the command took, in milliseconds. */
  ms: number;
}

/** `mcp-host ARGS…` run to its end, as a user runs it (the test's environment unless `env`). */
export function runCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliRun> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], options, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr, ms: Date.now() - started }),
    );
  });
}

/** One JSON-RPC message as a line of the stdio transport, as a client without an SDK writes it. */
export const jsonRpcLine = (message: object): string => `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`;

/** A 2025-era `initialize` request (id 0) from a client without an SDK, as a line for the host's stdin. */
export function rawInitializeLine(clientName: string): string {
  return jsonRpcLine({
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: clientName, version: '1' } },
  });
}

/** A 2025-era `initialize` POSTed to an HTTP host by a client without an SDK, with a bearer token when given. */
export function postInitialize(
  url: string,
  { token, clientName = 'raw' }: { token?: string; clientName?: string } = {},
) {
  return fetch(url, {
    method: 'POST',
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: rawInitializeLine(clientName),
  });
}

/** A raw 2025-era `tools/list` on `session` with `token`: whether the session is the token's (200) or not (404). */
export function listOnSession(url: string, session: string, token: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
}

/** Poll until `check` holds; fail naming what was awaited (and the host's log, when given). */
export async function until(what: string, check: () => boolean, ms = EVENT_MS, log?: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${log ? `; host log:\n${log()}` : ''}`);
    await sleep(10);
  }
}

/** Poll an asynchronous condition until it holds, failing after `ms` naming what was awaited. */
export async function eventually(what: string, check: () => Promise<boolean>, ms = EVENT_MS): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/**
 * Assert that `check` holds, waiting for it first (up to `ms`): a condition
 * that comes true by itself (a file a plugin writes, a message on its way)
 * is asserted once it has, or as it is when the wait is over.
 */
export async function assertEventually(
  t: Pick<Test, 'ok'>,
  message: string,
  check: () => boolean,
  ms?: number,
): Promise<void> {
  await until(message, check, ms).catch(() => {});
  t.ok(check(), message);
}

/**
 * Assert that the host's log shows `pattern` (a substring, or a RegExp),
 * waiting for it first: log lines reach the test on stderr, apart from the
 * answers on stdout, and the host writes them asynchronously, so a line
 * logged before an answer may still arrive after it. A line that never
 * comes fails the assertion, with the log as it was.
 */
export async function assertLogged(
  t: Pick<Test, 'match'>,
  log: () => string,
  pattern: string | RegExp,
  message?: string,
): Promise<void> {
  const shows = () => (typeof pattern === 'string' ? log().includes(pattern) : pattern.test(log()));
  await until(`the log to show ${String(pattern)}`, shows).catch(() => {});
  if (message === undefined) t.match(log(), pattern);
  else t.match(log(), pattern, message);
}

/**
 * A fetch for a 2025-era HTTP client that says when its notification
 * stream is open: the SDK opens that GET after `connect` returns, and a
 * notification sent before it is open never reaches the client. A test that
 * expects one waits for `opened` rather than sleeping.
 */
export function watchingNotificationStream(inner: FetchLike = fetch): { fetch: FetchLike; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return {
    opened,
    fetch: async (input, init) => {
      const response = await inner(input, init);
      if ((init?.method ?? 'GET') === 'GET' && response.ok) open();
      return response;
    },
  };
}

/** An SDK client connected over Streamable HTTP with a bearer token, closed when `t` ends. */
export async function connectWithBearer(t: Teardown, url: string, token: string, name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  t.teardown(() => client.close());
  return client;
}
