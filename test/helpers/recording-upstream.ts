/**
 * A remote MCP server for a `url:` mount (the SDK's own HTTP handler, on
 * 127.0.0.1) that records the headers of every request it gets: what tests
 * assert a client's credentials against. `register` gives it its tools.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import type { Teardown } from './host.js';

export interface RecordingUpstream {
  /** Its MCP endpoint. */
  url: string;
  /** The headers of each request it got, in order. */
  seen: IncomingHttpHeaders[];
}

export async function startRecordingUpstream(
  t: Teardown,
  register: (server: McpServer) => void,
): Promise<RecordingUpstream> {
  const seen: IncomingHttpHeaders[] = [];
  const handler = toNodeHandler(
    createMcpHandler(() => {
      const server = new McpServer({ name: 'upstream', version: '1.0.0' });
      register(server);
      return server;
    }),
  );
  const upstream = createServer((req, res) => {
    seen.push(req.headers);
    void handler(req, res);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => (upstream.closeAllConnections(), upstream.close(() => resolve()))));
  return { url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`, seen };
}

/** The tool most tests need of it: `hello`, answering "hello". */
export function sayingHello(server: McpServer): void {
  server.registerTool('hello', { description: 'Say hello' }, () => ({ content: [{ type: 'text', text: 'hello' }] }));
}
