import { ProtocolError, type ServerContext } from '@modelcontextprotocol/server';
import type { HostRuntime } from '../runtime.js';
import { ErrorCode, RpcError } from '../rpc-error.js';
import { describeThrown } from '../errors.js';
import { asListResult, listPage } from '../catalogue/lists.js';
import { complete, getPrompt, readResource } from '../catalogue/routing.js';
import { getSkill, readDirectory } from '../catalogue/skill-routing.js';
import { SKILLS_EXTENSION } from '../vocabulary/served-uris.js';
import { NO_PROMISE, hintOf } from '../vocabulary/cache-hints.js';
import { callToolWithinLimits } from './call-limits.js';
import type { ListKind } from '../vocabulary/list-kinds.js';
import type { CallHooks } from '../vocabulary/call-hooks.js';
import { callHooksFor } from './call-hooks.js';
import { logCaller } from './caller-log.js';
import { forwardMultiRoundTrip } from './input-required.js';
import { listedOutputSchema, unwrapCallResult, unwrapListedSchemas } from './output-schema-wrap.js';
import { servesModernEra } from './protocol-era.js';
import { reuseUnchangedPage } from './shared-list-results.js';
import { FrontSession } from './front-session.js';
import { SessionScope } from './session-scope.js';
import { traceSession } from '../sinks/telemetry.js';
import { TracedServer } from './traced-server.js';
import { accessViewOf } from '../catalogue/access-rules.js';
import { removedServerError, virtualServerOf } from '../catalogue/virtual-server.js';
import { audited, isAudited } from './audited.js';
import { identityOf, type Identity } from '../vocabulary/identity.js';
import type { Era } from '../protocol-versions.js';
import { SurfacedTools } from './surfaced-tools.js';
import { SEARCH_TOOL_NAME } from '../catalogue/search-tool-name.js';
import { TASKS_EXTENSION } from '../vocabulary/task-extension.js';
import { handOutTask, serveTaskRequests } from './task-requests.js';
import { searchModeTools, searchServed, searchTools } from './tool-discovery.js';

type Params = Record<string, unknown>;

/** The capabilities whose requests a server without them takes no handler for. */
const LIST_CAPABILITIES = { tools: true, prompts: true, resources: true };
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

/** The Skills extension's methods (SEP-2640), served when a mount offers the extension (skill-routing.ts). */
const EXTENSION_METHODS = new Set(['skills/list', 'skills/get', 'resources/directory/read']);

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
  options: {
    longLived: boolean;
    reachable?: boolean;
    era: Era;
    /** Who opened a long-lived session (its bearer token's `AuthInfo.clientId`), when the host checks tokens. */
    owner?: string;
    /** How logs name a long-lived session: `the stdio client`, `HTTP session …`. */
    clientName?: () => string;
    /** Who the client is; its `server`, the virtual server it is served (absent: the whole catalogue). */
    identity?: Identity;
  },
): FrontSession {
  const { era } = options;
  /** The live catalogue as this client's era is served it, read at each request. */
  const served = () => runtime.current.view(era);
  const generation = served();
  const { config } = generation;
  // A virtual server has its own name, instructions and the capabilities its members need (virtual-server.ts).
  const serverName = options.identity?.server;
  const virtual = serverName === undefined ? undefined : virtualServerOf(config, serverName);
  const capabilities = virtual ? virtual.capabilities(generation.capabilities(era)) : generation.capabilities(era);
  const name = virtual ? (virtual.settings.name ?? `${config.name}-${virtual.key}`) : config.name;
  const instructions = virtual?.settings.instructions ?? config.instructions;
  const server = new TracedServer(
    { name, version: config.version },
    {
      capabilities,
      ...(instructions === undefined ? {} : { instructions }),
      supportedProtocolVersions: config.protocolVersions,
    },
  );
  const session = new FrontSession(server, runtime.logger, era, options.identity);
  // A 2026-07-28 request stands alone, tied to no session: the shared upstream serves it (docs/isolation.md).
  const scope =
    options.longLived && era === 'legacy'
      ? new SessionScope(session, options.clientName ?? (() => 'a client session'), options.owner)
      : undefined;
  session.scope = scope;
  /** A request's hooks, naming this session to a `sessions: 'per-client'` mount. */
  const scoped = (hooks: CallHooks): CallHooks => (scope ? { ...hooks, scope } : hooks);
  /** What this session's searches found, added to its list: a 2025-era session lives long enough to list it. */
  const surfaced = options.longLived && era === 'legacy' ? new SurfacedTools() : undefined;
  const handle = (method: string, serveKept: Handler) => {
    // A virtual server without members of a kind does not announce it, and the SDK takes no handler for it.
    const kind = method.split('/')[0] as 'tools' | 'prompts' | 'resources';
    if (kind in LIST_CAPABILITIES && !capabilities[kind]) return;
    // A client of a virtual server a reload removed is told so at once; a whole-catalogue session pays nothing for it.
    const serve: Handler =
      serverName === undefined
        ? serveKept
        : (request, ctx) => {
            const removed = removedServerError(served().config, identityOf(ctx));
            return removed ? Promise.reject(removed) : serveKept(request, ctx);
          };
    // Calls, gets, reads, subscriptions and completions each leave an audit record (audited.ts).
    const handler: Handler = isAudited(method)
      ? (request, ctx) => audited(served(), server, ctx, method, request.params ?? {}, () => serve(request, ctx))
      : serve;
    // tools/call, and the extensions' methods the SDK has no schema of (skills/list …), take params as sent.
    return method === 'tools/call' || EXTENSION_METHODS.has(method)
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
    const generation = served();
    const identity = identityOf(ctx);
    const discovery = searchServed(generation, identity);
    const page = discovery
      ? { tools: searchModeTools(generation, identity, discovery, request.params?.cursor, surfaced) }
      : await list('tools')(request, ctx);
    return servesModernEra(server) ? unwrapListedSchemas(page) : page;
  });
  handle('tools/call', async (request, ctx) => {
    logCaller(runtime.logger, ctx, 'tools/call');
    const generation = served();
    const identity = identityOf(ctx);
    const discovery = request.params?.name === SEARCH_TOOL_NAME ? searchServed(generation, identity) : undefined;
    if (discovery) {
      // Found tools are shown as tools/list shows them to this client (a 2026-07-28 one's unwrapped).
      const present = servesModernEra(server)
        ? (tools: Params[]) => unwrapListedSchemas({ tools }).tools as Params[]
        : undefined;
      const { result, surfacedChanged } = await searchTools(generation, identity, discovery, request.params!, {
        surfaced,
        present,
      });
      // Told before the answer, so a client that lists on the answer sees what was found.
      if (surfacedChanged) session.listChanged(new Set(['tools']));
      return result;
    }
    // Read before the call, from the generation it is made in; only a 2026-07-28 client needs it.
    const schema = servesModernEra(server) ? listedOutputSchema(served(), request.params?.name) : undefined;
    const result = await forwardMultiRoundTrip(runtime, server, ctx, request.params, (hooks) =>
      callToolWithinLimits(served(), request.params ?? {}, scoped(hooks)),
    );
    if (!servesModernEra(server)) return result;
    return handOutTask(runtime, served(), ctx, request.params?.name, unwrapCallResult(result, schema));
  });
  handle('prompts/list', list('prompts'));
  handle('prompts/get', (request, ctx) =>
    forwardMultiRoundTrip(runtime, server, ctx, request.params, (hooks) =>
      getPrompt(served(), request.params ?? {}, scoped(hooks)),
    ),
  );
  handle('resources/list', list('resources'));
  handle('resources/templates/list', list('resourceTemplates'));
  handle('resources/read', (request, ctx) =>
    forwardMultiRoundTrip(runtime, server, ctx, request.params, (hooks) =>
      readResource(served(), request.params ?? {}, scoped(hooks)),
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
  const skills = capabilities.extensions?.[SKILLS_EXTENSION];
  if (skills) {
    // SEP-2640's results are cacheable at 2026-07-28, and the SDK adds no hint to a method it has no schema of.
    const cacheable = (result: Record<string, unknown>) =>
      servesModernEra(server) ? { ...result, ...(hintOf(result) ?? NO_PROMISE) } : result;
    handle('skills/list', list('skills'));
    handle('skills/get', async (request, ctx) =>
      cacheable(await getSkill(served(), request.params ?? {}, scoped(callHooksFor(ctx, request.params)))),
    );
    if (skills.directoryRead === true) {
      handle('resources/directory/read', async (request, ctx) =>
        cacheable(await readDirectory(served(), request.params ?? {}, scoped(callHooksFor(ctx, request.params)))),
      );
    }
  }
  if (capabilities.completions) {
    handle('completion/complete', (request, ctx) =>
      complete(served(), request.params ?? {}, scoped(callHooksFor(ctx, request.params))),
    );
  }

  // Only a 2026-07-28 client is told of the tasks extension (generation.ts), and only when a mount offers it.
  if (capabilities.extensions?.[TASKS_EXTENSION]) serveTaskRequests(server, runtime, served);

  if (options.longLived) {
    runtime.sessions.add(session, options.reachable ?? true);
    const sessionEnded = traceSession(server);
    const previousOnClose = server.onclose;
    server.onclose = () => {
      previousOnClose?.();
      sessionEnded?.();
      // Its own upstreams close with it (and their subscriptions, unasked).
      scope?.end();
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
