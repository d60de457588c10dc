// forwardHeaders end to end: the host runs as a child process serving HTTP;
// a remote MCP server (the SDK's own HTTP handler, on 127.0.0.1) and
// in-process plugins written with either SDK report the headers each call
// reached them with. Nothing is forwarded unless an entry asks, and the
// host's own bearer token never is.
import t, { type Test } from 'tap';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startHttpHost } from './helpers/host.js';
import { makeWorkspace, type Workspace } from './helpers/packages.js';
import { firstText } from './helpers/results.js';
import { startRecordingUpstream, type RecordingUpstream } from './helpers/recording-upstream.js';

/** The headers a `whoami` tool reports, whichever were sent. */
const WATCHED = ['authorization', 'x-tenant', 'x-api-key', 'x-b-key', 'x-other'];

/** A remote MCP server whose `whoami` answers the watched headers of the request that called it. */
function startUpstream(t: Test): Promise<RecordingUpstream> {
  return startRecordingUpstream(t, (server) =>
    server.registerTool('whoami', { description: 'The headers this call came with' }, (ctx) => ({
      content: [{ type: 'text', text: JSON.stringify(watched(ctx.http?.req?.headers)) }],
    })),
  );
}

function watched(headers: Headers | undefined): Record<string, string> {
  return Object.fromEntries(
    WATCHED.flatMap((name) => (headers?.get(name) == null ? [] : [[name, headers.get(name)!]])),
  );
}

/** Two in-process plugins answering `whoami` the way each SDK shows a handler its request's headers. */
function writePlugins(ws: Workspace): void {
  const report = `(headers) => ({ content: [{ type: 'text', text: JSON.stringify(Object.fromEntries(${JSON.stringify(WATCHED)}.flatMap((name) => { const value = typeof headers?.get === 'function' ? headers.get(name) : headers?.[name]; return value == null ? [] : [[name, value]]; }))) }] })`;
  const manifest = (name: string) => ({
    name,
    version: '1.0.0',
    type: 'module',
    exports: './index.js',
    'mcp-host': {},
  });
  ws.writePackage('node_modules/@fw/v2', manifest('@fw/v2'), {
    'index.js': `import { McpServer } from '@modelcontextprotocol/server';
const report = ${report};
export default {
  create() {
    const server = new McpServer({ name: 'v2', version: '1.0.0' });
    server.registerTool('whoami', { description: 'The headers this call came with' }, (ctx) => report(ctx.http?.req?.headers));
    return server;
  },
};
`,
  });
  ws.writePackage('node_modules/@fw/v1', manifest('@fw/v1'), {
    'index.js': `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
const report = ${report};
export default {
  create() {
    const server = new McpServer({ name: 'v1', version: '1.0.0' });
    server.registerTool('whoami', { description: 'The headers this call came with' }, (extra) => report(extra.requestInfo?.headers));
    return server;
  },
};
`,
  });
}

async function connect(t: Test, url: string, headers: Record<string, string>, modern = false): Promise<Client> {
  const client = new Client(
    { name: 'forwarding', version: '1.0.0' },
    modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  t.teardown(() => client.close());
  return client;
}

async function whoami(client: Client, tool: string): Promise<unknown> {
  return JSON.parse(firstText(await client.callTool({ name: tool, arguments: {} })));
}

t.test(
  'a mount gets the client headers its entry forwards, with the calls a client makes, and no others',
  async (t) => {
    const upstream = await startUpstream(t);
    const ws = makeWorkspace(t);
    writePlugins(ws);
    const config = ws.writeConfig({
      reload: { watch: false },
      http: { port: 0 },
      plugins: [
        { url: upstream.url, prefix: 'remote', forwardHeaders: ['Authorization', 'X-Tenant'] },
        { url: upstream.url, prefix: 'plain' },
        { package: '@fw/v2', prefix: 'v2', forwardHeaders: { 'X-Api-Key': 'X-B-Key' } },
        { package: '@fw/v1', prefix: 'v1', forwardHeaders: ['X-Tenant'] },
        { package: '@fw/v2', prefix: 'closed' },
      ],
    });
    const host = await startHttpHost(t, config, { args: [], env: { MCP_HOST_HTTP_TOKENS: undefined } });
    const sent = { authorization: 'Bearer user-token', 'x-tenant': 'acme', 'x-b-key': 'b-key', 'x-other': 'private' };
    const legacy = await connect(t, host.url, sent);

    t.same(await whoami(legacy, 'remote.whoami'), { authorization: 'Bearer user-token', 'x-tenant': 'acme' });
    t.same(await whoami(legacy, 'plain.whoami'), {}, 'an entry that asks for nothing gets nothing');
    t.same(await whoami(legacy, 'v2.whoami'), { 'x-api-key': 'b-key' }, 'renamed, in ctx.http.req (SDK v2)');
    t.same(await whoami(legacy, 'v1.whoami'), { 'x-tenant': 'acme' }, 'in extra.requestInfo.headers (SDK v1)');
    t.same(await whoami(legacy, 'closed.whoami'), {});

    const modern = await connect(t, host.url, { ...sent, authorization: 'Bearer modern-token' }, true);
    t.same(await whoami(modern, 'remote.whoami'), { authorization: 'Bearer modern-token', 'x-tenant': 'acme' });
    t.same(await whoami(modern, 'v1.whoami'), { 'x-tenant': 'acme' }, 'and for 2026-07-28 clients');

    // The upstream connection is the host's, shared by every client: only the
    // two calls made for a client carried that client's token; the handshake,
    // the lists and the other mount's requests carried none.
    const withToken = upstream.seen.filter((headers) => headers.authorization !== undefined);
    t.same(
      withToken.map((headers) => headers.authorization),
      ['Bearer user-token', 'Bearer modern-token'],
    );
    t.notOk(
      upstream.seen.some((headers) => JSON.stringify(headers).includes('private')),
      'a header no entry forwards went nowhere',
    );
  },
);

t.test(
  "with bearer auth on, the host's token is never forwarded; a renamed header carries the upstream's",
  async (t) => {
    const upstream = await startUpstream(t);
    const ws = makeWorkspace(t);
    const config = ws.writeConfig({
      reload: { watch: false },
      // Auth from the environment alone: the config cannot see it, so the refusal
      // at validation does not apply and the request path must drop the token.
      http: { port: 0 },
      plugins: [
        { url: upstream.url, prefix: 'renamed', forwardHeaders: { Authorization: 'X-Upstream-Authorization' } },
        { url: upstream.url, prefix: 'naive', forwardHeaders: ['Authorization', 'X-Tenant'] },
      ],
    });
    const host = await startHttpHost(t, config, { args: [], env: { MCP_HOST_HTTP_TOKENS: 'host-secret-0123456789' } });
    const client = await connect(t, host.url, {
      authorization: 'Bearer host-secret-0123456789',
      'x-upstream-authorization': 'Bearer upstream-token',
      'x-tenant': 'acme',
    });
    t.same(await whoami(client, 'renamed.whoami'), { authorization: 'Bearer upstream-token' });
    t.same(await whoami(client, 'naive.whoami'), { 'x-tenant': 'acme' }, 'the host token was dropped before any mount');
    t.notOk(
      upstream.seen.some((headers) => JSON.stringify(headers).includes('host-secret-0123456789')),
      "no request upstream carried the host's token",
    );
  },
);
