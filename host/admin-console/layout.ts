import { html, type Html, type Part } from './html.js';

/** The console's pages, in the order the navigation shows them. */
export const PAGES = [
  ['/admin', 'Mounts'],
  ['/admin/reloads', 'Reloads'],
  ['/admin/sessions', 'Sessions'],
  ['/admin/audit', 'Audit log'],
  ['/admin/explain', 'Access explain'],
  ['/admin/pins', 'Pins'],
] as const;

/**
 * htmx as the CSP allows it (no eval, no inline indicator style, no script
 * tags run from swapped HTML), and keeping no copy of a page in the
 * browser's localStorage (its history cache), where audit records and the
 * CSRF token would outlive the session: going back fetches the page again.
 */
const HTMX_CONFIG = JSON.stringify({
  includeIndicatorStyles: false,
  allowEval: false,
  allowScriptTags: false,
  historyCacheSize: 0,
  refreshOnHistoryMiss: true,
});

function head(title: string): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="htmx-config" content="${HTMX_CONFIG}" />
        <title>${title} · mcp-host admin</title>
        <link rel="icon" href="/admin/assets/favicon.svg" />
        <link rel="stylesheet" href="/admin/assets/console.css" />
        <script src="/admin/assets/htmx.min.js" defer></script>
        <script src="/admin/assets/console.js" defer></script>
      </head>
    </html>`;
}

export interface PageOptions {
  /** The path shown as current in the navigation. */
  current: string;
  /** The session's CSRF token, for the logout form. */
  csrf: string;
  /** Refetched when the host reports a change (/admin/events). */
  live?: boolean;
}

/**
 * A page of a logged-in admin. Links and forms are boosted by htmx (the
 * body is swapped, not the page reloaded), and work the same without
 * JavaScript.
 */
export function page(title: string, options: PageOptions, ...body: Part[]): Html {
  const nav = PAGES.map(
    ([href, label]) =>
      html`<a href="${href}" ${options.current === href ? html` aria-current="page"` : ''}>${label}</a>`,
  );
  return html`${head(title)}
<body hx-boost="true">
<header>
<strong>mcp-host admin</strong>
<nav>${nav}</nav>
<span id="live" class="live"></span>
<form class="inline" method="post" action="/admin/logout" hx-boost="false"><input type="hidden" name="_csrf" value="${options.csrf}"><button>Log out</button></form>
</header>
<main${options.live ? html` data-live` : ''}>
<h1>${title}</h1>
${body}
</main>
</body>
</html>
`;
}

/** The login page: the only page shown to a browser without a session. */
export function loginPage(problem?: string): Html {
  return html`${head('Log in')}
<body>
<header><strong>mcp-host admin</strong></header>
<main>
<h1>Log in</h1>
${problem && html`<p class="problem" role="alert">${problem}</p>`}
<form class="stack" method="post" action="/admin/login">
<label>Admin token <input type="password" name="token" autocomplete="off" required autofocus></label>
<button>Log in</button>
</form>
<p class="muted">An admin token (http.admin.tokens) or an OAuth access token with the admin scope (http.admin.scope). It is kept in this host's memory for the session, never in the browser: the browser holds only a session cookie.</p>
</main>
</body>
</html>
`;
}
