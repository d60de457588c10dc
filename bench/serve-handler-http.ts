/**
 * Serve one plugin directly over Streamable HTTP the SDK's shortest way:
 * `createMcpHandler` with its defaults (a fresh server of the plugin per
 * request, 2025-era requests served statelessly), behind `toNodeHandler`.
 * The HTTP baseline `npm run bench` holds the host against beside the
 * sessionful one (serve-direct-http.ts): whichever is faster is the goal's.
 *
 * Usage: node dist/bench/serve-handler-http.js PLUGIN_ENTRY [HOST:]PORT
 * Prints `listening on http://HOST:PORT/mcp` once it accepts connections.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, type McpServer } from '@modelcontextprotocol/server';
import { loadPlugin } from './plugin-entry.js';
import { entryAndAddress } from './streamable-http.js';

const { entry, host, port } = entryAndAddress('serve-handler-http');
const plugin = await loadPlugin(entry);
const handler = toNodeHandler(createMcpHandler(async () => (await plugin()) as McpServer));
const http = createServer((req, res) => void handler(req, res));
http.listen(port, host, () => {
  process.stdout.write(`listening on http://${host}:${(http.address() as AddressInfo).port}/mcp\n`);
});
process.once('SIGTERM', () => process.exit(0));
