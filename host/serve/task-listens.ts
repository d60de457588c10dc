import { CLIENT_CAPABILITIES_META_KEY, SUBSCRIPTION_ID_META_KEY } from '@modelcontextprotocol/server';
import type { HostRuntime } from '../runtime.js';
import type { TaskBinding } from '../catalogue/task-handles.js';
import { isPlainObject } from '../plain-object.js';
import type { Identity } from '../vocabulary/identity.js';
import type { ChangedList } from '../vocabulary/list-kinds.js';
import { TASKS_EXTENSION, declaresTasks, taskOwnerOf } from '../vocabulary/task-extension.js';
import type { EntryRequest } from '../sinks/telemetry.js';
import { onAnswered } from './node-exchange.js';
import type { ListenStream } from './listen-streams.js';

type Params = Record<string, unknown>;

/** A listen request that names tasks the caller may follow, as the endpoint serves it. */
export interface TaskListen {
  /** The request as the SDK's handler is given it. */
  readonly body: unknown;
  /** The list the SDK is asked for only to hold the stream open (its changes are not told), if any. */
  readonly borrowed?: ChangedList;
  /** The SDK's stream, acknowledging the tasks followed and carrying their status. */
  serve(response: Response, stream: ListenStream): Response;
}

/**
 * SEP-2663 task status on a 2026-07-28 client's `subscriptions/listen`
 * stream: a request naming `taskIds` is followed for each ID the caller was
 * handed (task-handles.ts); another's ID, or one unknown or expired, is
 * left out of the acknowledgement, which lists the IDs agreed to (the
 * spec's answer to an ID a server will not follow), so the caller learns
 * nothing of it. Undefined when no ID is agreed to: the SDK serves the
 * request as it is. A refusal (-32021) when IDs are named by a client that
 * did not declare the extension, as SEP-2663 requires.
 *
 * The SDK's listen streams know four kinds of change and no `taskIds` (its
 * filter schema drops the field), so the host serves task status around
 * the SDK's stream: it rewrites the acknowledgement and writes each
 * `notifications/tasks` among the SDK's frames. A request that names only
 * tasks (or nothing else the SDK honours) would be closed by the SDK as
 * asking for nothing, so the SDK is asked for tool list changes too unless
 * the client asked for them, and the stream is then not told of them.
 */
export function taskListenOf(
  runtime: HostRuntime,
  identity: Identity,
  { id, params }: EntryRequest,
  json: unknown,
): TaskListen | Response | undefined {
  const notifications = params?.notifications;
  if (!isPlainObject(notifications)) return undefined;
  const { taskIds, ...filter } = notifications;
  if (!Array.isArray(taskIds) || taskIds.length === 0) return undefined;
  const capabilities = (params!._meta as Params | null | undefined)?.[CLIENT_CAPABILITIES_META_KEY];
  if (!declaresTasks(capabilities)) return missingCapability(id);
  const owner = taskOwnerOf(identity);
  const agreed = new Map<string, TaskBinding>();
  for (const handle of taskIds) {
    const binding = runtime.tasks.bindingOf(handle, owner);
    if (binding) agreed.set(handle as string, binding);
  }
  if (agreed.size === 0) return undefined;
  // Tool list changes, which the host always offers, hold the stream open whatever else the SDK honours of the filter.
  const borrowed: ChangedList | undefined = filter.toolsListChanged === true ? undefined : 'tools';
  return {
    body: {
      ...(json as Params),
      params: { ...params, notifications: borrowed ? { ...filter, toolsListChanged: true } : filter },
    },
    ...(borrowed && { borrowed }),
    serve: (response, stream) => following(runtime, response, stream, agreed, borrowed, id),
  };
}

/** The SDK's stream with the agreed tasks acknowledged and their status notifications written among its frames. */
function following(
  runtime: HostRuntime,
  response: Response,
  stream: ListenStream,
  agreed: Map<string, TaskBinding>,
  borrowed: ChangedList | undefined,
  subscriptionId: unknown,
): Response {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const unfollow: Array<() => void> = [];
  let acknowledged = false;
  const frames = response.body!.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (acknowledged) return controller.enqueue(chunk);
        // The SDK writes the acknowledgement first, as one chunk; the tasks are followed once it is on its way.
        acknowledged = true;
        controller.enqueue(encoder.encode(acknowledging(decoder.decode(chunk), [...agreed.keys()], borrowed)));
        for (const [handle, binding] of agreed) {
          const tell = (task: Params) => {
            if (stream.closed) return;
            const params = { ...task, _meta: { [SUBSCRIPTION_ID_META_KEY]: subscriptionId } };
            controller.enqueue(encoder.encode(frameOf({ jsonrpc: '2.0', method: 'notifications/tasks', params })));
          };
          unfollow.push(runtime.taskFollowers.follow(binding, handle, tell));
        }
      },
    }),
  );
  return onAnswered(new Response(frames, response), () => {
    for (const stop of unfollow) stop();
  });
}

/** The SDK's acknowledgement frame, saying what the client asked for: the tasks agreed to, not the borrowed list. */
function acknowledging(frame: string, taskIds: string[], borrowed: ChangedList | undefined): string {
  const data = frame.split('\n').find((line) => line.startsWith('data: '))!;
  const message = JSON.parse(data.slice(6)) as { params: { notifications: Params } };
  const { notifications } = message.params;
  if (borrowed) delete notifications.toolsListChanged;
  notifications.taskIds = taskIds;
  return frameOf(message);
}

function frameOf(message: unknown): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

function missingCapability(id: unknown): Response {
  return Response.json({
    jsonrpc: '2.0',
    id: id ?? null,
    error: {
      code: -32021,
      message: `subscriptions/listen naming taskIds needs the ${TASKS_EXTENSION} extension: declare it in the client's capabilities (extensions).`,
      data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    },
  });
}
