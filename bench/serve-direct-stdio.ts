/**
 * Serve one plugin directly over stdio, without the host: the baseline
 * `npm run bench` compares the host against.
 * Usage: node dist/bench/serve-direct-stdio.js PLUGIN_ENTRY [OPTIONS_JSON]
 */
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { loadPlugin } from './plugin-entry.js';

const entry = process.argv[2];
if (!entry) throw new Error('usage: serve-direct-stdio PLUGIN_ENTRY [OPTIONS_JSON]');
const plugin = await loadPlugin(entry, JSON.parse(process.argv[3] ?? '{}') as Record<string, unknown>);
await (await plugin()).connect(new StdioServerTransport() as never);
