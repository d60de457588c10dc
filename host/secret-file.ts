import { readFileSync } from 'node:fs';
import { HostError, describeThrown } from './errors.js';

/**
 * A secret read from a file rather than from the environment (DESIGN.md,
 * "Containment"). The host's environment stays readable by code in its
 * process through `/proc/self/environ` however `process.env` is cleaned
 * (secret-env.ts), and by every process of the same user through
 * `/proc/<host pid>/environ`, `ps e` and crash reports; a file can be
 * mounted by a secret store (Docker and Kubernetes secrets, systemd
 * credentials), kept out of a `'process'` or `'sandbox'` plugin's view,
 * and never reaches a child's environment. Read once, when the host starts.
 */
export function readSecretFile(file: string, where: string, holds: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new HostError({
      where,
      what: `cannot read ${holds} from ${file}: ${describeThrown(error)}.`,
      fix: "create the file, readable by the host's user, or correct its path.",
    });
  }
}
