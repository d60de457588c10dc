/**
 * Many small plugins in a workspace, for the figures that scale with the
 * number of mounts (start time, reload latency): each `@bench/pN` is a real
 * package whose v2 McpServer registers `tools` tools.
 */
import type { Workspace } from '../test/helpers/packages.js';

export function writeBenchPlugin(ws: Workspace, index: number, version: string, tools: number): void {
  const name = `p${index}`;
  ws.writePackage(
    `node_modules/@bench/${name}`,
    { name: `@bench/${name}`, version, type: 'module', exports: './index.js', 'mcp-host': { prefix: name } },
    {
      'index.js': `import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
export default {
  create() {
    const server = new McpServer({ name: '${name}', version: '${version}' });
    for (let i = 0; i < ${tools}; i++) {
      server.registerTool('tool_' + i, { description: 'Tool ' + i + ' (${version}).', inputSchema: z.object({ text: z.string() }) },
        async ({ text }) => ({ content: [{ type: 'text', text }] }));
    }
    return server;
  },
};
`,
    },
  );
}

/** The config mounting `@bench/p0` … `@bench/p{plugins-1}`, written to `fileName` in the workspace. */
export function writeBenchConfig(ws: Workspace, plugins: number, watch: boolean, fileName?: string): string {
  return ws.writeConfig(
    {
      plugins: Array.from({ length: plugins }, (_, i) => ({ package: `@bench/p${i}` })),
      reload: { watch },
      log: { level: 'warn' },
    },
    fileName,
  );
}
