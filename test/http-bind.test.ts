// Where `mcp-host start` binds HTTP, run as a user runs it: 127.0.0.1 unless
// told otherwise (`--http PORT`, or a config `http` section with no host),
// and a bind beyond loopback without a token is refused at start.
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import t, { type Test } from 'tap';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { runCli, startHttpHost, type HttpHost } from './helpers/host.js';
import { makeWorkspace } from './helpers/packages.js';
import { firstText } from './helpers/results.js';
import { writeZoo } from './helpers/zoo.js';

/** A config serving the zoo's good plugin; `http` is its http section, if any. */
function goodConfig(t: Test, http?: Record<string, unknown>): string {
  const ws = makeWorkspace(t);
  writeZoo(ws);
  return ws.writeConfig({ reload: { watch: false }, ...(http ? { http } : {}), plugins: [{ package: '@zoo/good' }] });
}

/** This machine's first non-loopback IPv4 address, if it has one. */
function outwardAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((address) => address?.family === 'IPv4' && !address.internal)?.address;
}

/** Whether a TCP connection to `host:port` is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The host serves at `url`, and only on loopback: another address of this machine refuses the connection. */
async function servesOnLoopbackOnly(t: Test, host: HttpHost): Promise<void> {
  const url = new URL(host.url);
  t.equal(url.hostname, '127.0.0.1', 'bound to 127.0.0.1');
  const client = new Client({ name: 'bind-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url));
  t.teardown(() => client.close());
  t.equal(firstText(await client.callTool({ name: 'good.echo', arguments: { text: 'hi' } })), 'hi');
  const outward = outwardAddress();
  if (outward) t.notOk(await accepts(outward, Number(url.port)), `not reachable at ${outward}`);
}

/** `mcp-host start` refuses a bind beyond loopback with no token, naming the fix, and serves nothing. */
async function refusesUnauthenticatedNetworkBind(t: Test, config: string, args: string[]): Promise<void> {
  const run = await runCli(['start', '--config', config, ...args], {
    env: { ...process.env, MCP_HOST_HTTP_TOKENS: undefined },
  });
  t.equal(run.code, 1, 'exit 1');
  t.match(
    run.stderr,
    "http.auth: the endpoint would be bound to 0.0.0.0, reachable beyond this machine, with no auth. Fix: set MCP_HOST_HTTP_TOKENS to a token (make one with `openssl rand -hex 32`), or set http.auth: 'none' in the config if an authenticating proxy guards it, or bind 127.0.0.1.",
  );
}

t.test('--http PORT alone binds 127.0.0.1', async (t) => {
  const host = await startHttpHost(t, goodConfig(t), { args: ['--http', '0'] });
  await servesOnLoopbackOnly(t, host);
});

t.test('a config http section with no host binds 127.0.0.1', async (t) => {
  const host = await startHttpHost(t, goodConfig(t, { port: 0 }), { args: [] });
  await servesOnLoopbackOnly(t, host);
});

t.test('a loopback bind without a token serves', async (t) => {
  const host = await startHttpHost(t, goodConfig(t), { args: ['--http', '0'] });
  t.notMatch(host.log(), 'reachable beyond this machine');
});

t.test('a bind beyond loopback without a token is refused, from the flag or the config', async (t) => {
  await refusesUnauthenticatedNetworkBind(t, goodConfig(t), ['--http', '0.0.0.0:0']);
  await refusesUnauthenticatedNetworkBind(t, goodConfig(t, { host: '0.0.0.0', port: 0 }), []);
});

t.test('with a token, a bind beyond loopback serves', async (t) => {
  const host = await startHttpHost(t, goodConfig(t), {
    args: ['--http', '0.0.0.0:0'],
    env: { MCP_HOST_HTTP_TOKENS: 'a-long-enough-secret-token' },
  });
  t.notMatch(host.log(), 'reachable beyond this machine');
});
