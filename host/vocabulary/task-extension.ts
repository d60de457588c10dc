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
