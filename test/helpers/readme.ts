/**
 * The README's and docs' examples as real packages, for the tests that hold
 * them to their word: a fenced block read from them, the plugin-author
 * example written out exactly as printed, and small plugins in the same shape.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, type Workspace } from './packages.js';

/**
 * The `index`th fenced block of `language` after `heading` in `file` (the
 * README, or a page of docs/), its indentation removed.
 */
export function readmeBlock(heading: string, language: string, index = 0, file = 'README.md'): string {
  const text = `\n${readFileSync(join(REPO_ROOT, file), 'utf8')}`;
  const from = text.indexOf(`\n${heading}\n`);
  if (from === -1) throw new Error(`no "${heading}" in ${file}`);
  const blocks = [...text.slice(from).matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))];
  const block = blocks[index]?.[1];
  if (block === undefined) throw new Error(`no ${language} block #${index} after "${heading}" in ${file}`);
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

/**
 * The plugin-author example, package.json and index.js exactly as printed,
 * at `relDir`: docs/plugin-authors.md's (`@acme/mcp-weather`) by default, or
 * the README's first steps' (`weather`).
 */
export function writeReadmeWeather(ws: Workspace, relDir: string, from: 'docs' | 'README' = 'docs'): string {
  const [heading, file] =
    from === 'docs' ? ['# Plugin authors', 'docs/plugin-authors.md'] : ['## Plugin authors: first steps', 'README.md'];
  const dir = join(ws.dir, relDir);
  ws.writeFile(join(relDir, 'package.json'), readmeBlock(heading, 'json', 0, file));
  ws.writeFile(join(relDir, 'index.js'), readmeBlock(heading, 'js', 0, file));
  return dir;
}
