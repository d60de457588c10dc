import { MissingRequiredClientCapabilityError, type Server, type ServerContext } from '@modelcontextprotocol/server';
import type { HostRuntime } from '../runtime.js';
import type { Generation } from '../catalogue/generation.js';
import { ownerOfName } from '../catalogue/routing.js';
import { ErrorCode, RpcError } from '../rpc-error.js';
import { identityOf } from '../vocabulary/identity.js';
import {
  TASKS_EXTENSION,
  TASK_REQUESTS,
  declaresTasks,
  isTaskNotification,
  taskOwnerOf,
} from '../vocabulary/task-extension.js';
import type { CallHooks } from '../vocabulary/call-hooks.js';
import { callHooksFor } from './call-hooks.js';
import { modernRoundOf } from './input-required.js';

type Params = Record<string, unknown>;

/** Params and results as sent: the SDK knows these methods only by their 2025-era shapes, which SEP-2663 replaced. */
const AS_SENT = { '~standard': { version: 1, vendor: 'mcp-host', validate: (value: unknown) => ({ value }) } };
const SCHEMAS = { params: AS_SENT, result: AS_SENT };

/**
 * A `tools/call` result as its client gets it: a task an upstream started
 * is handed out under a handle of the host's (task-handles.ts), bound to
 * the mount that serves the tool and to the caller.
 */
export function handOutTask(
  runtime: HostRuntime,
  generation: Generation,
  ctx: ServerContext,
  tool: unknown,
  result: Params,
): Params {
  if (result.resultType !== 'task') return result;
  const { mount } = ownerOfName(generation, 'tools', String(tool));
  const upstreamId = String(result.taskId);
  try {
    return {
      ...result,
      taskId: runtime.tasks.issue({ mount, upstreamId }, taskOwnerOf(identityOf(ctx)), result.ttlMs),
    };
  } catch (refused) {
    // Not handed out, so nobody could follow it up: it would run on unseen.
    mount.request('tasks/cancel', { taskId: upstreamId }, clientHooks(ctx, {})).catch(() => {});
    throw refused;
  }
}

/** A follow-up's hooks: the client's own capabilities go with it, as an upstream gates task requests on them. */
function clientHooks(ctx: ServerContext, params: Params) {
  return { ...callHooksFor(ctx, params), modernClient: modernRoundOf(ctx) };
}

/**
 * `tasks/get`, `tasks/update` and `tasks/cancel` of a 2026-07-28 client,
 * each sent to the mount that started the task, under the mount's own task
 * ID, and answered under the client's. A task whose mount a reload retired
 * is refused saying so: its upstream, and the task with it, is gone.
 */
export function serveTaskRequests(server: Server, runtime: HostRuntime, served: () => Generation): void {
  for (const method of TASK_REQUESTS) {
    server.setRequestHandler(
      method,
      SCHEMAS as never,
      (async (params: Params, ctx: ServerContext) => {
        const hooks = clientHooks(ctx, params);
        if (!declaresTasks(hooks.modernClient.capabilities)) {
          throw new MissingRequiredClientCapabilityError(
            { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
            `${method} needs the ${TASKS_EXTENSION} extension: declare it in the client's capabilities (extensions).`,
          );
        }
        const { mount, upstreamId } = runtime.tasks.resolve(params.taskId, taskOwnerOf(identityOf(ctx)));
        if (!served().mounts.includes(mount)) {
          throw new RpcError(
            ErrorCode.InvalidParams,
            `Task ${JSON.stringify(params.taskId)} was started by mount "${mount.name}", which a reload has since retired: the task ended with it. Fix: call the tool again.`,
          );
        }
        const result = await mount.request(
          method,
          { ...params, taskId: upstreamId },
          tellingOf(ctx, hooks, upstreamId, params.taskId),
        );
        return result.taskId === undefined ? result : { ...result, taskId: params.taskId };
      }) as never,
    );
  }
}

/**
 * A follow-up's hooks that tell its client of its own task under the ID the
 * client knows: a task notification the upstream sends on the follow-up's
 * stream naming this task gets the host's ID; one naming any other of the
 * upstream's tasks is not passed on (call-hooks.ts), nor is anything else
 * changed.
 */
function tellingOf(ctx: ServerContext, hooks: CallHooks, upstreamId: string, handle: unknown): CallHooks {
  return {
    ...hooks,
    onNotification: (notification) => {
      const told = notification.params as Params | undefined;
      if (!isTaskNotification(notification.method) || told?.taskId !== upstreamId) {
        hooks.onNotification?.(notification);
        return;
      }
      ctx.mcpReq.notify({ ...notification, params: { ...told, taskId: handle } } as never).catch(() => {});
    },
  };
}
