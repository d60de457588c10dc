import { formatProblem } from '../errors.js';
import type { Reloader, ReloadOutcome } from '../reload/reloader.js';
import type { HostRuntime, ReloadRecord } from '../runtime.js';
import { ALL_LIST_KINDS, LIST_KINDS } from '../vocabulary/list-kinds.js';
import { html, type Html } from './html.js';

/** How many reloads the console remembers: enough to see a burst of saves, bounded whatever the uptime. */
const KEPT = 20;

interface Remembered {
  record: ReloadRecord;
  outcome: ReloadOutcome;
}

/**
 * The last reloads of this host, newest first, whatever triggered them (the
 * file watch, SIGHUP, `mcp-host reload`, the console's button), kept from
 * the moment the console starts.
 */
export class ReloadHistory {
  private readonly kept: Remembered[] = [];

  constructor(runtime: HostRuntime, reloader: Reloader) {
    // The reloader records the outcome on the runtime before it tells its listeners.
    reloader.onSettled((outcome) => {
      this.kept.unshift({ record: runtime.lastReload!, outcome });
      this.kept.length = Math.min(this.kept.length, KEPT);
    });
  }

  body(csrf: string): Html {
    return html`<form method="post" action="/admin/reload" class="stack" hx-disabled-elt="find button">
        <input type="hidden" name="_csrf" value="${csrf}" />
        <button id="reload">Reload now</button>
        <span class="muted"
          >the same reload as <code>mcp-host reload</code>: the config is read again and the catalogue rebuilt beside
          the live one, swapped in only if all of it succeeds</span
        >
      </form>
      ${
        this.kept.length === 0
          ? html`<p class="muted">no reload since this host started</p>`
          : html`<ol id="reloads" reversed>
              ${this.kept.map(entry)}
            </ol>`
      }`;
  }
}

function entry({ record, outcome }: Remembered): Html {
  const head = html`<strong class="${record.outcome}">${record.outcome}</strong> at ${record.at} (${record.trigger}),
    ${outcome.ms} ms:`;
  if (!outcome.ok) {
    return html`<li class="reload">
      ${head} generation ${outcome.generation} keeps serving unchanged
      <ul>
        ${outcome.problems.map((problem) => html`<li class="problem">${formatProblem(problem)}</li>`)}
      </ul>
    </li>`;
  }
  const { plugins, lists, notified } = outcome.diff;
  const changes = [
    ...(['added', 'removed', 'replaced'] as const)
      .filter((what) => plugins[what].length > 0)
      .map((what) => html`<li>plugins ${what}: ${plugins[what].join(', ')}</li>`),
    ...ALL_LIST_KINDS.flatMap((kind) =>
      (['added', 'removed', 'changed'] as const)
        .filter((what) => lists[kind][what].length > 0)
        .map((what) => html`<li>${LIST_KINDS[kind].noun}s ${what}: ${lists[kind][what].join(', ')}</li>`),
    ),
  ];
  return html`<li class="reload">
    ${head} generation ${outcome.generation} is live
    <ul>
      ${changes.length === 0 ? html`<li class="muted">nothing a client sees changed</li>` : [...changes, html`<li>clients notified: ${notified.join(', ') || 'none'}</li>`]}
      ${outcome.warnings.map((warning) => html`<li class="changed">warning: ${formatProblem(warning)}</li>`)}
    </ul>
  </li>`;
}
