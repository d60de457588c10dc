import type { OAuthProtectedResourceMetadata } from '@modelcontextprotocol/server';
import { MCP_PATH } from './listen-address.js';

/** Where RFC 9728 puts a resource's metadata: this prefix, then the resource's path (here `/mcp`), or nothing. */
const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** Whether `path` asks for the protected resource metadata: the plain well-known path, or with `/mcp` after it. */
export function isProtectedResourceMetadataPath(path: string): boolean {
  return path === WELL_KNOWN || path === `${WELL_KNOWN}${MCP_PATH}`;
}

/**
 * The answer to a request for the protected resource metadata (RFC 9728):
 * the document to a GET, readable from any origin (a browser-based client
 * discovers the authorization server from it), 405 to anything else.
 */
export function protectedResourceMetadataResponse(
  method: string | undefined,
  document: OAuthProtectedResourceMetadata,
): Response {
  const cors = { 'access-control-allow-origin': '*' };
  if (method === 'GET' || method === 'HEAD') {
    return Response.json(document, { headers: { ...cors, 'cache-control': 'max-age=3600' } });
  }
  if (method === 'OPTIONS') {
    return new Response(null, {
      status: 204,
      headers: {
        ...cors,
        'access-control-allow-methods': 'GET',
        'access-control-allow-headers': 'mcp-protocol-version',
      },
    });
  }
  return Response.json(
    { error: 'method_not_allowed', message: `${WELL_KNOWN} answers GET only` },
    { status: 405, headers: { allow: 'GET', ...cors } },
  );
}
