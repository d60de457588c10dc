import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import type { PluginServer } from '../plugin.js';
import { MODERN_REVISION } from '../protocol-versions.js';
import { pluginWhere } from '../config/problem-wording.js';
import { pluginServeStdio } from './plugin-sdk-copy.js';

export interface PluginConnection {
  /** The server can be spoken to in 2026-07-28: the peer probes with `server/discover`. */
  modern: boolean;
  close(): Promise<void>;
}

/**
 * Connect the server a plugin's `create()` returned to its side of the
 * in-process link, so that the host can speak to it in the newest revision
 * both sides speak.
 *
 * A server of SDK v2 (`@modelcontextprotocol/server`) serves 2026-07-28 in
 * process: connected through the SDK's own era-deciding entry (`serveStdio`
 * with the link as its transport; one connection, so its factory gives the
 * one server `create()` made), it answers `server/discover`, and what its
 * handlers return (an `inputRequired(...)` with its keys and its own
 * `requestState`, cache hints) passes through to 2026-07-28 clients as it
 * came; it still answers `initialize` had the host asked that instead.
 * A server of SDK v1 cannot: it is connected as before, spoken to in a
 * 2025-era revision, and its mid-call requests are bridged.
 *
 * A v2 server is linked at 2026-07-28 only when its manifest's
 * `protocolVersions` names that revision. That revision has no
 * server-to-client requests, so a handler written push-style
 * (`ctx.mcpReq.elicitInput`, `requestSampling`) fails on it; the 2025-era
 * link serves both styles (the SDK's legacy shim turns an `inputRequired`
 * return into those requests, which the host bridges). Naming 2026-07-28
 * is how a plugin says its handlers return `inputRequired(...)` instead;
 * a plugin that names no revisions keeps the link that serves both.
 *
 * The entry that serves it is its own copy of the SDK's (plugin-sdk-copy.ts).
 */
export async function connectPluginServer(
  server: PluginServer,
  pluginSide: { extraOf(message: JSONRPCMessage): object | undefined },
  plugin: { entryFile: string; path: string; label: string; manifest: { protocolVersions?: readonly string[] } },
): Promise<PluginConnection> {
  const modern = isSdkV2(server) && plugin.manifest.protocolVersions?.includes(MODERN_REVISION) === true;
  if (!modern) {
    await server.connect(pluginSide as never);
    return { modern, close: () => server.close() };
  }
  const serveStdio = await pluginServeStdio(plugin.entryFile, pluginWhere(plugin.path, plugin.label));
  let served = false;
  const handle = serveStdio(
    () => {
      if (served) throw new Error('the plugin server is already connected');
      served = true;
      return withDeliveredExtras(server, pluginSide.extraOf) as never;
    },
    { transport: pluginSide as never },
  );
  return { modern, close: () => handle.close() };
}

/**
 * `serveStdio` hands each message to the server without the extra the link
 * delivered it with (a pipe has none): the server gets it back, so a
 * handler finds the client's forwarded headers and `ctx.http.closeSSE`
 * as it does on the 2025-era link. The server is the one `create()` made,
 * connected once: its `connect` is wrapped to wrap the channel's dispatch.
 */
function withDeliveredExtras(
  server: PluginServer,
  extraOf: (message: JSONRPCMessage) => object | undefined,
): PluginServer {
  const connectable = server as unknown as { connect(transport: Transport): Promise<void> };
  const connect = connectable.connect.bind(connectable);
  connectable.connect = async (transport) => {
    await connect(transport);
    const dispatch = transport.onmessage;
    transport.onmessage = (message, extra) => dispatch?.(message, { ...extraOf(message), ...extra });
  };
  return server;
}

/** SDK v2's servers (McpServer wraps one) know the era they serve; v1's do not. */
function isSdkV2(server: PluginServer): boolean {
  const inner = (server as { server?: unknown }).server ?? server;
  return typeof (inner as { getNegotiatedProtocolVersion?: unknown }).getNegotiatedProtocolVersion === 'function';
}
