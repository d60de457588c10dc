import { hostStatus } from '../host-status.js';
import type { HostRuntime } from '../runtime.js';
import { ALL_LIST_KINDS, LIST_KINDS, keyOf, type ListItem, type ListKind } from '../vocabulary/list-kinds.js';
import { html, table, type Html } from './html.js';

/** Every mount: its state (and why it is down), version, isolation and what it serves: `mcp-host status`'s figures. */
export function mountsBody(runtime: HostRuntime): Html {
  const status = hostStatus(runtime);
  const down = status.mounts.filter((mount) => mount.state !== 'up').length;
  const rows = status.mounts.map(
    (mount) =>
      html`<tr>
        <td><a href="/admin/mounts/${encodeURIComponent(mount.name)}">${mount.name}</a></td>
        <td>${mount.plugin}</td>
        <td>
          ${mount.version ?? ''}${mount.versionOnDisk && html` <span class="changed">(${mount.versionOnDisk} on disk: reload to serve it)</span>`}
        </td>
        <td>${mount.isolation}</td>
        <td class="${mount.state}">
          ${mount.state}${mount.cause && html`<br /><span class="problem">${mount.cause}</span>${mount.fix && html` <span class="muted">Fix: ${mount.fix}</span>`}`}
        </td>
        ${ALL_LIST_KINDS.map((kind) => html`<td>${mount.served[kind]}</td>`)}
      </tr>`,
  );
  return html`<p>
      Generation ${status.generation} · config ${status.configHash} · ${status.sessions} session(s) ·
      ${status.mounts.length - down} of ${status.mounts.length} mounts up · serving ${status.serving.join(', ')}
    </p>
    ${table('mounts', ['Mount', 'Plugin', 'Version', 'Isolation', 'State', ...ALL_LIST_KINDS.map((kind) => `${LIST_KINDS[kind].noun}s`)], rows)}`;
}

/** One mount's catalogue as clients are served it: tools with their schemas, prompts with their arguments, resources, templates. */
export function mountBody(runtime: HostRuntime, name: string): Html | undefined {
  const generation = runtime.current;
  const mount = generation.mounts.find((candidate) => candidate.name === name);
  if (!mount) return undefined;
  const sections = ALL_LIST_KINDS.map((kind) => {
    const items = generation.served(mount, kind);
    return html`<h2>${LIST_KINDS[kind].noun}s (${items.length})</h2>
      ${
        items.length === 0
          ? html`<p class="muted">none</p>`
          : html`<table class="${kind}">
              <tbody>
                ${items.map((item) => itemRow(kind, item))}
              </tbody>
            </table>`
      }`;
  });
  return html`<p>
      ${mount.spec.label} · <span class="${mount.state}">${mount.state}</span> · <a href="/admin">all mounts</a>
    </p>
    ${sections}`;
}

function itemRow(kind: ListKind, item: ListItem): Html {
  const detail = kind === 'tools' ? item.inputSchema : kind === 'prompts' ? item.arguments : undefined;
  return html`<tr>
    <td><code>${keyOf(kind, item)}</code></td>
    <td>
      ${typeof item.description === 'string' ? item.description : ''}
      ${
        detail !== undefined &&
        html`<details>
          <summary>${kind === 'tools' ? 'input schema' : 'arguments'}</summary>
          <pre>${JSON.stringify(detail, null, 2)}</pre>
        </details>`
      }
    </td>
  </tr>`;
}
