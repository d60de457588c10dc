import { driftLines, servedDefinitions } from '../commands/pin.js';
import { formatProblem, problemsOf } from '../errors.js';
import { lockFileOf, readLock } from '../pins/lock.js';
import type { HostRuntime } from '../runtime.js';
import { html, type Html } from './html.js';

/**
 * The pinned definitions and what drifted from them: `mcp-host pin --diff`
 * on the live generation, with the same code. Pinning itself stays a
 * command: it writes a file an admin reviews and commits.
 */
export async function pinsBody(runtime: HostRuntime): Promise<Html> {
  const generation = runtime.current;
  const { config } = generation;
  const file = lockFileOf(config.file);
  const policy = html`<p>Policy: <code>pins: '${config.pins}'</code> · lock file ${file}</p>`;
  let lock;
  try {
    lock = await readLock(config.file);
  } catch (error) {
    return html`${policy}
      <p class="problem">${problemsOf(error, file).map(formatProblem).join(' ')}</p>`;
  }
  if (!lock) {
    return html`${policy}
      <p class="notice">
        Nothing is pinned: review the served definitions, then run <code>mcp-host pin --config ${config.file}</code>.
      </p>`;
  }
  const lines = driftLines(lock.mounts, servedDefinitions(generation, lock.mounts, runtime.logger));
  if (lines.length === 0)
    return html`${policy}
      <p class="ok" id="drift">no drift: every served tool and prompt matches the lock</p>`;
  return html`${policy}
    <p class="changed">Drift from the lock (review it, then <code>mcp-host pin</code> and reload):</p>
    <pre id="drift">${lines.join('\n')}</pre>`;
}
