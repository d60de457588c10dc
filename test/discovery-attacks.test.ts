// search_tools (docs/discovery.md) against a caller who builds its query to
// cost the host: a word said over and over up to the length bound is
// searched once, so it ranks as the word said once and costs as little.
import t from 'tap';
import { startStdioHost } from './helpers/host.js';
import { makeWorkspace } from './helpers/packages.js';

const FX_PLUGIN = `import { McpServer } from '@modelcontextprotocol/server';
export default {
  create() {
    const server = new McpServer({ name: 'fx', version: '1.0.0' });
    server.registerTool('convert', { description: 'Converts an amount of money from one currency into another' },
      async () => ({ content: [{ type: 'text', text: 'converted' }] }));
    server.registerTool('rate', { description: 'The exchange rate between two currencies' },
      async () => ({ content: [{ type: 'text', text: '1.1' }] }));
    server.registerTool('holidays', { description: 'Bank holidays when currency markets are closed' },
      async () => ({ content: [{ type: 'text', text: 'none' }] }));
    return server;
  },
};
`;

t.test('a word repeated in a query counts once: it ranks as the word said once', async (t) => {
  const ws = makeWorkspace(t);
  ws.writePackage(
    'node_modules/@t/fx',
    { name: '@t/fx', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': { prefix: 'fx' } },
    { 'index.js': FX_PLUGIN },
  );
  const host = await startStdioHost(
    t,
    ws.writeConfig({ discovery: { mode: 'search' }, plugins: [{ package: '@t/fx', prefix: 'fx' }] }),
  );
  const ranked = async (query: string) => {
    const result = await host.client.callTool({ name: 'search_tools', arguments: { query } });
    return (result.structuredContent as { tools: { name: string }[] }).tools.map((tool) => tool.name);
  };
  const once = await ranked('bank rate');
  t.ok(once.length > 1, `more than one tool found: ${once.join(', ')}`);
  const repeated = await ranked(`${'bank '.repeat(99)}rate`);
  t.same(repeated, once, 'the same tools in the same order');
});
