/**
 * Serve one plugin directly over Streamable HTTP, without the host: the
 * baseline `scripts/conformance.sh --direct` runs the suite against (so a
 * scenario that fails only through the host is the host's failure) and the
 * HTTP half of `npm run bench` measures the host against. Each session (and
 * each 2026-07-28 request) gets a fresh server from the plugin's `create`;
 * the wiring is streamable-http.ts.
 *
 * Usage: node dist/bench/serve-direct-http.js PLUGIN_ENTRY [HOST:]PORT [--streamed-json]
 * Prints `listening on http://HOST:PORT/mcp` once it accepts connections.
 * `--streamed-json` answers 2026-07-28 requests the SDK would stream over SSE
 * in streamed JSON bodies, as the suite's reference server does
 * (`scripts/conformance.sh --streamed-json`).
 */
import { pino } from 'pino';
import { loadPlugin } from './plugin-entry.js';
import { entryAndAddress, serveStreamableHttp } from './streamable-http.js';

const { entry, ...address } = entryAndAddress('serve-direct-http');
const logger = pino({ level: process.env.LOG_LEVEL ?? 'warn' }, pino.destination(2));
const answers = process.argv.includes('--streamed-json') ? 'streamed-json' : 'sse';
serveStreamableHttp(await loadPlugin(entry, {}, logger.child({ plugin: entry })), address, logger, answers);
