/**
 * `mcp-host init --plugin NAME`: a plugin package to start from, in
 * `./NAME`. Everything a plugin needs and nothing more: package.json with
 * its `"mcp-host"` field and peer range, an entry serving one tool, one
 * prompt and one resource, and a test that mounts it in a real host through
 * `mcp-host/testing`. `npm install`, `npm test` and `mcp-host check` pass in
 * it as written, so an author starts from a green package and changes it.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HostError } from '../errors.js';
import { suggestPrefix } from '../config/prefix.js';
import { HOST_VERSION } from '../version.js';
import { PACKAGE_ROOT } from '../code-location.js';

/** npm's rule for a new package's name: lower case, URL-safe, at most 214 characters, optionally scoped. */
const PACKAGE_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;

export async function initPlugin(options: { cwd: string; name: string }): Promise<number> {
  const { name } = options;
  if (!PACKAGE_NAME.test(name) || name.length > 214) {
    throw new HostError({
      where: `mcp-host init --plugin ${JSON.stringify(name)}`,
      what: 'NAME is not a name npm accepts for a new package.',
      fix: 'use lower-case letters, digits, "-", "." and "_", optionally after a scope (@acme/weather): mcp-host init --plugin weather.',
    });
  }
  const dir = join(options.cwd, name.split('/').at(-1)!);
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    throw new HostError({
      where: dir,
      what: 'the directory exists and is not empty; init never overwrites files.',
      fix: `run mcp-host init --plugin ${name} where there is no ${name.split('/').at(-1)!}/, or remove that directory first.`,
    });
  }
  const prefix = suggestPrefix(name, '.');
  const files = pluginFiles(name, prefix);
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), content);
  }
  process.stdout.write(
    `wrote the plugin package ${name} in ${dir}: ${Object.keys(files).join(', ')}\n` +
      `its tools, prompts and resources are served under the prefix "${prefix}" (${prefix}.greet)\n` +
      `next: cd ${dir} && npm install && npm test && mcp-host check\n` +
      `(its devDependency "mcp-host" is this mcp-host, file:${PACKAGE_ROOT}, for mcp-host/testing)\n`,
  );
  return 0;
}

/** The package's files, by path relative to its directory. */
function pluginFiles(name: string, prefix: string): Record<string, string> {
  const host = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const packageJson = {
    name,
    version: '0.1.0',
    description: 'An mcp-host plugin.',
    type: 'module',
    exports: './index.js',
    files: ['index.js'],
    scripts: { test: 'node --test' },
    dependencies: {
      '@modelcontextprotocol/server': host.dependencies['@modelcontextprotocol/server'],
      zod: host.dependencies.zod,
    },
    // The host's own package, for mcp-host/testing; `npm install --save-dev mcp-host` replaces it once published.
    devDependencies: { 'mcp-host': `file:${PACKAGE_ROOT}` },
    peerDependencies: { 'mcp-host': `^${HOST_VERSION.split('.')[0]}.0.0` },
    peerDependenciesMeta: { 'mcp-host': { optional: true } },
    'mcp-host': { prefix },
  };
  return {
    'package.json': `${JSON.stringify(packageJson, null, 2)}\n`,
    'index.js': entry(name),
    [`test/${prefix}.test.js`]: pluginTest(prefix),
  };
}

function entry(name: string): string {
  const server = JSON.stringify(name);
  return `// The plugin: the host imports this module and calls create() once per mount.
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

/** @type {import('mcp-host/plugin').PluginDefinition<{ greeting?: string }>} */
export default {
  // options: the entry's "options" in the host config; logger: a pino logger whose lines name this plugin.
  create({ options, logger }) {
    const server = new McpServer({ name: ${server}, version: '0.1.0' });

    server.registerTool(
      'greet',
      { description: 'Greet someone by name', inputSchema: z.object({ name: z.string() }) },
      async ({ name }) => {
        logger.debug({ name }, 'greet called');
        return { content: [{ type: 'text', text: \`\${options.greeting ?? 'Hello'}, \${name}!\` }] };
      },
    );

    server.registerPrompt(
      'introduce',
      { description: 'Ask for a one-line introduction of someone', argsSchema: z.object({ name: z.string() }) },
      ({ name }) => ({
        messages: [{ role: 'user', content: { type: 'text', text: \`Introduce \${name} in one sentence.\` } }],
      }),
    );

    server.registerResource(
      'about',
      'about://plugin',
      { description: 'What this plugin serves', mimeType: 'text/plain' },
      async (uri) => ({
        contents: [{ uri: uri.href, text: 'A greet tool, an introduce prompt and this resource.' }],
      }),
    );

    return server;
  },
};
`;
}

function pluginTest(prefix: string): string {
  return `// Run with npm test (node --test): the plugin mounted in a real host, reached by an MCP client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mountForTest } from 'mcp-host/testing';

test('the tool, the prompt and the resource, through the host', async () => {
  const { client, close } = await mountForTest('./', { options: { greeting: 'Hi' } });
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['${prefix}.greet'],
    );
    const greeted = await client.callTool({ name: '${prefix}.greet', arguments: { name: 'Ada' } });
    assert.equal(greeted.content[0].text, 'Hi, Ada!');

    const prompt = await client.getPrompt({ name: '${prefix}.introduce', arguments: { name: 'Ada' } });
    assert.equal(prompt.messages[0].content.text, 'Introduce Ada in one sentence.');

    const { resources } = await client.listResources();
    assert.equal(resources.length, 1);
    const read = await client.readResource({ uri: resources[0].uri });
    assert.equal(read.contents[0].text, 'A greet tool, an introduce prompt and this resource.');
  } finally {
    await close();
  }
});
`;
}
