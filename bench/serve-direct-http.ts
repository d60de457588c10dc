/**
 * Serve one plugin directly over Streamable HTTP, without the host: the
 * baseline `scripts/conformance.sh --direct` runs the suite against (so a
 * scenario that fails only through the host is the host's failure) and the
 * HTTP half of `npm run bench` measures the host against.
 *
 * 2025-era clients get the established sessionful wiring: an `initialize`
 * without a session id opens a session with a fresh server from the
 * plugin's `create`, later requests (POST, the GET stream, DELETE) name it
 * in `Mcp-Session-Id`. 2026-07-28 requests go to the SDK's stateless
 * handler (`createMcpHandler`, a fresh server per request), routed by the
 * SDK's own `isLegacyRequest`, as its documentation shows for serving both
 * eras on one endpoint. Requests whose Host or Origin is not loopback are
 * refused (DNS rebinding).
 *
 * Usage: node dist/bench/serve-direct-http.js PLUGIN_ENTRY [HOST:]PORT
 * Prints `listening on http://HOST:PORT/mcp` once it accepts connections.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  localhostHostValidation,
  localhostOriginValidation,
  NodeStreamableHTTPServerTransport,
  toNodeHandler,
  toWebRequest,
} from '@modelcontextprotocol/node';
import { createMcpHandler, isInitializeRequest, isLegacyRequest, type McpServer } from '@modelcontextprotocol/server';
import { pino } from 'pino';
import type { PluginDefinition, PluginServer } from '../host/plugin.js';

const [entry, address] = process.argv.slice(2);
if (!entry || !address) {
  process.stderr.write('usage: serve-direct-http PLUGIN_ENTRY [HOST:]PORT\n');
  process.exit(2);
}
const [host, port] = address.includes(':') ? address.split(':') : ['127.0.0.1', address];

const logger = pino({ level: process.env.LOG_LEVEL ?? 'warn' }, pino.destination(2));
const definition = (await import(pathToFileURL(resolve(entry)).href)).default as PluginDefinition;
const sessions = new Map<string, { transport: NodeStreamableHTTPServerTransport; server: PluginServer }>();
const modern = toNodeHandler(
  createMcpHandler(
    async () => (await definition.create({ options: {}, logger: logger.child({ plugin: entry }) })) as McpServer,
    { legacy: 'reject' },
  ),
);
const hostAllowed = localhostHostValidation();
const originAllowed = localhostOriginValidation();

function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

async function openSession(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
  const server = await definition.create({ options: {}, logger: logger.child({ plugin: entry }) });
  const transport = new NodeStreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    onsessioninitialized: (id) => void sessions.set(id, { transport, server }),
  });
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
    void server.close();
  };
  await server.connect(transport as never);
  await transport.handleRequest(req, res, body);
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/mcp') return refuse(res, 404, 'Not found: use /mcp');
  if (!hostAllowed(req, res) || !originAllowed(req, res)) return;
  const sessionId = req.headers['mcp-session-id'];
  const session = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
  if (req.method === 'POST') {
    let body: unknown;
    try {
      body = await readJson(req);
    } catch {
      return refuse(res, 400, 'Parse error: the body is not JSON');
    }
    if (session) return session.transport.handleRequest(req, res, body);
    if (!(await isLegacyRequest(await toWebRequest(req, body), body))) return modern(req, res, body);
    if (sessionId === undefined && isInitializeRequest(body)) return openSession(req, res, body);
  } else if (session) {
    return session.transport.handleRequest(req, res);
  }
  refuse(res, sessionId === undefined ? 400 : 404, 'Bad request: no valid Mcp-Session-Id (initialize first)');
}

const http = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    logger.error({ err: error }, 'request failed');
    if (!res.headersSent) refuse(res, 500, 'Internal server error');
  });
});
http.listen(Number(port), host, () => {
  const { port: bound } = http.address() as AddressInfo;
  process.stdout.write(`listening on http://${host}:${bound}/mcp\n`);
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    http.close();
    http.closeAllConnections();
    void Promise.allSettled([...sessions.values()].map(({ transport }) => transport.close())).then(() =>
      process.exit(0),
    );
  });
}
