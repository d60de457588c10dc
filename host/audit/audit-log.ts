import { existsSync, mkdirSync, openSync, renameSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import pino from 'pino';
import type { AuditConfig } from '../config/types.js';
import type { AuditLog } from '../sinks/audit.js';
import type { Logger } from '../log.js';
import { HostError } from '../errors.js';
import { configWhere } from '../config/problem-wording.js';

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
 *
 * Each file is opened synchronously (one system call per `size` bytes) and
 * given its own destination, the previous one ending once its buffer is
 * written. An asynchronous reopen left a window in which the new file did
 * not exist yet, so there was nothing to rename: on a loaded machine a
 * burst of records landed in one file, far past `size`.
 */
export function openAuditLog(config: AuditConfig, configFile: string, logger: Logger): AuditLog {
  const file = resolve(dirname(configFile), config.file);
  const openDestination = () => {
    const destination = pino.destination({ fd: openSync(file, 'a'), sync: false });
    destination.on('error', (error: Error) => logger.error(`audit log ${file}: ${error.message}`));
    return destination;
  };
  let destination: Destination;
  try {
    mkdirSync(dirname(file), { recursive: true });
    destination = openDestination();
  } catch (error) {
    // Refused at start: a host that was asked for an audit trail does not serve without one.
    throw new HostError({
      where: configWhere(configFile, 'audit.file'),
      what: `the audit log ${file} cannot be opened for appending: ${(error as Error).message}.`,
      fix: 'point audit.file at a file in a directory the host may write to, or remove audit.',
    });
  }
  // The ends not yet settled: a renamed file's while its buffer is still being written, and at close the current one's.
  const ending = new Set<Promise<void>>();
  const end = (ended: Destination) => {
    const settled: Promise<void> = endOf(ended).then(() => void ending.delete(settled));
    ending.add(settled);
  };
  const { rotate } = config;
  let size = statSync(file).size;
  const rotateFiles = (keep: number) => {
    for (let n = keep - 1; n >= 1; n--) {
      if (existsSync(`${file}.${n}`)) renameSync(`${file}.${n}`, `${file}.${n + 1}`);
    }
    renameSync(file, `${file}.1`);
    const next = openDestination();
    end(destination);
    destination = next;
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
      if (size < rotate.size) return;
      try {
        rotateFiles(rotate.keep);
      } catch (error) {
        // A record is never worth a client's request: the log says why the file was not rotated.
        logger.error(`audit log ${file}: could not rotate: ${(error as Error).message}`);
      }
    },
    async close() {
      end(destination);
      await Promise.all(ending);
    },
  };
}

type Destination = ReturnType<typeof pino.destination>;

/**
 * Ends a destination: settled once it has written what it holds and closed
 * its file. A file that fails a write (a full disk) would hold its records
 * for ever, and the host's stop with them: it is closed with them unwritten,
 * as the log has said.
 */
function endOf(destination: Destination): Promise<void> {
  const closed = new Promise<void>((resolve) => destination.once('close', () => resolve()));
  destination.on('error', () => destination.destroy());
  destination.end();
  return closed;
}
