import { explainItems, identityOf, itemName, type ExplainedIdentity } from '../commands/access-explain.js';
import type { HostRuntime } from '../runtime.js';
import { html, type Html } from './html.js';

/** The form's fields, as its query string sends them. */
export type ExplainQuery = Partial<
  Record<'sub' | 'clientId' | 'scope' | 'groups' | 'roles' | 'token' | 'stdio' | 'tool', string>
>;

/** The identity the form describes, as `mcp-host access explain`'s flags would (lists are comma-separated). */
function whoOf(query: ExplainQuery): ExplainedIdentity {
  const list = (value: string | undefined) =>
    value
      ?.split(',')
      .map((part) => part.trim())
      .filter(Boolean);
  const given = (value: string | undefined) => (value === undefined || value.trim() === '' ? undefined : value.trim());
  const groups = list(query.groups);
  const roles = list(query.roles);
  return {
    ...(given(query.sub) && { sub: given(query.sub) }),
    ...(given(query.clientId) && { clientId: given(query.clientId) }),
    ...(given(query.scope) && { scope: given(query.scope) }),
    ...(groups?.length && { groups }),
    ...(roles?.length && { roles }),
    ...(given(query.token) && { token: given(query.token) }),
    ...(query.stdio === 'on' && { stdio: true }),
  };
}

/**
 * `mcp-host access explain` as a form: an identity and a tool (or nothing,
 * for everything), judged by the live generation's rules with the same
 * code as the command. A GET: it reads, it changes nothing.
 */
export function explainBody(runtime: HostRuntime, query: ExplainQuery): Html {
  const field = (name: keyof ExplainQuery, label: string, hint: string) =>
    html`<label>${label} <input name="${name}" value="${query[name] ?? ''}" placeholder="${hint}" /></label>`;
  const form = html`<form class="filters" method="get" action="/admin/explain">
    ${field('sub', 'Subject (sub)', 'alice')}${field('clientId', 'Client (client_id)', 'ci-bot')}${field('scope', 'Scope', 'notes mcp')}
    ${field('groups', 'Groups', 'admins, ops')}${field('roles', 'Roles', 'reader')}${field('token', 'Static token name', 'ci')}
    <label>stdio client <input type="checkbox" name="stdio" ${query.stdio === 'on' ? html` checked` : ''} /></label>
    ${field('tool', 'Tool', 'notes.add (empty: every item)')}
    <button>Explain</button>
  </form>`;
  const asked = Object.values(query).some((value) => value !== undefined && value !== '');
  if (!asked) return form;
  const { head, items } = explainItems(runtime.current, identityOf(whoOf(query)));
  const tool = query.tool?.trim();
  const shown = tool ? items.filter((item) => item.kind === 'tools' && item.key === tool) : items;
  const verdicts =
    shown.length === 0
      ? html`<p class="problem">no tool named "${tool}" is served (see the mounts for what is)</p>`
      : html`<table id="verdicts">
          <tbody>
            ${shown.map(
              (item) =>
                html`<tr>
                  <td><code>${itemName(item)}</code></td>
                  <td class="${item.seen ? 'allow' : 'deny'}">${item.seen ? 'sees' : 'denied'}</td>
                  <td>${item.why ?? ''}</td>
                </tr>`,
            )}
          </tbody>
        </table>`;
  return html`${form}
    <section id="explained">${head.map((line) => html`<p>${line}</p>`)}${verdicts}</section>`;
}
