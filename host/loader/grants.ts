import { resolve } from 'node:path';
import type { AllowConfig } from '../config/types.js';
import type { Grants } from './types.js';

/**
 * An entry's `allow` as a plugin process or a sandboxed command is started
 * with it: paths absolute from the config's directory (where the operator
 * wrote them), and nothing granted that the entry does not name.
 */
export function grantsOf(allow: AllowConfig | undefined, configDir: string): Grants {
  return {
    read: (allow?.read ?? []).map((path) => resolve(configDir, path)),
    write: (allow?.write ?? []).map((path) => resolve(configDir, path)),
    env: allow?.env ?? [],
    net: allow?.net ?? false,
    childProcess: allow?.childProcess ?? false,
  };
}
