import type { AuthInfo } from '@modelcontextprotocol/server';
import type { ResolvedConfig } from '../config/types.js';
import { MCP_PATH } from './listen-address.js';
import { asClientOf, authInfoFor, identityOf } from '../vocabulary/identity.js';

/**
 * Which virtual server a request's path is for (docs/virtual-servers.md):
 * `/mcp` is the whole catalogue, or `servers.default` when the config has
 * one; `/mcp/NAME` is the server NAME. Read from the live config at each
 * request, so a reload adds and removes paths with its servers.
 *
 * `{ server: undefined }` is the whole catalogue; `undefined` is a path the
 * host serves no MCP at; `{ unknown }` is /mcp/NAME for a NAME the config
 * does not have, with the 404's message.
 */
export function serverAtPath(
  path: string,
  config: ResolvedConfig,
): { server: string | undefined } | { unknown: string } | undefined {
  if (path === MCP_PATH) return { server: config.servers?.default ? 'default' : undefined };
  if (!path.startsWith(`${MCP_PATH}/`)) return undefined;
  const name = path.slice(MCP_PATH.length + 1);
  if (config.servers && Object.hasOwn(config.servers, name)) return { server: name };
  const names = Object.keys(config.servers ?? {});
  return {
    unknown: `mcp-host serves no virtual server "${name}" (not in the config's servers, or a reload removed it); ${
      names.length > 0 ? `it serves ${names.map((each) => `${MCP_PATH}/${each}`).join(', ')} and ` : ''
    }the whole catalogue at ${MCP_PATH}`,
  };
}

/**
 * The request's `AuthInfo` with its identity a client of `server`: every
 * handler reads the server from the identity (access-rules.ts narrows its
 * view to the server's members). An anonymous client gets an `AuthInfo`
 * to carry it, with the anonymous identity.
 */
export function authInfoAt(authInfo: AuthInfo | undefined, server: string | undefined): AuthInfo | undefined {
  if (server === undefined) return authInfo;
  const identity = asClientOf(identityOf({ http: { ...(authInfo && { authInfo }) } }), server);
  return authInfoFor(identity, authInfo ?? { token: '', clientId: identity.name, scopes: [] });
}
