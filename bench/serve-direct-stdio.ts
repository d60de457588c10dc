/**
 * Serve one plugin directly over stdio, without the host: the baseline
 * `npm run bench` compares the host against.
 * Usage: node dist/bench/serve-direct-stdio.js PLUGIN_ENTRY [OPTIONS_JSON]
 */
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { pino } from 'pino';
import type { PluginDefinition } from '../host/plugin.js';

const entry = process.argv[2];
if (!entry) throw new Error('usage: serve-direct-stdio PLUGIN_ENTRY [OPTIONS_JSON]');
const options = JSON.parse(process.argv[3] ?? '{}') as Record<string, unknown>;
const definition = (await import(pathToFileURL(resolve(entry)).href)).default as PluginDefinition;
const server = await definition.create({ options, logger: pino({ level: 'silent' }) });
await server.connect(new StdioServerTransport() as never);
