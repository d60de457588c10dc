import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { DEFAULT_MAX_REQUEST_BODY_SIZE, isLegacyRequest, type AuthInfo } from '@modelcontextprotocol/server';
import type { HostRuntime } from '../runtime.js';
import { HostError } from '../errors.js';
import { rebindingGuard } from './http-guards.js';
import { bearerGate } from './http-auth.js';
import { auditRefusal } from './audit-refusal.js';
import { withRetryAfter } from './retry-after.js';
import { jsonRpcErrorResponse } from './http-responses.js';
import { readRequest, RequestBodyTooLarge, writeAnswer, writeWhole, type ReadRequest } from './node-exchange.js';
import { isLoopback, MCP_PATH } from './listen-address.js';
import type { Logger } from '../log.js';
import type { HttpConfig } from '../config/types.js';
import { LegacySessions } from './legacy-sessions.js';
import { createModernEndpoint } from './modern-endpoint.js';
import { healthResponse, isHealthPath } from './health.js';
import { PEER_HEADER, type ClusterLink, type PeerStamp } from '../sinks/cluster.js';
import { forwardedContinuation } from './forward-continuation.js';
import { recordLimitHit } from '../sinks/telemetry.js';
import { OAuthResourceServer } from './oauth-resource-server.js';
import type { OAuthSettings } from './oauth-settings.js';
import type { AdminSettings } from '../config/admin-settings.js';
import { AdminCredential } from './admin-credential.js';
import { METRICS_PATH, metricsResponse } from './metrics-endpoint.js';
import { identityCarried } from './carried-identity.js';
import { authInfoFor } from '../vocabulary/identity.js';
import { authInfoAt, serverAtPath } from './virtual-server-paths.js';
import { isProtectedResourceMetadataPath, protectedResourceMetadataResponse } from './protected-resource-metadata.js';
import { isAdminPath, type AdminRoute } from './admin-route.js';

/** The limits are the config's `http.*` keys of the same names (docs/security.md, "HTTP and security"). */
export interface HttpServeOptions extends Pick<HttpConfig, keyof typeof HTTP_LIMIT_DEFAULTS> {
  /** The address to bind; the config's default is 127.0.0.1, never the network unless asked. */
  host: string;
  /** 0 picks a free port (the bound URL says which). */
  port: number;
  /** Host names accepted besides the loopback names and the bound address. */
  allowedHosts?: string[];
  /** Origins (or origin hostnames) accepted besides the loopback ones. */
  allowedOrigins?: string[];
  /** The largest request body read, in bytes; larger is refused with 413. Default: the SDK's 4 MiB. */
  maxRequestBodySize?: number;
  /** When any are given, `/mcp` requires `Authorization: Bearer <one of them>`. */
  bearerTokens?: readonly string[];
  /** Where the tokens came from, for the 401 message (never the tokens themselves). Default MCP_HOST_HTTP_TOKENS. */
  tokenSource?: string;
  /** A 2025-era session with nothing open (no call, no GET stream) this long is ended. Default 30 minutes. */
  sessionIdleTimeoutMs?: number;
  /** `/mcp` accepts this authorization server's access tokens, beside the bearer tokens (`http.oauth`). */
  oauth?: OAuthSettings;
  /** Who is an admin, for `/metrics` (`http.admin`, its names checked against the tokens). */
  admin?: AdminSettings;
  /** Serve `/metrics` to admins (`http.metrics`, on by default when `http.admin` is set: config/admin-settings.ts). */
  metrics?: boolean;
  /** This replica's cluster, when it is one of several (DESIGN.md, "Scale"). */
  cluster?: ClusterLink;
  /** The admin console, served at `/admin` when `http.admin` is configured. */
  adminConsole?: AdminRoute;
}

/** Every limit's default: safe for one host on a small machine, each raised by its config key. */
export const HTTP_LIMIT_DEFAULTS = {
  maxSessions: 1000,
  maxSessionsPerToken: 100,
  maxListenStreams: 1000,
  maxConnections: 2000,
  bodyTimeoutMs: 30_000,
  maxStreamQueueBytes: 16 * 1024 * 1024,
  eventStoreBytes: 1024 * 1024,
} as const;

export interface HttpService {
  /** The endpoint's URL, with the port actually bound. */
  readonly url: string;
  /**
   * The host is stopping: from now on every new request, health probes
   * included, is answered 503, so a load balancer sends it elsewhere (and
   * may retry it there) while the calls in flight drain.
   */
  stopAccepting(): void;
  /** Stop accepting connections, end every session and stream, and close the server. */
  close(): Promise<void>;
}

/** How long close() lets ended streams flush before cutting the connections left. */
const CLOSE_GRACE_MS = 2_000;
/** How long a 2025-era session may sit with nothing open before it is ended. */
export const SESSION_IDLE_TIMEOUT_MS = 30 * 60_000;
/** How long a refused request's body is read and discarded before its connection is cut. */
const REFUSAL_DRAIN_MS = 10_000;

/**
 * Serve the host's catalogue over Streamable HTTP at `/mcp`, to clients of
 * both protocol eras on the one endpoint: the SDK's own classifier
 * (`isLegacyRequest`) sends 2025-era traffic (initialize and sessions) to
 * the sessionful legacy leg and everything else to the 2026-07-28 handler.
 *
 * Health probes (`/healthz`, `/readyz`) are answered first, whatever the
 * Host (health.ts says what they show to whom). In front of both eras, in
 * this order: DNS-rebinding protection (Host and Origin), the path, the
 * optional bearer token and a declared body length over the bound (413),
 * all answered before the body is read. The exchange (node-exchange.ts)
 * then reads the body under the same bound, and the request's signal aborts
 * when the client disconnects, which cancels its calls in flight in either
 * era.
 */
export async function serveOverHttp(runtime: HostRuntime, options: HttpServeOptions): Promise<HttpService> {
  const maxRequestBodySize = options.maxRequestBodySize ?? DEFAULT_MAX_REQUEST_BODY_SIZE;
  const limits = { ...HTTP_LIMIT_DEFAULTS, ...definedOf(options) };
  const checkRebinding = rebindingGuard(options);
  const staticGate = options.bearerTokens?.length ? bearerGate(options.bearerTokens, options.tokenSource) : undefined;
  const oauth = options.oauth && new OAuthResourceServer(options.oauth, runtime.logger);
  oauth?.prefetch();
  const checkToken = oauth ? oauth.gate(staticGate) : staticGate;
  const admin = new AdminCredential(options.admin, checkToken);
  const legacy = new LegacySessions(runtime, {
    maxRequestBodySize,
    idleTimeoutMs: options.sessionIdleTimeoutMs ?? SESSION_IDLE_TIMEOUT_MS,
    maxSessions: limits.maxSessions,
    maxSessionsPerToken: limits.maxSessionsPerToken,
    // A replay is enqueued at once, as one stream's queue: a store over the queue bound could not be replayed whole.
    eventStoreBytes: Math.min(limits.eventStoreBytes, limits.maxStreamQueueBytes),
    ...(options.cluster && { cluster: options.cluster }),
  });
  const { cluster } = options;
  const modern = createModernEndpoint(runtime, { maxRequestBodySize, maxListenStreams: limits.maxListenStreams });
  /** The bound on what a stream's client leaves unread (http.maxStreamQueueBytes). */
  const streamBoundOf = (res: ServerResponse) => ({
    maxQueuedBytes: limits.maxStreamQueueBytes,
    onOverflow: () => {
      recordLimitHit('http.maxStreamQueueBytes');
      runtime.logger.warn(
        `closed an HTTP stream whose client left more than ${limits.maxStreamQueueBytes} bytes unread (http.maxStreamQueueBytes); the client may reconnect`,
      );
      // Ending the response would wait for the very client that does not read.
      res.destroy();
    },
  });
  /** `forwarded`: another replica sent it here as this replica's to serve (its stamp checked but not yet used), so it is never forwarded on. */
  const serveMcp = async (
    req: IncomingMessage,
    res: ServerResponse,
    authInfo: AuthInfo | undefined,
    forwarded: PeerStamp | undefined,
    server: string | undefined,
  ): Promise<void> => {
    // The request's signal: aborted when its client goes before the answer is whole, which cancels its calls in flight in either era.
    const exchange = new AbortController();
    let answered = false;
    res.once('close', () => {
      if (!answered) exchange.abort();
    });
    let read: ReadRequest;
    try {
      read = await readRequest(req, exchange.signal, maxRequestBodySize);
    } catch (error) {
      if (error instanceof RequestBodyTooLarge) return refuseTooLarge(req, res, error);
      // The client went mid-body: nobody is left to answer.
      if (exchange.signal.aborted) return;
      throw error;
    }
    const clientId = authInfo?.clientId;
    // A client of a virtual server is one by its identity, which every handler reads (the owner above stays the token's).
    authInfo = authInfoAt(authInfo, server);
    const isLegacy = await isLegacyRequest(read.request, read.json, { maxRequestBodySize });
    const refused = forwarded && (await cluster!.consume(forwarded, read, isLegacy));
    const answer = refused
      ? unauthorizedForward(refused)
      : isLegacy
        ? await legacy.handle(read, clientId, forwarded !== undefined, authInfo)
        : ((cluster && !forwarded
            ? await forwardedContinuation(cluster, read, clientId, identityCarried(authInfo))
            : undefined) ?? (await modern.fetch(read, authInfo)));
    // A call refused by a limit says when to retry in a header too, where the answer is whole JSON (retry-after.ts).
    const told = runtime.current.config.limits ? await withRetryAfter(answer) : answer;
    await writeAnswer(res, told, exchange.signal, streamBoundOf(res));
    answered = true;
  };

  /** A request another replica forwarded: its stamp, or why it is refused. Undefined for a client's own request. */
  const peerOf = (req: IncomingMessage, path: string): PeerStamp | { refused: string } | undefined => {
    const stamp = req.headers[PEER_HEADER];
    if (stamp === undefined) return undefined;
    if (!cluster) return { refused: 'this mcp-host is not in a cluster' };
    const sessionId = req.headers['mcp-session-id'];
    return cluster.admit(String(stamp), {
      method: req.method ?? 'GET',
      path: req.url ?? path,
      sessionId: sessionId === undefined ? undefined : String(sessionId),
    });
  };

  let stopping = false;
  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = pathOf(req.url);
    if (stopping) {
      res.shouldKeepAlive = false;
      return refuse(
        req,
        res,
        isHealthPath(path)
          ? Response.json({ status: 'stopping' }, { status: 503 })
          : jsonRpcErrorResponse(
              503,
              -32000,
              'Service Unavailable: mcp-host is stopping; retry (another replica, or this host once it is back)',
            ),
      );
    }
    if (isHealthPath(path)) {
      if (req.method !== 'GET') {
        return refuse(
          req,
          res,
          Response.json({ error: 'method_not_allowed' }, { status: 405, headers: { allow: 'GET' } }),
        );
      }
      const detailed = checkRebinding(req) === undefined && (!checkToken || 'authInfo' in (await checkToken(req)));
      return writeWhole(res, healthResponse(runtime, path, detailed, cluster?.degraded));
    }
    // Public, as its RFC says: a client refused with 401 reads here where to get a token.
    if (oauth && isProtectedResourceMetadataPath(path)) {
      return writeWhole(res, protectedResourceMetadataResponse(req.method, oauth.metadata));
    }
    // The console admits by the admin credential (http.admin), checked per request by the console itself: its
    // browser holds a session cookie, not the token.
    if (options.adminConsole && isAdminPath(path)) {
      const rebinding = checkRebinding(req);
      if (rebinding) return refuse(req, res, Response.json({ error: rebinding.message }, { status: rebinding.status }));
      return options.adminConsole.handle(req, res, path, admin);
    }
    const peer = peerOf(req, path);
    // Logged by the cluster, at most so often: whoever sends forged stamps cannot flood the log.
    if (peer && 'refused' in peer) return refuse(req, res, unauthorizedForward(peer.refused));
    // A replica's forwarded request was checked by that replica (Host, Origin, token); its stamp, bound to
    // this one request, says which client that replica authenticated.
    const rebinding = peer ? undefined : checkRebinding(req);
    if (rebinding) return refuse(req, res, jsonRpcErrorResponse(rebinding.status, -32000, rebinding.message));
    if (options.metrics && path === METRICS_PATH) {
      const answer = await metricsResponse(req, admin);
      return answer.ok ? writeWhole(res, answer) : refuse(req, res, answer);
    }
    const at = serverAtPath(path, runtime.current.config);
    if (!at || 'unknown' in at) {
      const message = at ? at.unknown : `mcp-host serves MCP at ${MCP_PATH}; there is nothing at ${path}`;
      return refuse(req, res, Response.json({ error: 'not_found', message }, { status: 404 }));
    }
    let authInfo: AuthInfo | undefined;
    if (peer) {
      if (peer.clientId !== undefined) {
        // The identity the forwarding replica verified, as its stamp carries it: the handlers here see the same one.
        const verified = { token: '', clientId: peer.clientId, scopes: [], expiresAt: Number.MAX_SAFE_INTEGER };
        authInfo = peer.identity
          ? authInfoFor(peer.identity, { ...verified, scopes: [...peer.identity.scopes] })
          : verified;
      }
    } else if (checkToken) {
      const verdict = await checkToken(req);
      if ('challenge' in verdict) {
        auditRefusal(path, verdict.challenge.status, 'http.auth');
        return refuse(req, res, verdict.challenge);
      }
      // Which token it was travels on, so a session answers only the token
      // that opened it. The token itself is the host's, checked and dropped
      // here: no plugin can be handed it, not even one whose entry forwards
      // Authorization.
      authInfo = verdict.authInfo;
      delete req.headers.authorization;
    }
    // A declared length over the bound is refused before the body is read.
    // (A chunked body over the bound is refused as it is read.)
    if (Number(req.headers['content-length']) > maxRequestBodySize) {
      return refuseTooLarge(req, res, new RequestBodyTooLarge(maxRequestBodySize));
    }
    if (!req.complete) bodyDeadline(req, res, limits.bodyTimeoutMs, runtime.logger);
    await serveMcp(req, res, authInfo, peer, at.server);
  };

  const server = createServer((req, res) => {
    if (refusedSockets.has(req.socket)) return;
    route(req, res).catch((error: unknown) => {
      // A body cut off at its deadline was answered already; the adapter's failure to read it is that.
      if (cutOff.has(req)) return;
      runtime.logger.error({ err: error }, `could not answer ${req.method} ${req.url}`);
      if (!res.headersSent) {
        // The cause stays in the host's log: a network client learns nothing of the host's insides.
        void writeWhole(
          res,
          jsonRpcErrorResponse(500, -32603, 'mcp-host could not answer this request; the host log says why'),
        );
      } else res.destroy();
    });
  });
  capConnections(server, limits.maxConnections, runtime.logger);
  try {
    await listen(server, options.host, options.port);
  } catch (error) {
    await Promise.all([modern.close(), legacy.close()]);
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const url = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}${MCP_PATH}`;
  if (!isLoopback(options.host) && !options.bearerTokens?.length && !oauth) {
    // Only http.auth: 'none' gets here (start refuses otherwise): said once, as the operator's choice.
    runtime.logger.info(`${url} is reachable beyond this machine with no auth of its own (http.auth: 'none')`);
  }

  return {
    url,
    // Kept-alive connections stay open while the host drains: a client (or balancer) that sends on one
    // gets the 503 above, which closes it. Closing them now instead would race that client's next
    // request on the same socket, and lose it as a reset connection rather than a clear refusal.
    stopAccepting() {
      stopping = true;
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([modern.close(), legacy.close()]);
      server.closeIdleConnections();
      const cut = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
      cut.unref();
      await closed;
      clearTimeout(cut);
    },
  };
}

/** The answer to a request whose forwarding stamp is refused. */
function unauthorizedForward(why: string): Response {
  return jsonRpcErrorResponse(
    401,
    -32000,
    `Unauthorized: a request forwarded by an mcp-host replica was refused: ${why}`,
  );
}

/** The options given, without the keys given as undefined (so a default is not overwritten by one). */
function definedOf<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** Connections answered at once with 503 and closed (http.maxConnections): their requests are never served. */
const refusedSockets = new WeakSet<Socket>();
/** Requests whose body missed its deadline (http.bodyTimeoutMs), answered 408 already. */
const cutOff = new WeakSet<IncomingMessage>();

/**
 * At most `max` connections open at once. Node's own `server.maxConnections`
 * drops the next one without a word; here it is told which limit it hit.
 */
function capConnections(server: Server, max: number, logger: Logger): void {
  let open = 0;
  let reported = 0;
  server.on('connection', (socket: Socket) => {
    if (open >= max) {
      recordLimitHit('http.maxConnections');
      refusedSockets.add(socket);
      const body = JSON.stringify({
        jsonrpc: '2.0',
        error: {
          code: -32000,
          message: `Service Unavailable: mcp-host has ${max} connections open, its limit (http.maxConnections); retry later, or raise http.maxConnections in the host config`,
        },
        id: null,
      });
      socket.end(
        `HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
      // At most one line a second, however hard the limit is hit.
      if (Date.now() - reported > 1000) {
        reported = Date.now();
        logger.warn(`refused a connection: ${max} are open (http.maxConnections)`);
      }
      return;
    }
    open += 1;
    socket.once('close', () => (open -= 1));
  });
}

/**
 * A request body must arrive whole within `timeoutMs`: one trickled in
 * slowly would otherwise hold its connection and its buffer until Node's
 * own 300 s request timeout. Late, it is answered 408 naming the key, and
 * its connection is closed.
 */
function bodyDeadline(req: IncomingMessage, res: ServerResponse, timeoutMs: number, logger: Logger): void {
  const timer = setTimeout(() => {
    if (req.complete) return;
    cutOff.add(req);
    recordLimitHit('http.bodyTimeoutMs');
    logger.info(`cut off a request whose body took over ${timeoutMs} ms to arrive (http.bodyTimeoutMs)`);
    const message = `Request Timeout: the request body did not arrive within ${timeoutMs} ms (http.bodyTimeoutMs); send it faster, or raise http.bodyTimeoutMs in the host config`;
    if (res.headersSent) {
      req.socket.destroy();
      return;
    }
    res.shouldKeepAlive = false;
    void writeWhole(res, jsonRpcErrorResponse(408, -32000, message)).finally(() => req.socket.destroySoon());
  }, timeoutMs);
  timer.unref();
  req.once('end', () => clearTimeout(timer));
  req.once('close', () => clearTimeout(timer));
}

/**
 * Answer a request the host will not serve, before its body was read. Node
 * then reads and discards the body so that a client still uploading gets
 * the answer rather than a reset; one that keeps sending past a grace
 * period is cut off.
 */
/**
 * A body over `http.maxBodyBytes`, refused with 413 and without `Connection:
 * close`: a client still uploading would get a reset instead of the answer.
 */
function refuseTooLarge(req: IncomingMessage, res: ServerResponse, tooLarge: RequestBodyTooLarge): Promise<void> {
  recordLimitHit('http.maxBodyBytes');
  return refuse(req, res, jsonRpcErrorResponse(413, -32000, tooLarge.message));
}

async function refuse(req: IncomingMessage, res: ServerResponse, response: Response): Promise<void> {
  await writeWhole(res, response);
  if (req.complete) return;
  const cut = setTimeout(() => req.socket.destroy(), REFUSAL_DRAIN_MS);
  cut.unref();
  req.once('close', () => clearTimeout(cut));
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) =>
      reject(
        new HostError({
          where: `HTTP ${host}:${port}`,
          what: error.code === 'EADDRINUSE' ? 'the port is already in use.' : `could not listen: ${error.message}.`,
          fix: 'pick another address with --http [HOST:]PORT or http.host / http.port in the config (port 0 picks a free one).',
        }),
      );
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
}

/** The request's path, or the raw target when it is not one (`*`, garbage): never `/mcp` then. */
function pathOf(target: string | undefined): string {
  const raw = target ?? '/';
  // Nearly every request's target is the endpoint itself: no URL to parse.
  if (raw === MCP_PATH) return raw;
  return URL.canParse(raw, 'http://host.invalid') ? new URL(raw, 'http://host.invalid').pathname : raw;
}
