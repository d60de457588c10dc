import type { HostRuntime } from '../runtime.js';
import { html, table, type Html } from './html.js';

/**
 * The client sessions open now, as `mcp-host status` counts them: era,
 * identity, when its client last sent a request, what it follows. A
 * session's id is never shown: on a 2025-era HTTP session it is what its
 * client presents with each request.
 */
export function sessionsBody(runtime: HostRuntime, now = Date.now()): Html {
  const sessions = [...runtime.sessions].filter((session) => !session.fansOut);
  if (sessions.length === 0) return html`<p class="muted">no client session is open</p>`;
  const rows = sessions.map((session) => {
    const idle = session.lastActive === undefined ? '' : `${Math.round((now - session.lastActive) / 1000)} s ago`;
    const who = session.identity ? `${session.identity.kind} ${session.identity.name}` : '';
    return html`<tr>
      <td>${session.era}</td>
      <td>${who}</td>
      <td>${idle}</td>
      <td>${session.subscriptions.size}</td>
    </tr>`;
  });
  return html`<p>${sessions.length} session(s)</p>
    ${table('sessions', ['Era', 'Identity', 'Last request', 'Subscriptions'], rows)}`;
}
