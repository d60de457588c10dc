import type { AuthInfo } from '@modelcontextprotocol/server';

/**
 * Who a client is, as the host decided it when the client's request came
 * in: the one value the access rules, the audit log, the rate limits and an
 * upstream's token exchange all read. The HTTP endpoint makes it from a
 * verified bearer token (an OAuth access token or a named static token) and
 * hands it down inside the SDK's `AuthInfo` (`extra.identity`), so it
 * reaches every handler as `ctx.http.authInfo` does; a stdio client is the
 * local operator, who started the host.
 */
export interface Identity {
  /**
   * How the client proved who it is, and so what its name names: an OAuth
   * token's subject (`user`, a token with a `sub`) or its client (`client`, a
   * token with a `client_id` alone, as a client-credentials token may be), a
   * static token, the stdio client, or an HTTP client no token was asked of.
   * A user and a client may have the same name: they are two identities.
   */
  readonly kind: 'user' | 'client' | 'token' | 'stdio' | 'anonymous';
  /** A stable name for logs and audit records: the token's `sub` (else its `client_id`), a static token's name, `stdio` or `anonymous`. */
  readonly name: string;
  /** An OAuth token's verified claims (`sub`, `client_id`, `scope`, `groups`, `roles`, ...); empty otherwise. */
  readonly claims: Readonly<Record<string, unknown>>;
  /** The scopes the token grants (an OAuth token's `scope`, split); empty otherwise. */
  readonly scopes: readonly string[];
  /** A static token's name (`http.auth` tokens given as `name:token`), for `who: { token }`. */
  readonly tokenName?: string;
  /**
   * The access token itself, kept only so that a mount configured for token
   * exchange (RFC 8693) can exchange it for one of its own. It is never sent
   * to an upstream as it is.
   */
  readonly token?: string;
  /**
   * The virtual server the client is a client of (`/mcp/NAME`, `mcp-host
   * start --server NAME`): what it may see is that server's members as well
   * as what its access rules allow. Absent at /mcp without `servers.default`.
   */
  readonly server?: string;
}

/** `identity` as a client of the virtual server `server` (the identity itself when there is none). */
export function asClientOf(identity: Identity, server: string | undefined): Identity {
  return server === undefined ? identity : { ...identity, server };
}

/**
 * The identity as a key (sessions' owners, rate-limit buckets): its kind and
 * name, so that a client named like a user is not that user.
 */
export function identityKey(identity: Identity): string {
  return `${identity.kind}:${identity.name}`;
}

/** Whether the identity holds an OAuth access token (a user's or a client's). */
export function isOAuthIdentity(identity: Identity): boolean {
  return identity.kind === 'user' || identity.kind === 'client';
}

/** The client on the host's own stdin and stdout: whoever started the host. */
export const STDIO_IDENTITY: Identity = { kind: 'stdio', name: 'stdio', claims: {}, scopes: [] };

/**
 * The stdio client as this process serves it: a process has one stdio
 * client, a client of the virtual server `mcp-host start --server` named,
 * if any (set once at start, before the client's first request).
 */
let stdioClient: Identity = STDIO_IDENTITY;

/** Serve the stdio client as a client of `server` (or of the whole catalogue); returns its identity. */
export function serveStdioAs(server: string | undefined): Identity {
  stdioClient = asClientOf(STDIO_IDENTITY, server);
  return stdioClient;
}

/** An HTTP client of an endpoint that checks no token (loopback, or `http.auth: 'none'`). */
export const ANONYMOUS_IDENTITY: Identity = { kind: 'anonymous', name: 'anonymous', claims: {}, scopes: [] };

/** The SDK's `AuthInfo` carrying an identity, as the HTTP endpoint passes it to the SDK. */
export function authInfoFor(identity: Identity, authInfo: Omit<AuthInfo, 'extra'>): AuthInfo {
  return { ...authInfo, extra: { identity } };
}

/**
 * The identity of the client whose request a handler is serving: what the
 * HTTP endpoint put in its `AuthInfo`, else the anonymous HTTP client, else
 * (no HTTP request at all) the stdio client.
 */
export function identityOf(ctx: { http?: { authInfo?: AuthInfo } }): Identity {
  if (!ctx.http) return stdioClient;
  const carried = ctx.http.authInfo?.extra?.identity as Identity | undefined;
  return carried ?? ANONYMOUS_IDENTITY;
}
