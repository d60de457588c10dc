/**
 * The floor of any MCP proxy built on the SDK, for `npm run bench`, over
 * Streamable HTTP: one server of the plugin, connected once (as the host
 * connects its plugins), behind the least proxy the SDK allows
 * (sdk-proxy.ts), with a front server per session (and per 2026-07-28
 * request) on the same wiring as serve-direct-http.ts (streamable-http.ts).
 * The host's cost over it is what the host itself adds.
 *
 * Usage: node dist/bench/serve-sdk-proxy-http.js PLUGIN_ENTRY [HOST:]PORT
 * Prints `listening on http://HOST:PORT/mcp` once it accepts connections.
 */
import { pino } from 'pino';
import { loadPlugin } from './plugin-entry.js';
import { connectPlugin, proxyServer } from './sdk-proxy.js';
import { entryAndAddress, serveStreamableHttp } from './streamable-http.js';

const { entry, ...address } = entryAndAddress('serve-sdk-proxy-http');
const logger = pino({ level: process.env.LOG_LEVEL ?? 'warn' }, pino.destination(2));
const plugins = [await connectPlugin(await loadPlugin(entry, {}, logger.child({ plugin: entry })))];
serveStreamableHttp(async () => proxyServer(plugins), address, logger);
