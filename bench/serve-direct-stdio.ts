/**
 * Serve one plugin directly over stdio, without the host: the baseline
 * `npm run bench` compares the host against. `serveStdio` is the SDK's own
 * entry for a stdio server and its fastest path (issue #31 measured it at
 * about twice the rate of `McpServer.connect(new StdioServerTransport())`),
 * so the host is held to the best a plugin's author could do alone.
 * Usage: node dist/bench/serve-direct-stdio.js PLUGIN_ENTRY [OPTIONS_JSON]
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { loadPlugin } from './plugin-entry.js';

const entry = process.argv[2];
if (!entry) throw new Error('usage: serve-direct-stdio PLUGIN_ENTRY [OPTIONS_JSON]');
const plugin = await loadPlugin(entry, JSON.parse(process.argv[3] ?? '{}') as Record<string, unknown>);
serveStdio(async () => (await plugin()) as McpServer);
