/**
 * The README's examples as real packages, for the tests that hold the README
 * to its word: a fenced block read from it, its plugin-author example written
 * out exactly as printed, and small plugins in the same shape.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, type Workspace } from './packages.js';

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');

/** The `index`th fenced block of `language` after `heading` in the README. */
export function readmeBlock(heading: string, language: string, index = 0): string {
  const from = README.indexOf(`\n${heading}\n`);
  if (from === -1) throw new Error(`no "${heading}" in the README`);
  const blocks = [...README.slice(from).matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))];
  const block = blocks[index]?.[1];
  if (block === undefined) throw new Error(`no ${language} block #${index} after "${heading}"`);
  return block;
}

/** A plugin in the README's shape (SDK v2, tools only): `tools` each answer with their own name. */
export function writePlugin(
  ws: Workspace,
  relDir: string,
  name: string,
  manifest: Record<string, unknown>,
  tools: string[],
) {
  return ws.writePackage(
    relDir,
    {
      name,
      version: '1.0.0',
      type: 'module',
      exports: './index.js',
      peerDependencies: { 'mcp-host': '^1.0.0' },
      peerDependenciesMeta: { 'mcp-host': { optional: true } },
      'mcp-host': manifest,
    },
    {
      'index.js': `import { McpServer } from '@modelcontextprotocol/server';
export default {
  create() {
    const server = new McpServer({ name: ${JSON.stringify(name)}, version: '1.0.0' });
    for (const tool of ${JSON.stringify(tools)}) {
      server.registerTool(tool, { description: tool }, async () => ({ content: [{ type: 'text', text: tool }] }));
    }
    return server;
  },
};
`,
    },
  );
}

/** The README's plugin-author example, package.json and index.js exactly as printed, at `relDir`. */
export function writeReadmeWeather(ws: Workspace, relDir: string): string {
  const dir = join(ws.dir, relDir);
  ws.writeFile(join(relDir, 'package.json'), readmeBlock('## Plugin authors', 'json'));
  ws.writeFile(join(relDir, 'index.js'), readmeBlock('## Plugin authors', 'js'));
  return dir;
}
