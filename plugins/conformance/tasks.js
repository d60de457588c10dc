// The tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`) as the
// conformance suite's `tasks-*` scenarios judge it: the fixtures they call
// (`greet`, `slow_compute`, `failing_job`, `protocol_error_job`,
// `confirm_delete`, `multi_input`, `test_tool_with_task`) and the follow-ups
// `tasks/get`, `tasks/update` and `tasks/cancel`. The SDK has no tasks
// support of its own, so the task store is here: a task-supporting tool
// called by a client that declared the extension answers with a task
// (`resultType: "task"`), which then runs on in this process. The store is
// the module's, not a server's: a stateless HTTP server is created per
// request, and a task must outlive the request that started it.
import { randomUUID } from 'node:crypto';
import {
  acceptedContent,
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import { z } from 'zod';

/** @typedef {import('@modelcontextprotocol/server').McpServer} McpServer */
/** @typedef {import('@modelcontextprotocol/server').ServerContext} ServerContext */
/** @typedef {Record<string, unknown>} Params */
/**
 * @typedef {object} Task
 * @property {string} taskId
 * @property {'working' | 'input_required' | 'completed' | 'failed' | 'cancelled'} status
 * @property {string} createdAt
 * @property {string} lastUpdatedAt
 * @property {Params} [result]
 * @property {{ code: number, message: string }} [error]
 * @property {Record<string, Params>} [inputRequests] what the task still waits for, by key
 * @property {(answers: Params) => void} [answered] resumes the task once every input request is answered
 * @property {NodeJS.Timeout} [timer]
 */

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** How long a task is kept after it was created (a client may poll it that long). */
const TTL_MS = 10 * 60_000;
const POLL_INTERVAL_MS = 200;

/** Params and results as sent: the SDK knows the task methods only by their 2025-era shapes, which SEP-2663 replaced. */
const AS_SENT = { '~standard': { version: 1, vendor: 'mcp-host-conformance', validate: (value) => ({ value }) } };
const SCHEMAS = { params: AS_SENT, result: AS_SENT };

/** @type {Map<string, Task>} */
const TASKS = new Map();

/** @param {string} text */
const content = (text) => ({ content: [{ type: /** @type {const} */ ('text'), text }] });
const now = () => new Date().toISOString();

/** Whether the request's client declared the extension (2026-07-28 clients declare their capabilities per request). */
function declaresTasks(/** @type {ServerContext} */ ctx) {
  const declared = /** @type {Params | undefined} */ (ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY]);
  const extensions = /** @type {Params | undefined} */ (declared?.extensions);
  return extensions?.[TASKS_EXTENSION] !== undefined;
}

function missingExtension(/** @type {string} */ what) {
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    `${what} needs the ${TASKS_EXTENSION} extension: declare it in the client's capabilities (extensions).`,
  );
}

/** The fields every task answer carries (SEP-2663's `Task`). */
const envelope = (/** @type {Task} */ task) => ({
  taskId: task.taskId,
  status: task.status,
  createdAt: task.createdAt,
  lastUpdatedAt: task.lastUpdatedAt,
  ttlMs: TTL_MS,
  pollIntervalMs: POLL_INTERVAL_MS,
});

/**
 * @param {Task} task
 * @param {Partial<Pick<Task, 'status' | 'result' | 'error' | 'inputRequests'>>} change
 */
function settle(task, change) {
  if (['completed', 'failed', 'cancelled'].includes(task.status)) return;
  Object.assign(task, change, { lastUpdatedAt: now() });
  if (change.status !== 'input_required') delete task.inputRequests;
}

/**
 * A new task, kept `TTL_MS`, answered as a CreateTaskResult; `run` starts its work.
 * @param {(task: Task) => void} run
 */
function startTask(run) {
  const task = /** @type {Task} */ ({
    taskId: randomUUID(),
    status: 'working',
    createdAt: now(),
    lastUpdatedAt: now(),
  });
  TASKS.set(task.taskId, task);
  setTimeout(() => TASKS.delete(task.taskId), TTL_MS).unref();
  run(task);
  return /** @type {never} */ ({ resultType: 'task', ...envelope(task) });
}

/**
 * Settles `task` with `change` after `ms`, unless it was cancelled first.
 * @param {Task} task
 * @param {number} ms
 * @param {Parameters<typeof settle>[1]} change
 */
function after(task, ms, change) {
  task.timer = setTimeout(() => settle(task, change), ms);
  task.timer.unref();
}

/**
 * Parks `task` on `inputRequests` until every one is answered by `tasks/update`, then calls `done` with the answers.
 * @param {Task} task
 * @param {Record<string, Params>} inputRequests
 * @param {(answers: Params) => Params} done the task's result
 */
function askThenComplete(task, inputRequests, done) {
  /** @type {Params} */
  const answers = {};
  settle(task, { status: 'input_required', inputRequests: { ...inputRequests } });
  task.answered = (given) => {
    for (const [key, answer] of Object.entries(given)) {
      if (!task.inputRequests?.[key]) continue; // a key nobody asked for is ignored
      answers[key] = answer;
      delete task.inputRequests[key];
    }
    if (Object.keys(task.inputRequests ?? {}).length === 0)
      settle(task, { status: 'completed', result: done(answers) });
  };
}

/** @param {string} message @param {Record<string, object>} properties */
const elicit = (message, properties) => ({
  method: 'elicitation/create',
  params: { mode: 'form', message, requestedSchema: { type: 'object', properties } },
});

/** @param {Params} params */
function taskOf(params) {
  const task = typeof params?.taskId === 'string' ? TASKS.get(params.taskId) : undefined;
  if (!task) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown task ${JSON.stringify(params?.taskId)}`);
  return task;
}

/** The tools registered with `taskSupport: "required"`: a client that did not declare the extension is refused them. */
const TASK_REQUIRED = new Set();

/**
 * Refuses a required-task tool to a client that did not declare the
 * extension with -32021, before the tool runs (SEP-2663). McpServer answers
 * whatever its tool handlers throw as a tool error (`isError`), so the gate
 * wraps its `tools/call` handler as McpServer installs it: call this before
 * registering any tool.
 * @param {McpServer} server
 */
export function gateTaskRequiredTools(server) {
  const low = server.server;
  const setRequestHandler = low.setRequestHandler.bind(low);
  low.setRequestHandler = /** @type {typeof low.setRequestHandler} */ (
    (/** @type {string} */ method, /** @type {any[]} */ ...rest) => {
      if (method !== 'tools/call' || rest.length !== 1)
        return setRequestHandler(/** @type {never} */ (method), ...rest);
      const [handler] = rest;
      return setRequestHandler('tools/call', (request, ctx) => {
        const { name } = request.params;
        if (TASK_REQUIRED.has(name) && !declaresTasks(ctx)) throw missingExtension(`tools/call ${name}`);
        return handler(request, ctx);
      });
    }
  );
}

/**
 * A tool that answers with a task when its client declared the extension,
 * and otherwise (`taskSupport: "optional"`) runs to its result in the call;
 * a `"required"` one is refused by the gate (gateTaskRequiredTools).
 * @param {McpServer} server
 * @param {string} name
 * @param {{ description: string, inputSchema?: Record<string, z.ZodType>, taskSupport: 'optional' | 'required' }} config
 * @param {{ task: (task: Task, args: Params) => void, sync?: (args: Params) => Promise<Params> }} run
 */
function registerTaskTool(server, name, { description, inputSchema, taskSupport }, run) {
  const tool = server.registerTool(name, { description, inputSchema: inputSchema ?? {} }, async (args, ctx) => {
    if (declaresTasks(ctx) || !run.sync) return startTask((task) => run.task(task, args));
    return /** @type {never} */ (await run.sync(args));
  });
  // McpServer's registerTool takes no `execution`; tools/list lists what the registered tool holds.
  tool.execution = { taskSupport };
  if (taskSupport === 'required') TASK_REQUIRED.add(name);
}

/** @param {McpServer} server */
function registerTaskTools(server) {
  server.registerTool(
    'greet',
    { description: 'Answers at once (no task): Hello, {name}!', inputSchema: { name: z.string() } },
    async ({ name }) => content(`Hello, ${name}!`),
  );
  const seconds = z.number().min(0).describe('How long the computation takes');
  registerTaskTool(
    server,
    'slow_compute',
    {
      description: 'Sleeps `seconds`, then answers; a task when the client declared the tasks extension.',
      inputSchema: { seconds, label: z.string().optional() },
      taskSupport: 'optional',
    },
    {
      task: (task, { seconds, label }) =>
        after(task, Number(seconds) * 1000, { status: 'completed', result: content(`Computed ${label ?? ''}`) }),
      sync: async ({ seconds, label }) => {
        await new Promise((resolve) => setTimeout(resolve, Number(seconds) * 1000));
        return content(`Computed ${label ?? ''}`);
      },
    },
  );
  registerTaskTool(
    server,
    'failing_job',
    { description: 'A task that fails as a tool (isError) after ~1 s.', taskSupport: 'required' },
    {
      task: (task) =>
        after(task, 1000, {
          status: 'completed',
          result: { ...content('failing_job failed, as it always does'), isError: true },
        }),
    },
  );
  registerTaskTool(
    server,
    'protocol_error_job',
    { description: 'A task that fails with a protocol error (status failed).', taskSupport: 'required' },
    {
      task: (task) =>
        after(task, 100, {
          status: 'failed',
          error: { code: ProtocolErrorCode.InternalError, message: 'protocol_error_job failed, as it always does' },
        }),
    },
  );
  registerTaskTool(
    server,
    'confirm_delete',
    {
      description: 'A task that asks the user to confirm deleting `filename`, then says what it did.',
      inputSchema: { filename: z.string() },
      taskSupport: 'required',
    },
    {
      task: (task, { filename }) =>
        askThenComplete(
          task,
          { confirm: elicit(`Delete ${filename}?`, { confirm: { type: 'boolean' } }) },
          ({ confirm }) =>
            content(`${acceptedContent({ confirm }, 'confirm')?.confirm ? 'Deleted' : 'Kept'} ${filename}`),
        ),
    },
  );
  registerTaskTool(
    server,
    'multi_input',
    { description: 'A task that asks two questions at once, then echoes both answers.', taskSupport: 'required' },
    {
      task: (task) =>
        askThenComplete(
          task,
          {
            first: elicit('First question', { name: { type: 'string' } }),
            second: elicit('Second question', { confirm: { type: 'boolean' } }),
          },
          (answers) => content(`Answers: ${JSON.stringify(answers)}`),
        ),
    },
  );
  // Asks for a name the 2026-07-28 way (input_required) first, and only the
  // round that carries the answer becomes a task (SEP-2663: MRTR, then a task).
  const composed = server.registerTool(
    'test_tool_with_task',
    { description: 'Asks for a name (input_required, key "user_name"), then greets it from a task.' },
    async (ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'user_name');
      if (typeof answer?.name !== 'string') {
        return inputRequired({
          inputRequests: {
            user_name: inputRequired.elicit({
              message: 'What is your name?',
              requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
            }),
          },
        });
      }
      const name = answer.name;
      return startTask((task) => after(task, 100, { status: 'completed', result: content(`Hello, ${name}!`) }));
    },
  );
  composed.execution = { taskSupport: 'required' };
  TASK_REQUIRED.add('test_tool_with_task');
}

/**
 * `tasks/get`, `tasks/update` and `tasks/cancel`, for clients that declared
 * the extension (SEP-2663: any other is refused with -32021).
 * @param {McpServer} server
 */
function serveTaskRequests(server) {
  /** @param {string} method @param {(task: Task, ctx: ServerContext) => Params} answer */
  const serve = (method, answer) =>
    server.server.setRequestHandler(
      /** @type {never} */ (method),
      /** @type {never} */ (SCHEMAS),
      /** @type {never} */ (
        async (/** @type {Params} */ params, /** @type {ServerContext} */ ctx) => {
          if (!declaresTasks(ctx)) throw missingExtension(method);
          return answer(taskOf(params), ctx);
        }
      ),
    );
  serve('tasks/get', (task) => ({
    ...envelope(task),
    ...(task.result ? { result: task.result } : {}),
    ...(task.error ? { error: task.error } : {}),
    ...(task.inputRequests ? { inputRequests: task.inputRequests } : {}),
  }));
  // The SDK lifts a request's inputResponses out of its params (SEP-2322), for this handler as for any.
  serve('tasks/update', (task, ctx) => {
    task.answered?.(/** @type {Params} */ (ctx.mcpReq.inputResponses ?? {}));
    return {};
  });
  serve('tasks/cancel', (task) => {
    clearTimeout(task.timer);
    settle(task, { status: 'cancelled' });
    return {};
  });
}

/**
 * The task fixtures and follow-ups, and the extension in the server's capabilities.
 * @param {McpServer} server
 */
export function registerTasks(server) {
  server.server.registerCapabilities({ extensions: { [TASKS_EXTENSION]: {} } });
  registerTaskTools(server);
  serveTaskRequests(server);
}
