import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

/** A plugin whose tools cost nothing, so a benchmark measures the path to them. */
export default {
  create() {
    const server = new McpServer({ name: 'bench-echo', version: '1.0.0' });
    server.registerTool(
      'echo',
      { description: 'Return the text it is given.', inputSchema: z.object({ text: z.string() }) },
      async ({ text }) => ({ content: [{ type: 'text', text }] }),
    );
    for (let i = 0; i < 20; i++) {
      server.registerTool(`noop_${i}`, { description: `A tool that only fills the list (${i}).` }, async () => ({
        content: [],
      }));
    }
    return server;
  },
};
