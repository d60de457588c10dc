import { existsSync, renameSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { once } from 'node:events';
import pino from 'pino';
import type { AuditConfig } from '../config/types.js';
import type { AuditLog } from '../sinks/audit.js';
import type { Logger } from '../log.js';

/**
 * The audit log of `audit` (docs/access.md): JSON lines in a file, never on
 * stdout, written off the request path through pino's asynchronous
 * destination (a buffer the event loop flushes).
 *
 * With `rotate`, once the file holds `size` bytes it is renamed
 * `audit.log.1` (the older ones shifting to `.2` … up to `.keep`, the
 * oldest dropped) and a new file is started, as logrotate does: what is
 * still buffered lands in the renamed file, whose descriptor is still open.
 * Rotation is counted here, by what was written, rather than left to
 * pino-roll, which rolls only when its stream drains: a busy log (the very
 * case rotation is for) grew past its size until the next quiet moment.
 */
export function openAuditLog(config: AuditConfig, configDir: string, logger: Logger): AuditLog {
  const file = resolve(configDir, config.file);
  const destination = pino.destination({ dest: file, mkdir: true, sync: false });
  // The file is opened (and reopened) asynchronously: until it is, there is nothing to rename.
  let opening = true;
  destination.on('ready', () => (opening = false));
  destination.on('error', (error: Error) => logger.error(`audit log ${file}: ${error.message}`));
  const { rotate } = config;
  let size = existsSync(file) ? statSync(file).size : 0;
  const rotateFiles = (keep: number) => {
    for (let n = keep - 1; n >= 1; n--) {
      if (existsSync(`${file}.${n}`)) renameSync(`${file}.${n}`, `${file}.${n + 1}`);
    }
    renameSync(file, `${file}.1`);
    opening = true;
    destination.reopen();
    size = 0;
  };
  return {
    recordsArguments: config.recordArguments === true,
    write(record) {
      // A record is the whole line (no pino level, pid or host name), so it goes to the stream as it is.
      const line = `${JSON.stringify(record)}\n`;
      destination.write(line);
      if (!rotate) return;
      size += Buffer.byteLength(line);
      if (size < rotate.size || opening) return;
      try {
        rotateFiles(rotate.keep);
      } catch (error) {
        // A record is never worth a client's request: the log says why the file was not rotated.
        logger.error(`audit log ${file}: could not rotate: ${(error as Error).message}`);
      }
    },
    async close() {
      const closed = once(destination, 'close');
      destination.end();
      await closed;
    },
  };
}
