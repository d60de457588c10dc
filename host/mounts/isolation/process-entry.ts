/**
 * The first module of a plugin's own process (see process-channel.ts): it
 * reads its start from the link on fd 3, imports the plugin's entry, calls
 * `create()` and connects the server to the host over that link. The plugin
 * runs as it would in the host's thread or a worker: the same definition
 * checks, the same in-process link (so what a handler sends while serving a
 * request names that request), a logger whose records the host logs under
 * the plugin's name. When the host ends the link, the process ends.
 */
import { Socket } from 'node:net';
import { createInterface } from 'node:readline';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';
import { pino } from 'pino';
import { describeThrown } from '../../errors.js';
import { ErrorCode } from '../../rpc-error.js';
import { createInProcessLink } from './in-process-link.js';
import { startPlugin } from './plugin-start.js';
import { LINK_FD, type FromProcess, type ProcessStart, type ToProcess } from './process-link.js';

const link = new Socket({ fd: LINK_FD, readable: true, writable: true });
const post = (message: FromProcess) => link.write(JSON.stringify(message) + '\n');
// The host ended the link (it closed the plugin, or it is gone): so does this process.
link.once('close', () => process.exit(0));

// The first line is the start. The host sends nothing else before this process says it is ready, so no
// line can come with it and be missed before the handler below is set.
const lines = createInterface({ input: link, crlfDelay: Infinity });
const { spec, name, description, importTag, logLevel, maxLineBytes } = await new Promise<ProcessStart>((resolve) =>
  lines.once('line', (line) => resolve((JSON.parse(line) as Extract<ToProcess, { type: 'start' }>).start)),
);

// The plugin's logger writes its records to the host, which logs them under the plugin's name.
const logger = pino(
  { level: logLevel, base: { plugin: name } },
  { write: (record: string) => post({ type: 'log', record: JSON.parse(record) as Record<string, unknown> }) },
);
const { hostSide, pluginSide } = createInProcessLink(description);
lines.on('line', (line) => {
  const message = JSON.parse(line) as ToProcess;
  if (message.type === 'beat') post({ type: 'beat' });
  else if (message.type === 'rpc') void hostSide.send(message.message, message.headers && { headers: message.headers });
});

hostSide.onmessage = (message: JSONRPCMessage, related?: RequestId) => {
  let why: string;
  try {
    const line = JSON.stringify({ type: 'rpc', message, ...(related !== undefined && { related }) });
    if (line.length < maxLineBytes) {
      link.write(line + '\n');
      return;
    }
    // The host would drop the line unread.
    why = `a message of ${line.length} bytes, over the ${maxLineBytes} its maxResultBytes (${spec.maxResultBytes}) allows`;
  } catch (error) {
    why = `a message that cannot be sent as JSON: ${describeThrown(error)}`;
  }
  // An answer still answers its request, saying why; anything else is only logged.
  if ('id' in message && message.id !== undefined && !('method' in message)) {
    const error = { code: ErrorCode.InternalError, message: `${description} answered with ${why}.` };
    post({ type: 'rpc', message: { jsonrpc: '2.0', id: message.id, error } });
  } else {
    logger.warn(`dropped ${why}`);
  }
};
hostSide.onclose = () => post({ type: 'closed' });

post(await startPlugin(spec, importTag, logger, pluginSide));
