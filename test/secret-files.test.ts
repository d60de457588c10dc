// Secrets from files (DESIGN.md, "Containment"): an in-process plugin can
// read the host's starting environment through /proc/self/environ however
// process.env is cleaned, so bearer tokens can come from http.auth.tokensFile
// instead, which no environment holds. The host runs as a child process;
// the plugin is a real package in a temporary workspace.
import t from 'tap';
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { runCli, startHttpHost } from './helpers/host.js';
import { makeWorkspace } from './helpers/packages.js';
import { firstText } from './helpers/results.js';

t.setTimeout(60_000);

const FILE_TOKEN = 'from-a-file-0123456789abcdef';
const ENV_TOKEN = 'from-the-environment-0123456789';

t.test('tokens from http.auth.tokensFile are accepted, and in-process code finds them in no environment', async (t) => {
  const ws = makeWorkspace(t);
  ws.writePackage(
    'node_modules/@t/snoop',
    { name: '@t/snoop', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': { prefix: 'snoop' } },
    {
      'index.js': `import { readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/server';
export default {
  create() {
    const server = new McpServer({ name: 'snoop', version: '1.0.0' });
    server.registerTool('environ', { description: 'What the host process was started with.' }, async () => {
      const environ = readFileSync('/proc/self/environ', 'utf8');
      const seen = (token) => ({ environ: environ.includes(token), env: Object.values(process.env).some((v) => v?.includes(token)) });
      return { content: [{ type: 'text', text: JSON.stringify({ file: seen(${JSON.stringify(FILE_TOKEN)}), env: seen(${JSON.stringify(ENV_TOKEN)}) }) }] };
    });
    return server;
  },
};
`,
    },
  );
  ws.writeFile('secrets/tokens', `${FILE_TOKEN}\n\n`);
  const configFile = ws.writeConfig({
    plugins: [{ package: '@t/snoop' }],
    http: { port: 0, auth: { tokensFile: 'secrets/tokens' } },
    reload: { watch: false },
  });
  const host = await startHttpHost(t, configFile, { args: [], env: { MCP_HOST_HTTP_TOKENS: ENV_TOKEN } });
  const refused = await fetch(host.url, { method: 'POST', headers: { authorization: 'Bearer not-a-token' } });
  t.equal(refused.status, 401);
  t.match(
    (await refused.json()) as object,
    { error_description: /its tokens come from http\.auth\.tokensFile and MCP_HOST_HTTP_TOKENS/ },
    'the refusal names where tokens come from, not what they are',
  );

  const client = new Client({ name: 'secret-files-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(host.url), {
      requestInit: { headers: { authorization: `Bearer ${FILE_TOKEN}` } },
    }),
  );
  t.teardown(() => client.close());
  const seen = JSON.parse(firstText(await client.callTool({ name: 'snoop.environ', arguments: {} }))) as unknown;
  t.same(
    seen,
    { file: { environ: false, env: false }, env: { environ: true, env: false } },
    'a token from the file is nowhere in the process’s environment; one from a variable is gone from process.env but not from /proc/self/environ',
  );
});

t.test('a tokensFile that cannot be read, or holds no token, refuses to start', async (t) => {
  const ws = makeWorkspace(t);
  const start = async (tokensFile: string) => {
    const configFile = ws.writeConfig({ plugins: [], http: { port: 0, auth: { tokensFile } } });
    return runCli(['start', '--config', configFile], { env: { ...process.env, MCP_HOST_HTTP_TOKENS: undefined } });
  };
  const missing = await start('secrets/absent');
  t.equal(missing.code, 1);
  t.equal(
    missing.stderr,
    `mcp-host: mcp-host.config.js: http.auth: cannot read bearer tokens (http.auth.tokensFile) from ${ws.dir}/secrets/absent: ENOENT: no such file or directory, open '${ws.dir}/secrets/absent'. Fix: create the file, readable by the host's user, or correct its path.\n`,
  );
  ws.writeFile('secrets/blank', ' \n,\n');
  const blank = await start('secrets/blank');
  t.equal(blank.code, 1);
  t.equal(
    blank.stderr,
    `mcp-host: mcp-host.config.js: http.auth: http.auth.tokensFile ${ws.dir}/secrets/blank holds no token (it is empty or only commas, spaces and line ends), so the endpoint would be served open. Fix: put one or more tokens in it, one a line (make one with \`openssl rand -hex 32\`), or remove tokensFile.\n`,
  );
  const invalid = await runCli([
    'check',
    '--config',
    ws.writeConfig({ plugins: [], http: { auth: { tokensFile: 3 } } }),
  ]);
  t.equal(invalid.code, 1);
  t.match(invalid.stdout + invalid.stderr, /http\.auth\.tokensFile.*expected a non-empty string/);
});
