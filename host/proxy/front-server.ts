import { ProtocolError, type ServerContext } from '@modelcontextprotocol/server';
import type { HostRuntime } from '../runtime.js';
import { ErrorCode, RpcError } from '../rpc-error.js';
import { describeThrown } from '../errors.js';
import { asListResult, listPage } from '../catalogue/lists.js';
import { complete, getPrompt, readResource } from '../catalogue/routing.js';
import { callToolWithinLimits } from './call-limits.js';
import type { ListKind } from '../vocabulary/list-kinds.js';
import { callHooksFor } from './call-hooks.js';
import { forwardMultiRoundTrip } from './input-required.js';
import { listedOutputSchema, unwrapCallResult, unwrapListedSchemas } from './output-schema-wrap.js';
import { servesModernEra } from './protocol-era.js';
import { reuseUnchangedPage } from './shared-list-results.js';
import { FrontSession } from './front-session.js';
import { traceSession } from '../sinks/telemetry.js';
import { TracedServer } from './traced-server.js';
import { accessViewOf } from '../catalogue/access-rules.js';
import { audited, isAudited } from './audited.js';
import { identityOf, type Identity } from '../vocabulary/identity.js';
import type { Era } from '../protocol-versions.js';

type Params = Record<string, unknown>;
type Handler = (request: { params?: Params }, ctx: ServerContext) => Promise<Record<string, unknown>>;

/**
 * `tools/call` params as they came. The SDK's `Server` validates a
 * `tools/call` request (and its result) in a wrapper of its own however the
 * handler is registered; registered the plain way, every call's request
 * would be validated twice more.
 */
const PARAMS_AS_SENT = {
  params: { '~standard': { version: 1, vendor: 'mcp-host', validate: (value: unknown) => ({ value }) } },
};

/**
 * The SDK `Server` a client talks to: one per connection (stdio, a legacy
 * HTTP session) or per request (2026-07-28 HTTP). It holds no catalogue of
 * its own: every handler reads the runtime's live generation when the
 * request arrives, so a reload's swap reaches every client at once.
 *
 * It serves the catalogue of its client's era (`era`): a mount whose
 * upstream speaks both eras is asked through the link of that era, so each
 * client gets the face the upstream shows its era.
 *
 * Its capabilities are those of the generation live when it was created
 * (tools, prompts and resources always, with `listChanged`); a client
 * connected before a reload that adds, say, the first plugin with
 * completions learns of them when it reconnects.
 */
export function createFrontSession(
  runtime: HostRuntime,
  options: { longLived: boolean; reachable?: boolean; era: Era; identity?: Identity },
): FrontSession {
  const { era } = options;
  /** The live catalogue as this client's era is served it, read at each request. */
  const served = () => runtime.current.view(era);
  const generation = served();
  const { config } = generation;
  const capabilities = generation.capabilities(era);
  const server = new TracedServer(
    { name: config.name, version: config.version },
    {
      capabilities,
      ...(config.instructions === undefined ? {} : { instructions: config.instructions }),
      supportedProtocolVersions: config.protocolVersions,
    },
  );
  const session = new FrontSession(server, runtime.logger, era, options.identity);
  const handle = (method: string, serve: Handler) => {
    // Calls, gets, reads, subscriptions and completions each leave an audit record (audited.ts).
    const handler: Handler = isAudited(method)
      ? (request, ctx) => audited(served(), server, ctx, method, request.params ?? {}, () => serve(request, ctx))
      : serve;
    return method === 'tools/call'
      ? server.setRequestHandler(
          method,
          PARAMS_AS_SENT as never,
          ((params: Params, ctx: ServerContext) => handler({ params }, ctx).catch(toProtocolError)) as never,
        )
      : server.setRequestHandler(
          method as 'tools/list',
          ((request: { params?: Params }, ctx: ServerContext) => handler(request, ctx).catch(toProtocolError)) as never,
        );
  };
  const list = (kind: ListKind) => async (request: { params?: Params }, ctx: ServerContext) => {
    const generation = served();
    const cursor = request.params?.cursor as string | undefined;
    // What this client's access rules let it see; every client the same rules match shares the composed page.
    const access = accessViewOf(generation.config, identityOf(ctx));
    const page = await listPage(generation, kind, cursor, undefined, access);
    // A 2026-07-28 client is told how long the composed page may be reused
    // (cache-hints.ts); its SDK copies every result it sends, so only a
    // 2025-era answer can be one shared with the last (shared-list-results.ts).
    if (servesModernEra(server)) return { ...asListResult(kind, page), ...page.hint };
    return reuseUnchangedPage(generation, kind, cursor, asListResult(kind, page), access.key);
  };

  // A 2026-07-28 client sees a tool's output as the plugin would show it: unwrapped (see output-schema-wrap.ts).
  handle('tools/list', async (request, ctx) => {
    const page = await list('tools')(request, ctx);
    return servesModernEra(server) ? unwrapListedSchemas(page) : page;
  });
  handle('tools/call', async (request, ctx) => {
    // Read before the call, from the generation it is made in; only a 2026-07-28 client needs it.
    const schema = servesModernEra(server) ? listedOutputSchema(served(), request.params?.name) : undefined;
    const result = await forwardMultiRoundTrip(runtime, server, ctx, request.params, (hooks) =>
      callToolWithinLimits(served(), request.params ?? {}, hooks),
    );
    return servesModernEra(server) ? unwrapCallResult(result, schema) : result;
  });
  handle('prompts/list', list('prompts'));
  handle('prompts/get', (request, ctx) =>
    forwardMultiRoundTrip(runtime, server, ctx, request.params, (hooks) =>
      getPrompt(served(), request.params ?? {}, hooks),
    ),
  );
  handle('resources/list', list('resources'));
  handle('resources/templates/list', list('resourceTemplates'));
  handle('resources/read', (request, ctx) =>
    forwardMultiRoundTrip(runtime, server, ctx, request.params, (hooks) =>
      readResource(served(), request.params ?? {}, hooks),
    ),
  );
  if (capabilities.resources?.subscribe) {
    handle('resources/subscribe', async (request, ctx) => {
      await runtime.sessions.subscribe(session, String(request.params?.uri), identityOf(ctx));
      return {};
    });
    handle('resources/unsubscribe', async (request) => {
      await runtime.sessions.unsubscribe(session, String(request.params?.uri));
      return {};
    });
  }
  if (capabilities.completions) {
    handle('completion/complete', (request, ctx) =>
      complete(served(), request.params ?? {}, callHooksFor(ctx, request.params)),
    );
  }

  if (options.longLived) {
    runtime.sessions.add(session, options.reachable ?? true);
    const sessionEnded = traceSession(server);
    const previousOnClose = server.onclose;
    server.onclose = () => {
      previousOnClose?.();
      sessionEnded?.();
      runtime.sessions.remove(session);
    };
  }
  return session;
}

/**
 * Errors reach the client with the code they came with: an upstream's
 * JSON-RPC error passes through unchanged, the host's own carry its code,
 * and anything else (a plugin that threw something odd) is an internal
 * error with a readable message.
 */
function toProtocolError(error: unknown): never {
  throw asProtocolError(error);
}

/** An error as the client is to get it (see toProtocolError); the hot path (hot-path.ts) sends it itself. */
export function asProtocolError(error: unknown): ProtocolError {
  if (error instanceof RpcError) return new ProtocolError(error.code, error.message, error.data);
  if (error instanceof ProtocolError) return error;
  return new ProtocolError(ErrorCode.InternalError, describeThrown(error));
}
