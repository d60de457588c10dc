import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';

/**
 * The host's side of a connection to one upstream MCP server, whatever
 * carries it (an in-process link, a child's pipes, HTTP).
 *
 * It is the SDK's `Transport` shape with one addition: `related`, the id of
 * the upstream request a message belongs to. In process the SDK tells us
 * (a handler's requests and notifications reach `Transport.send(message,
 * { relatedRequestId })`); over a pipe the wire carries no such link and it
 * is undefined. The peer uses it to send a plugin's mid-call request to the
 * client whose call caused it.
 */
export interface UpstreamChannel {
  start(): Promise<void>;
  send(message: JSONRPCMessage): Promise<void>;
  close(): Promise<void>;
  onmessage?: (message: JSONRPCMessage, related?: RequestId) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
}
