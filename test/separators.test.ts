// The config's `separator` joins a mount's prefix to its plugin's names
// ("." by default, "_" or "__" for clients that reject "."), end to end: the
// host lists the composed names and routes calls and prompts made with them
// back to the plugin's own names, including a name that holds "_" itself.
import t from 'tap';
import { startStdioHost } from './helpers/host.js';
import { makeWorkspace } from './helpers/packages.js';
import { firstText } from './helpers/results.js';

const WEATHER = `
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
export default {
  create() {
    const server = new McpServer({ name: 'weather', version: '1.0.0' });
    const text = (value) => ({ content: [{ type: 'text', text: value }] });
    server.registerTool('forecast', { inputSchema: z.object({ city: z.string() }) }, ({ city }) => text('sunny in ' + city));
    server.registerTool('wind_speed', { inputSchema: z.object({}) }, () => text('calm'));
    server.registerPrompt('report', {}, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'the weather report' } }] }));
    return server;
  },
};
`;

for (const separator of ['.', '_', '__'] as const) {
  t.test(`separator "${separator}": names are listed and served as prefix${separator}name`, async (t) => {
    const ws = makeWorkspace(t);
    ws.writePackage(
      'node_modules/@test/mcp-weather',
      { name: '@test/mcp-weather', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': {} },
      { 'index.js': WEATHER },
    );
    const config = ws.writeConfig({
      separator,
      plugins: [{ package: '@test/mcp-weather', prefix: 'weather' }],
      reload: { watch: false },
    });
    const { client } = await startStdioHost(t, config);
    const named = (name: string) => `weather${separator}${name}`;
    const { tools } = await client.listTools();
    t.same(tools.map((tool) => tool.name).sort(), [named('forecast'), named('wind_speed')]);
    const { prompts } = await client.listPrompts();
    t.same(
      prompts.map((prompt) => prompt.name),
      [named('report')],
    );
    t.equal(
      firstText(await client.callTool({ name: named('forecast'), arguments: { city: 'Oslo' } })),
      'sunny in Oslo',
    );
    t.equal(firstText(await client.callTool({ name: named('wind_speed'), arguments: {} })), 'calm');
    const prompt = await client.getPrompt({ name: named('report') });
    t.same(prompt.messages[0]?.content, { type: 'text', text: 'the weather report' });
  });
}
