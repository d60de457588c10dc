import type { LoggingLevel, ServerContext } from '@modelcontextprotocol/server';
import type { CallHooks } from '../mounts/upstream-peer.js';

/**
 * The hooks that tie one forwarded request to the client that made it:
 * its cancellation, its progress (under the token the client chose), the
 * plugin's mid-call requests (elicitation, sampling, roots) and its log
 * messages about the call all travel on this client's request.
 */
export function callHooksFor(ctx: ServerContext, params: Record<string, unknown> | undefined): CallHooks {
  const progressToken = (params?._meta as { progressToken?: string | number } | undefined)?.progressToken;
  return {
    signal: ctx.mcpReq.signal,
    ...(progressToken === undefined
      ? {}
      : {
          onProgress: (progress) => {
            ctx.mcpReq
              .notify({ method: 'notifications/progress', params: { ...progress, progressToken } })
              .catch(() => {});
          },
        }),
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
      ctx.mcpReq.notify(notification).catch(() => {});
    },
  };
}
