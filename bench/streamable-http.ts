/**
 * The bench's own Streamable HTTP wiring, shared by the direct server
 * (serve-direct-http.ts) and the SDK-only proxy (serve-sdk-proxy-http.ts),
 * so that the two differ only in the MCP server behind the endpoint.
 *
 * 2025-era clients get the established sessionful wiring: an `initialize`
 * without a session id opens a session with a fresh server, later requests
 * (POST, the GET stream, DELETE) name it in `Mcp-Session-Id`. 2026-07-28
 * requests go to the SDK's stateless handler (`createMcpHandler`, a fresh
 * server per request), routed by the SDK's own `isLegacyRequest`, as its
 * documentation shows for serving both eras on one endpoint. Requests whose
 * Host or Origin is not loopback are refused (DNS rebinding).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  localhostHostValidation,
  localhostOriginValidation,
  NodeStreamableHTTPServerTransport,
  toNodeHandler,
  toWebRequest,
} from '@modelcontextprotocol/node';
import { createMcpHandler, isInitializeRequest, isLegacyRequest, type McpServer } from '@modelcontextprotocol/server';
import type { Logger } from 'pino';
import type { PluginServer } from '../host/plugin.js';
import { answeringInStreamedJson } from './streamed-json-answers.js';

/** The command line both servers take: `PLUGIN_ENTRY [HOST:]PORT` (the host defaults to 127.0.0.1). */
export function entryAndAddress(script: string): { entry: string; host: string; port: number } {
  const [entry, address] = process.argv.slice(2);
  if (!entry || !address) {
    process.stderr.write(`usage: ${script} PLUGIN_ENTRY [HOST:]PORT\n`);
    process.exit(2);
  }
  const [host, port] = address.includes(':') ? address.split(':') : ['127.0.0.1', address];
  return { entry, host: host!, port: Number(port) };
}

/**
 * Serve at `http://HOST:PORT/mcp` the servers `serverFor` makes (one per
 * 2025-era session, one per 2026-07-28 request); prints `listening on URL`
 * once it accepts connections, and ends its sessions on SIGINT or SIGTERM.
 * With `answers: 'streamed-json'` a 2026-07-28 answer the SDK would stream
 * over SSE is a streamed JSON body instead (streamed-json-answers.ts).
 */
export function serveStreamableHttp(
  serverFor: () => Promise<PluginServer>,
  address: { host: string; port: number },
  logger: Logger,
  answers: 'sse' | 'streamed-json' = 'sse',
): void {
  const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
  const modernHandler = createMcpHandler(async () => (await serverFor()) as McpServer, { legacy: 'reject' });
  const modern = toNodeHandler(answers === 'sse' ? modernHandler : answeringInStreamedJson(modernHandler));
  const hostAllowed = localhostHostValidation();
  const originAllowed = localhostOriginValidation();

  async function openSession(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const server = await serverFor();
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => void sessions.set(id, transport),
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
      if (session) return session.handleRequest(req, res, body);
      if (!(await isLegacyRequest(await toWebRequest(req, body), body))) return modern(req, res, body);
      if (sessionId === undefined && isInitializeRequest(body)) return openSession(req, res, body);
    } else if (session) {
      return session.handleRequest(req, res);
    }
    refuse(res, sessionId === undefined ? 400 : 404, 'Bad request: no valid Mcp-Session-Id (initialize first)');
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      logger.error({ err: error }, 'request failed');
      if (!res.headersSent) refuse(res, 500, 'Internal server error');
    });
  });
  http.listen(address.port, address.host, () => {
    const { port } = http.address() as AddressInfo;
    process.stdout.write(`listening on http://${address.host}:${port}/mcp\n`);
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      http.close();
      http.closeAllConnections();
      void Promise.allSettled([...sessions.values()].map((transport) => transport.close())).then(() => process.exit(0));
    });
  }
}

function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}
