import { resolve } from 'node:path';
import { once } from 'node:events';
import pino from 'pino';
import type { AuditConfig } from '../config/types.js';
import type { AuditLog } from '../sinks/audit.js';

/**
 * The audit log of `audit` (docs/access.md): JSON lines in a file, never on
 * stdout. Written off the request path: without rotation through pino's
 * asynchronous destination (a buffer flushed as the event loop allows), with
 * rotation through `pino-roll` in pino's transport worker thread, which also
 * starts the next file past `rotate.size` bytes and keeps `rotate.keep` old
 * ones (named `audit.1.log`, `audit.2.log`, …: pino-roll numbers every file).
 */
export function openAuditLog(config: AuditConfig, configDir: string): AuditLog {
  const file = resolve(configDir, config.file);
  const stream = config.rotate
    ? pino.transport({
        target: 'pino-roll',
        options: { file, size: `${config.rotate.size}b`, limit: { count: config.rotate.keep }, mkdir: true },
      })
    : pino.destination({ dest: file, mkdir: true, sync: false });
  return {
    recordsArguments: config.recordArguments === true,
    // A record is the whole line (no pino level, pid or host name), so it goes to the stream as it is.
    write: (record) => stream.write(`${JSON.stringify(record)}\n`),
    async close() {
      const closed = once(stream, 'close');
      stream.end();
      await closed;
    },
  };
}
