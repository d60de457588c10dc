import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Problem } from '../errors.js';

/** The bubblewrap executable on the host's PATH, if there is one. */
export function findBubblewrap(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'bwrap');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/**
 * Why an entry that asks for the OS sandbox cannot have it here, judged
 * before anything starts (at `check`, start and reload), so that a missing
 * sandbox refuses the entry rather than run it with less isolation than
 * the config says.
 */
export function sandboxProblem(where: string): Problem | undefined {
  if (process.platform !== 'linux') {
    return {
      where,
      what: `asks for the sandbox, which mcp-host builds with bubblewrap on Linux; this host runs on ${process.platform}.`,
      fix: 'run the host on Linux, or use isolation: "process" (its own Node process under the permission model).',
    };
  }
  if (findBubblewrap()) return undefined;
  return {
    where,
    what: `asks for the sandbox, which needs bubblewrap (bwrap), and there is no bwrap on the host's PATH (${process.env.PATH ?? 'unset'}).`,
    fix: 'install it (apt-get install bubblewrap, or dnf install bubblewrap) where the host runs, or use isolation: "process" instead.',
  };
}
