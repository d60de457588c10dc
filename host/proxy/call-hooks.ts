import type { LoggingLevel, ServerContext } from '@modelcontextprotocol/server';
import type { CallHooks } from '../vocabulary/call-hooks.js';
import { identityOf } from '../vocabulary/identity.js';
import { isTaskNotification } from '../vocabulary/task-extension.js';

/**
 * The hooks that tie one forwarded request to the client that made it:
 * its cancellation, its progress (under the token the client chose), the
 * plugin's mid-call requests (elicitation, sampling, roots) and its log
 * messages about the call all travel on this client's request. The
 * client's HTTP headers come along too, for the mounts whose entry forwards
 * some of them.
 */
export function callHooksFor(ctx: ServerContext, params: Record<string, unknown> | undefined): CallHooks {
  const progressToken = (params?._meta as { progressToken?: string | number } | undefined)?.progressToken;
  // Built by assignment, not by spreading optional parts into a literal: every call makes one, and the spreads
  // showed in its CPU profile (docs/performance.md, the seventh round).
  const hooks: CallHooks = {
    signal: ctx.mcpReq.signal,
    identity: identityOf(ctx),
    onRequest: (request, signal) =>
      ctx.mcpReq.send(request as { method: 'elicitation/create' }, { signal }) as Promise<Record<string, unknown>>,
    onNotification: (notification) => {
      if (notification.method === 'notifications/message') {
        const { level, data, logger } = (notification.params ?? {}) as {
          level: LoggingLevel;
          data: unknown;
          logger?: string;
        };
        ctx.mcpReq.log(level, data, logger).catch(() => {});
        return;
      }
      // It names its task by the upstream's own ID, which no client is shown (task-handles.ts); a follow-up's own
      // task is told under the host's ID (task-requests.ts).
      if (isTaskNotification(notification.method)) return;
      ctx.mcpReq.notify(notification).catch(() => {});
    },
  };
  if (progressToken !== undefined) {
    hooks.onProgress = (progress) => {
      ctx.mcpReq.notify({ method: 'notifications/progress', params: { ...progress, progressToken } }).catch(() => {});
    };
  }
  const http = ctx.http;
  if (http) {
    if (http.req) hooks.clientHeaders = http.req.headers;
    if (http.closeSSE) hooks.closeSSE = http.closeSSE;
    if (http.closeStandaloneSSE) hooks.closeStandaloneSSE = http.closeStandaloneSSE;
  }
  return hooks;
}

/** The client's HTTP headers, when its request came over HTTP, as CallHooks carries them. */
export function clientHeadersOf(ctx: ServerContext): Pick<CallHooks, 'clientHeaders'> {
  return ctx.http?.req ? { clientHeaders: ctx.http.req.headers } : {};
}
