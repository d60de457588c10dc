/**
 * The first module of a plugin's worker thread (see worker-channel.ts): it
 * imports the plugin's entry, calls `create()` with the entry's options and a
 * logger, and connects the server it returns to the host over the worker's
 * port. The plugin runs exactly as it would in the host's thread: the same
 * definition checks, the same in-process link (so what a handler sends while
 * serving a request names that request), the same logger.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';
import { describeThrown, problemsOf } from '../../errors.js';
import { loadDefinition } from '../../loader/definition.js';
import { createLogger, isWritingLog, pluginLogger } from '../../log.js';
import { divertWorkerDescriptors } from '../plugin-output.js';
import { ErrorCode } from '../../rpc-error.js';
import { pluginWhere } from '../../config/problem-wording.js';
import { createInProcessLink } from './in-process-link.js';
import { asPluginServer, createFailed } from '../plugin-server.js';
import { connectPluginServer } from '../plugin-era.js';
import type { FromWorker, ToWorker, WorkerStart } from './worker-channel.js';

const port = parentPort!;
const { spec, name, description, importTag, logLevel } = workerData as WorkerStart;

// In a worker, process.exit ends only this thread and process.abort throws;
// process.kill of the host's own pid would still end the host and every
// plugin in it. It is refused, and faults the worker even if the plugin
// catches the refusal, as fault-attribution.ts does in the host's thread.
const kill = process.kill.bind(process);
process.kill = function guardedKill(pid: number, signal?: string | number) {
  // Signal 0 only asks whether a process exists; a plugin may signal its own children.
  if ((pid === process.pid || pid === 0) && signal !== 0) {
    const refusal = new Error(
      `${description} called process.kill(${pid}, ${String(signal ?? 'SIGTERM')}) on the host's own process, which would have ended the host and every plugin in it: mcp-host refuses process exits and signals from plugin code.`,
    );
    setImmediate(() => {
      throw refusal;
    });
    throw refusal;
  }
  return kill(pid, signal);
};
const post = (message: FromWorker) => port.postMessage(message);

// Pino writes to fd 2 from this thread (synchronously: see createLogger):
// the plugin's lines reach the host's stderr with its name, never stdout.
const logger = pluginLogger(createLogger(logLevel), name);
// Anything else the plugin writes to fd 1 or 2 goes through this thread's own streams, which the host logs as its.
divertWorkerDescriptors(isWritingLog);
const { hostSide, pluginSide } = createInProcessLink(description);

hostSide.onmessage = (message: JSONRPCMessage, related?: RequestId) => {
  try {
    post({ type: 'rpc', message, ...(related !== undefined && { related }) });
  } catch (error) {
    // An answer holding what cannot be cloned (a function, a socket) still
    // answers its request, with why; anything else is only logged.
    const why = `an answer that cannot leave its worker: ${describeThrown(error)}`;
    if ('id' in message && message.id !== undefined && !('method' in message)) {
      post({
        type: 'rpc',
        message: {
          jsonrpc: '2.0',
          id: message.id,
          error: { code: ErrorCode.InternalError, message: `${description} sent ${why}` },
        },
      });
    } else {
      logger.warn(`dropped ${why}`);
    }
  }
};
hostSide.onclose = () => post({ type: 'closed' });

port.on('message', (message: ToWorker) => {
  if (message.type === 'beat') post({ type: 'beat' });
  else void hostSide.send(message.message, message.headers && { headers: message.headers });
});

try {
  const definition = await loadDefinition(spec, importTag);
  let created: unknown;
  try {
    created = await definition.create({ options: spec.options, logger });
  } catch (error) {
    throw createFailed(spec, error);
  }
  const connection = await connectPluginServer(asPluginServer(spec, created), pluginSide, spec);
  post({ type: 'ready', modern: connection.modern });
} catch (error) {
  post({ type: 'refused', problems: problemsOf(error, pluginWhere(spec.path, spec.label)) });
}
