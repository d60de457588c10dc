import { isPlainObject } from '../plain-object.js';
import type { Identity } from './identity.js';

/**
 * The tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`): a tool
 * call an upstream turns into a task answers `resultType: 'task'` with the
 * task's ID, and the client follows it up with these requests, each naming
 * the task by `params.taskId` (as does the `Mcp-Name` header a load balancer
 * routes on).
 */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export const TASK_REQUESTS = ['tasks/get', 'tasks/update', 'tasks/cancel'] as const;
export type TaskRequest = (typeof TASK_REQUESTS)[number];

/**
 * Whether `method` is a task status notification: SEP-2663's
 * `notifications/tasks`, or the 2025-11-25 experimental
 * `notifications/tasks/status`. Each names its task by the upstream's own ID.
 */
export function isTaskNotification(method: string): boolean {
  return method === 'notifications/tasks' || method.startsWith('notifications/tasks/');
}

/** Whether a client's capabilities (per request, 2026-07-28) declare the extension. */
export function declaresTasks(capabilities: unknown): boolean {
  const extensions = isPlainObject(capabilities) ? capabilities.extensions : undefined;
  return isPlainObject(extensions) && extensions[TASKS_EXTENSION] !== undefined;
}

/** Whose a task is: tasks started by one identity are unknown to every other. */
export function taskOwnerOf(identity: Identity): string {
  return `${identity.kind}:${identity.name}`;
}
