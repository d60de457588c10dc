/**
 * The floor of any MCP proxy built on the SDK, for `npm run bench`, over
 * stdio: plugins behind the least such a proxy does and nothing more
 * (sdk-proxy.ts). The host's cost over it is what the host itself adds.
 * Usage: node dist/bench/serve-sdk-proxy-stdio.js PLUGIN_ENTRY... [--options OPTIONS_JSON]
 */
import { parseArgs } from 'node:util';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { loadPlugin } from './plugin-entry.js';
import { connectPlugin, proxyServer } from './sdk-proxy.js';

const { values, positionals: entries } = parseArgs({
  options: { options: { type: 'string' } },
  allowPositionals: true,
});
if (entries.length === 0) throw new Error('usage: serve-sdk-proxy-stdio PLUGIN_ENTRY... [--options OPTIONS_JSON]');
const options = JSON.parse(values.options ?? '{}') as Record<string, unknown>;
const plugins = await Promise.all(entries.map(async (entry) => connectPlugin(await loadPlugin(entry, options))));
// Served as the direct server is (serve-direct-stdio.ts), so the two differ only in the second dispatch.
serveStdio(() => proxyServer(plugins));
