/**
 * `mcp-host/testing`: a plugin author's tests exercise their plugin through
 * a real host, as an operator's clients will reach it.
 *
 *   import { mountForTest } from 'mcp-host/testing';
 *   const { client, close } = await mountForTest('./', { options: { units: 'metric' } });
 *   const { tools } = await client.listTools(); // [{ name: 'weather.forecast', … }]
 *   await close();
 *
 * The host runs as a child process on stdio (`mcp-host start`), with a
 * config that mounts the package alone; the client is the MCP SDK's own.
 * A plugin the host refuses fails `mountForTest` with the host's reasons.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { BIN } from './code-location.js';

export interface MountForTestOptions {
  /** The entry's `options`, passed to the plugin's `create`. Default `{}`. */
  options?: Record<string, unknown>;
  /** Mount under this prefix (default: the package's own), or `flat: true` for names unchanged. */
  prefix?: string;
  flat?: boolean;
  /** Further host config keys (`separator`, `protocolVersions`, …). */
  config?: Record<string, unknown>;
}

export interface MountedForTest {
  /** An MCP SDK client connected to the host serving the plugin. */
  client: Client;
  /** Everything the host wrote to stderr so far: its log, and the plugin's. */
  log(): string;
  /** Disconnect, stop the host, remove its temporary config. */
  close(): Promise<void>;
}

/** Mount the plugin package in `packageDir` (relative to the working directory) in a test host. */
export async function mountForTest(packageDir: string, options: MountForTestOptions = {}): Promise<MountedForTest> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-host-test-'));
  const configFile = join(dir, 'mcp-host.config.json');
  const entry = {
    package: resolve(packageDir),
    ...(options.prefix !== undefined && { prefix: options.prefix }),
    ...(options.flat && { flat: true }),
    options: options.options ?? {},
  };
  writeFileSync(configFile, JSON.stringify({ ...options.config, plugins: [entry], reload: { watch: false } }));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'start', '--stdio', '--config', configFile],
    env: { ...process.env, MCP_HOST_LOG_LEVEL: process.env.MCP_HOST_LOG_LEVEL ?? 'warn' } as Record<string, string>,
    stderr: 'pipe',
  });
  let log = '';
  transport.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const client = new Client({ name: 'mcp-host-testing', version: '1.0.0' });
  const removeConfig = () => rmSync(dir, { recursive: true, force: true });
  try {
    await client.connect(transport);
  } catch (error) {
    removeConfig();
    throw new Error(`the host did not mount ${entry.package}:\n${log.trim() || String(error)}`, { cause: error });
  }
  return {
    client,
    log: () => log,
    async close() {
      await client.close();
      removeConfig();
    },
  };
}
