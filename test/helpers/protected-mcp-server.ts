/**
 * A real MCP server that requires OAuth, as the MCP authorization spec
 * describes a protected resource: its protected-resource metadata (RFC 9728)
 * names the authorization server, a request without a valid token is
 * answered 401 with `WWW-Authenticate: Bearer resource_metadata=…`, and a
 * token is valid only when its signature checks against the issuer's JWKS,
 * it is issued for this server (`aud`) and grants the required scope. It
 * records every Authorization header it was sent, so a test asserts on the
 * upstream's side what reached it.
 *
 * Its `whoami` tool answers the `sub` (or `client_id`) of the token the call came with.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import type { Teardown } from './host.js';

export interface ProtectedMcpServer {
  url: string;
  /** Every Authorization header the MCP endpoint was sent (undefined for none), in order. */
  authorizations: (string | undefined)[];
  /** Why each request it refused with 401 was refused. */
  refusals: string[];
  /** Refuse every token seen so far from now on, as a server does with tokens revoked at its authorization server. */
  revokeSeen(): void;
}

export async function startProtectedMcpServer(
  t: Teardown,
  { issuer, jwksUri, scope = 'mcp' }: { issuer: string; jwksUri: string; scope?: string },
): Promise<ProtectedMcpServer> {
  // No cooldown: a token signed with a key the issuer just rotated in is checked against its JWKS of now.
  const jwks = createRemoteJWKSet(new URL(jwksUri), { cooldownDuration: 0 });
  const revoked = new Set<string>();
  const authorizations: (string | undefined)[] = [];
  const refusals: string[] = [];
  const handler = toNodeHandler(
    createMcpHandler(() => {
      const server = new McpServer({ name: 'protected', version: '1.0.0' });
      server.registerTool('whoami', { description: 'Who the token this call came with was issued to' }, (ctx) => {
        const claims = decodeJwt(String(ctx.http?.req?.headers.get('authorization')).slice('Bearer '.length));
        return { content: [{ type: 'text', text: String(claims.sub ?? claims.client_id) }] };
      });
      return server;
    }),
  );
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const url = `${origin}/mcp`;
  const metadataUrl = `${origin}/.well-known/oauth-protected-resource/mcp`;
  server.on('request', (req, res) => {
    if (req.url === '/.well-known/oauth-protected-resource/mcp') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ resource: url, authorization_servers: [issuer], scopes_supported: [scope] }));
      return;
    }
    const authorization = req.headers.authorization;
    authorizations.push(authorization);
    const refuse = (why: string) => {
      refusals.push(why);
      res.writeHead(401, {
        'content-type': 'application/json',
        'www-authenticate': `Bearer error="invalid_token", resource_metadata="${metadataUrl}"`,
      });
      res.end(JSON.stringify({ error: 'invalid_token', error_description: why }));
    };
    if (!authorization?.startsWith('Bearer ')) return refuse('no bearer token');
    if (revoked.has(authorization)) return refuse('revoked');
    jwtVerify(authorization.slice('Bearer '.length), jwks, { issuer, audience: url }).then(
      ({ payload }) => {
        if (
          !String(payload.scope ?? '')
            .split(' ')
            .includes(scope)
        )
          return refuse(`the token lacks the scope ${scope}`);
        void handler(req, res);
      },
      (error: unknown) => refuse(String(error)),
    );
  });
  t.teardown(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return {
    url,
    authorizations,
    refusals,
    revokeSeen: () => authorizations.forEach((header) => header && revoked.add(header)),
  };
}
