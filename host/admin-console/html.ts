/**
 * HTML built from templates whose every interpolated value is escaped,
 * unless it is itself HTML made here: a plugin's tool description, a
 * config path or an audit record's identity can never become markup in
 * the admin's browser.
 */
export class Html {
  constructor(readonly text: string) {}
}

export type Part = Html | string | number | boolean | undefined | null | readonly Part[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]!);
}

function render(part: Part): string {
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  // false, undefined and null render nothing, so `cond && html\`…\`` reads as it means.
  if (part === undefined || part === null || part === false) return '';
  return escapeHtml(String(part as string | number | true));
}

/** A template of HTML: `html\`<td>${name}</td>\``. */
export function html(strings: TemplateStringsArray, ...parts: Part[]): Html {
  let text = strings[0]!;
  for (let i = 0; i < parts.length; i++) text += render(parts[i]!) + strings[i + 1]!;
  return new Html(text);
}

/** A table of the console's pages: its id (the tests and the stylesheet find it by it), column heads and rows. */
export function table(id: string, heads: readonly Part[], rows: Part): Html {
  return html`<table id="${id}">
    <thead>
      <tr>
        ${heads.map((head) => html`<th>${head}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${rows}
    </tbody>
  </table>`;
}
