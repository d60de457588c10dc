import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

/** A plugin whose tools cost nothing, so a benchmark measures the path to them. */
export default {
  /**
   * `options.announceChanges: false` serves the same tools without promising
   * `tools/list_changed`, so the host cannot keep their pages: every
   * `tools/list` through the host reaches the plugin (what the first list
   * after a change costs).
   */
  create({ options = {} } = {}) {
    const announceChanges = options.announceChanges !== false;
    const server = new McpServer(
      { name: 'bench-echo', version: '1.0.0' },
      announceChanges ? {} : { capabilities: { tools: { listChanged: false } } },
    );
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
