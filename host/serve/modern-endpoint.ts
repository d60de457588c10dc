import { createMcpHandler, type AuthInfo } from '@modelcontextprotocol/server';
import type { HostRuntime } from '../runtime.js';
import { createFrontSession } from '../proxy/front-server.js';
import { jsonRpcErrorResponse, peekJson } from './http-responses.js';
import { onAnswered, type ReadRequest } from './node-exchange.js';
import { paramHeaderRefusal } from './param-headers.js';
import { headerParamsOf } from '../vocabulary/mirrored-params.js';
import { recordLimitHit, traceAnsweredAtEntry, type EntryRequest } from '../sinks/telemetry.js';
import { isPlainObject } from '../plain-object.js';
import { ListenStreams, type ListenStream } from './listen-streams.js';
import { mayReach } from '../catalogue/routing.js';
import { accessViewOf } from '../catalogue/access-rules.js';
import { identityOf } from '../vocabulary/identity.js';
import { taskListenOf } from './task-listens.js';

export interface ModernEndpoint {
  /** `read`: the request, its body read once (node-exchange.ts): the handler takes it parsed. */
  fetch(read: ReadRequest, authInfo?: AuthInfo): Promise<Response>;
  /** Close the open `subscriptions/listen` streams and in-flight exchanges; leave the runtime. */
  close(): Promise<void>;
}

/**
 * 2026-07-28 Streamable HTTP: every request is served by a fresh front
 * server (`server/discover`, lists, calls), and change notifications travel
 * on the clients' `subscriptions/listen` streams, which the SDK's handler
 * keeps. Each stream is registered with the runtime as its own notifier,
 * with the identity that opened it (listen-streams.ts), so that it is told
 * only of the changes its access rules let it see.
 */
export function createModernEndpoint(
  runtime: HostRuntime,
  { maxRequestBodySize, maxListenStreams }: { maxRequestBodySize: number; maxListenStreams: number },
): ModernEndpoint {
  // Each listen stream is notified as its own identity's (listen-streams.ts).
  const streams = new ListenStreams(runtime);
  const handler = createMcpHandler(
    // A request at /mcp/NAME is served as virtual server NAME: its identity says so (virtual-server-paths.ts).
    ({ authInfo }) =>
      createFrontSession(runtime, {
        longLived: false,
        era: 'modern',
        identity: identityOf({ http: { ...(authInfo && { authInfo }) } }),
      }).server,
    {
      bus: streams,
      // 2025-era traffic never reaches this handler: the HTTP server routes it
      // to the sessionful legacy leg first.
      legacy: 'reject',
      maxRequestBodySize,
      onerror: (error) => runtime.logger.debug({ err: error }, 'modern HTTP exchange refused or failed'),
    },
  );
  const watched = new WatchedResources(runtime);
  let listenStreams = 0;

  return {
    async fetch({ request, json }, authInfo) {
      const listen = isListenRequest(request);
      if (listen && listenStreams >= maxListenStreams) {
        recordLimitHit('http.maxListenStreams');
        return jsonRpcErrorResponse(
          503,
          -32000,
          `Service Unavailable: mcp-host has ${maxListenStreams} subscriptions/listen streams open, its limit (http.maxListenStreams); close one, retry later, or raise http.maxListenStreams in the host config`,
        );
      }
      const refusal = paramHeadersRefusal(runtime, request, json, authInfo);
      if (refusal) return refusal;
      const listening = listen ? listenRequestOf(request, json) : undefined;
      const answered = listening && traceAnsweredAtEntry(listening);
      const identity = identityOf({ http: { ...(authInfo && { authInfo }) } });
      // A listen naming tasks the caller may follow is served around the SDK's stream (task-listens.ts).
      const tasks = listening && taskListenOf(runtime, identity, listening, json);
      if (tasks instanceof Response) {
        answered?.(await jsonRpcErrorOf(tasks));
        return tasks;
      }
      const body = tasks ? tasks.body : json;
      const { response, opened } = await streams.serving(
        identity,
        () =>
          handler.fetch(request, {
            ...(authInfo && { authInfo }),
            ...(body !== undefined && { parsedBody: body }),
          }),
        tasks?.borrowed,
      );
      // Only an opened stream counts and holds subscriptions (a refusal is a JSON answer).
      if (!listening || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
        if (answered) answered(await jsonRpcErrorOf(response));
        return response;
      }
      answered?.();
      // A stream that asked for nothing the host can send is closed at once, never opened.
      if (!opened) return response;
      // A URI the caller may not read is not watched for it: no plugin is subscribed on its behalf.
      const uris = resourcesOf(listening.params).filter((uri) => mayReach(runtime.current, uri, identity));
      listenStreams += 1;
      for (const uri of uris) watched.hold(opened, uri);
      return onAnswered(tasks ? tasks.serve(response, opened) : response, () => {
        listenStreams -= 1;
      });
    },
    async close() {
      await handler.close();
    },
  };
}

/**
 * Whether a request is a `subscriptions/listen`. The SDK's handler refuses
 * a request whose `Mcp-Method` header disagrees with its body, so the
 * header says which bodies are worth reading.
 */
function isListenRequest(request: Request): boolean {
  return request.method === 'POST' && request.headers.get('mcp-method') === 'subscriptions/listen';
}

/**
 * SEP-2243: a `tools/call` for a composed tool whose input schema marks
 * arguments with `x-mcp-header` is refused unless its `Mcp-Param-*` headers
 * carry those arguments (param-headers.ts). The host checks, as the SDK
 * does for tools it registers itself, because intermediaries route on the
 * headers and must see what the plugin will act on.
 */
function paramHeadersRefusal(
  runtime: HostRuntime,
  request: Request,
  json: unknown,
  authInfo: AuthInfo | undefined,
): Response | undefined {
  if (request.method !== 'POST' || request.headers.get('mcp-method') !== 'tools/call') return undefined;
  const body = json as { id?: unknown; method?: unknown; params?: { name?: unknown; arguments?: unknown } } | undefined;
  if (body?.method !== 'tools/call' || typeof body.params?.name !== 'string') return undefined;
  // A tool the caller may not use is unknown to it: its call gets the unknown-tool answer, not a header check's.
  const identity = identityOf({ http: { ...(authInfo && { authInfo }) } });
  if (!accessViewOf(runtime.current.config, identity).allows('tools', body.params.name)) return undefined;
  const tool = runtime.current.index.owners.tools.get(body.params.name)?.served;
  const params = headerParamsOf(tool?.inputSchema);
  return params.length > 0 ? paramHeaderRefusal(params, body.params.arguments, request.headers, body.id) : undefined;
}

/** A `subscriptions/listen` request's body, as far as it is one: its id and params. */
function listenRequestOf(request: Request, json: unknown): EntryRequest {
  const body = json as { id?: unknown; params?: unknown } | undefined;
  const id = typeof body?.id === 'string' || typeof body?.id === 'number' ? body.id : undefined;
  return {
    method: 'subscriptions/listen',
    params: isPlainObject(body?.params) ? body.params : undefined,
    headers: request.headers,
    ...(id !== undefined && { id }),
  };
}

/** The resource URIs a `subscriptions/listen` request asks updates for. */
function resourcesOf(params: Record<string, unknown> | undefined): string[] {
  const notifications = params?.notifications as { resourceSubscriptions?: unknown } | undefined;
  const uris = notifications?.resourceSubscriptions;
  return Array.isArray(uris) ? [...new Set(uris.filter((uri): uri is string => typeof uri === 'string'))] : [];
}

/** The JSON-RPC error a refusal carries, when it carries one. */
async function jsonRpcErrorOf(response: Response): Promise<{ code: number; message: string } | undefined> {
  const body = (await peekJson(response)) as { error?: { code?: unknown; message?: unknown } } | undefined;
  const error = body?.error;
  if (typeof error?.code !== 'number') return undefined;
  return { code: error.code, message: String(error.message) };
}

/**
 * The owning plugins' subscriptions behind the open listen streams: each
 * stream is subscribed through the runtime, which asks a plugin once
 * however many streams and sessions follow a URI, and unsubscribes a stream
 * when it ends (ClientSessions.remove).
 */
class WatchedResources {
  constructor(private readonly runtime: HostRuntime) {}

  hold(stream: ListenStream, uri: string): void {
    this.runtime.sessions.subscribe(stream, uri, stream.identity).then(
      () => {
        // The stream ended while the plugin was being asked: nothing holds the subscription now.
        if (stream.closed) this.release(stream, uri);
      },
      (error: unknown) =>
        // The stream stays open (the SDK acknowledged it); it just never
        // carries updates for a URI no plugin can watch.
        this.runtime.logger.debug({ err: error }, `a listen stream asked for ${uri}, which cannot be subscribed to`),
    );
  }

  private release(stream: ListenStream, uri: string): void {
    this.runtime.sessions
      .unsubscribe(stream, uri)
      .catch((error: unknown) => this.runtime.logger.debug({ err: error }, `could not unsubscribe from ${uri}`));
  }
}
