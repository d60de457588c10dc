import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { isPlainObject } from '../plain-object.js';
import { headerParamsOf, mirroredHeaders, type HeaderParam } from '../vocabulary/mirrored-params.js';

/**
 * The `Mcp-Param-*` headers a remote 2026-07-28 upstream expects on a call
 * (SEP-2243), as an SDK client would send them. The SDK's client finds the
 * declarations in the tools it listed; the host speaks to the upstream
 * through the bare transport, so it keeps them itself, from the upstream's
 * own `tools/list` answers as they pass through the channel (its own names,
 * before any prefix). Without them a server that declares a header refuses
 * the call (-32020), whoever the client: a 2025-era client never sends them,
 * and a 2026-07-28 client's go to the host, not upstream. One per mount:
 * its per-client connections call what its own connection listed.
 */
export class MirroredParams {
  /** Upstream tool name → its mirrored arguments; tools without any are absent. */
  private readonly byTool = new Map<string, HeaderParam[]>();

  /** Learn from a page of the upstream's `tools/list`: what each tool on it mirrors now. */
  learn(tools: unknown): void {
    if (!Array.isArray(tools)) return;
    for (const tool of tools) {
      if (!isPlainObject(tool) || typeof tool.name !== 'string') continue;
      const params = headerParamsOf(tool.inputSchema);
      if (params.length > 0) this.byTool.set(tool.name, params);
      else this.byTool.delete(tool.name);
    }
  }

  /** The headers a `tools/call` carries to the upstream, or undefined when its tool mirrors nothing. */
  headersFor(message: JSONRPCMessage): Record<string, string> | undefined {
    if (!('method' in message) || message.method !== 'tools/call' || this.byTool.size === 0) return undefined;
    const params = message.params as { name?: unknown; arguments?: unknown } | undefined;
    const mirrored = typeof params?.name === 'string' ? this.byTool.get(params.name) : undefined;
    return mirrored && mirroredHeaders(mirrored, params!.arguments);
  }
}
