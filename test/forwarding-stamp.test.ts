// A replica of a cluster accepts a forwarded request only with a stamp whose
// MAC its cluster's key made (DESIGN.md, "Scale"). Tested from outside, as
// an attacker on the network sees a replica: a real `mcp-host start` with a
// real Redis, sent stamps that are well formed in every way but their MAC.
// A MAC of the right length and alphabet is what tells a real compare from a
// length check alone; one of each length a SHA-256 or SHA-512 MAC is written
// in (base64url, hex), so the test holds whichever the stamp carries.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { startHttpHost } from './helpers/host.js';
import { startRedis } from './helpers/engines.js';
import { makeWorkspace } from './helpers/packages.js';

const SECRET = 'a-cluster-secret-for-the-stamp-test-0123456789';

const ws = makeWorkspace(t);
ws.writePackage(
  'node_modules/@test/mcp-echo',
  { name: '@test/mcp-echo', version: '1.0.0', type: 'module', exports: './index.js', 'mcp-host': { prefix: 'e' } },
  {
    'index.js': `
import { McpServer } from '@modelcontextprotocol/server';
export default { create: () => new McpServer({ name: 'echo', version: '1.0.0' }) };
`,
  },
);
const config = ws.writeConfig({
  plugins: [{ package: '@test/mcp-echo' }],
  reload: { watch: false },
  cluster: { name: 'stamps' },
});
const redis = await startRedis(t);
const replica = await startHttpHost(t, config, {
  env: { MCP_HOST_REDIS_URL: redis.url, MCP_HOST_CLUSTER_SECRET: SECRET, MCP_HOST_HTTP_TOKENS: undefined },
});

/** A tools/list as a replica forwards it, carrying `stamp`. */
const forwarded = (stamp: string) =>
  fetch(replica.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'x-mcp-host-peer': stamp,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });

const macs = {
  'SHA-256 in base64url': randomBytes(32).toString('base64url'),
  'SHA-256 in hex': randomBytes(32).toString('hex'),
  'SHA-512 in base64url': randomBytes(64).toString('base64url'),
  'SHA-512 in hex': randomBytes(64).toString('hex'),
};

for (const [form, mac] of Object.entries(macs)) {
  for (const client of ['', 'token-1']) {
    t.test(`a fresh stamp ${client ? `for ${client} ` : ''}with a forged MAC (${form}) is refused 401`, async (t) => {
      const response = await forwarded(`${Date.now()}.${client}.${mac}`);
      t.equal(response.status, 401);
      t.match(await response.text(), /Unauthorized: a request forwarded by an mcp-host replica was refused/);
    });
  }
}
