/**
 * The least proxy the SDK allows, for the bench's floor
 * (serve-sdk-proxy-stdio.ts, serve-sdk-proxy-http.ts): an SDK `Server` whose
 * `tools/list` and `tools/call` handlers pass the request, through an SDK
 * `Client` per plugin, to the plugin's own server over the SDK's in-memory
 * transport: no names, no routing, no containment, no checks of its own.
 * Its cost over direct is what passing a call through a second SDK server
 * costs, whoever writes the proxy.
 */
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, Server } from '@modelcontextprotocol/server';
import type { PluginFactory } from './plugin-entry.js';

/** One server of the plugin, and an SDK client connected to it in memory. */
export async function connectPlugin(plugin: PluginFactory): Promise<Client> {
  const server = await plugin();
  const [clientSide, pluginSide] = InMemoryTransport.createLinkedPair();
  await server.connect(pluginSide as never);
  const client = new Client({ name: 'sdk-proxy', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

/**
 * A front server passing to `plugins`: `tools/list` is their lists one after
 * another (names as they are, even when they repeat) and `tools/call` goes
 * to the first; enough to time a start, and a call through one plugin.
 */
export function proxyServer(plugins: readonly Client[]): Server {
  const front = new Server({ name: 'sdk-proxy', version: '1.0.0' }, { capabilities: { tools: {} } });
  front.setRequestHandler('tools/list', async () => ({
    tools: (await Promise.all(plugins.map((plugin) => plugin.listTools()))).flatMap((list) => list.tools),
  }));
  front.setRequestHandler('tools/call', (request) => plugins[0]!.callTool(request.params) as never);
  return front;
}
