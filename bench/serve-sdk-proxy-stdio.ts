/**
 * The floor of any MCP proxy built on the SDK, for `npm run bench`: plugins
 * behind the least such a proxy does and nothing more. An SDK `Server` on
 * stdio whose `tools/list` and `tools/call` handlers pass the request,
 * through an SDK `Client` per plugin, to the plugin's own server over the
 * SDK's in-memory transport: no names, no routing, no containment, no checks
 * of its own. Its cost over direct is what passing a call through a second
 * SDK server costs, whoever writes the proxy; the host's cost over it is what
 * the host itself adds. With several plugins, `tools/list` is their lists one
 * after another (names as they are, even when they repeat) and `tools/call`
 * goes to the first: enough to time a start, and a call through one plugin.
 * Usage: node dist/bench/serve-sdk-proxy-stdio.js PLUGIN_ENTRY... [--options OPTIONS_JSON]
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, Server } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { pino } from 'pino';
import type { PluginDefinition } from '../host/plugin.js';

const { values, positionals: entries } = parseArgs({
  options: { options: { type: 'string' } },
  allowPositionals: true,
});
if (entries.length === 0) throw new Error('usage: serve-sdk-proxy-stdio PLUGIN_ENTRY... [--options OPTIONS_JSON]');
const options = JSON.parse(values.options ?? '{}') as Record<string, unknown>;

async function connectPlugin(entry: string): Promise<Client> {
  const definition = (await import(pathToFileURL(resolve(entry)).href)).default as PluginDefinition;
  const plugin = await definition.create({ options, logger: pino({ level: 'silent' }) });
  const [clientSide, pluginSide] = InMemoryTransport.createLinkedPair();
  await plugin.connect(pluginSide as never);
  const client = new Client({ name: 'sdk-proxy', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}
const plugins = await Promise.all(entries.map(connectPlugin));

const front = new Server({ name: 'sdk-proxy', version: '1.0.0' }, { capabilities: { tools: {} } });
front.setRequestHandler('tools/list', async () => ({
  tools: (await Promise.all(plugins.map((plugin) => plugin.listTools()))).flatMap((list) => list.tools),
}));
front.setRequestHandler('tools/call', (request) => plugins[0]!.callTool(request.params) as never);
await front.connect(new StdioServerTransport());
