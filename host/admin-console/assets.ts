import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * What the console's pages load, all from this host (`default-src 'self'`):
 * htmx from the host's own node_modules, and the console's stylesheet and
 * script, written here. Nothing comes from the network at run time.
 */
export interface Asset {
  readonly type: string;
  readonly body: Buffer;
}

const STYLE = `
:root { color-scheme: light dark; --line: #8884; --muted: #888; --bad: #c0392b; --good: #1e8449; --warn: #b9770e; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; }
header { display: flex; gap: 1.2em; align-items: center; padding: .6em 1.2em; border-bottom: 1px solid var(--line); flex-wrap: wrap; }
header strong { margin-right: 1em; }
header nav { display: flex; gap: 1em; flex-wrap: wrap; }
header nav a[aria-current] { font-weight: 600; text-decoration: none; }
header form { margin-left: auto; }
.live { font-size: 12px; color: var(--muted); }
body[data-live='on'] .live::after { content: '\\25CF  live'; color: var(--good); }
body[data-live='off'] .live::after { content: 'reconnecting'; }
main { padding: 1em 1.2em; max-width: 80em; }
h1 { font-size: 1.3em; margin: .2em 0 .8em; }
h2 { font-size: 1.1em; margin: 1.4em 0 .4em; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .3em .6em; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; }
pre { margin: .2em 0; padding: .5em; background: #8881; overflow: auto; max-height: 24em; font-size: 12px; white-space: pre-wrap; overflow-wrap: anywhere; }
code { font-size: 12px; }
form.inline { display: inline; }
form.filters, form.stack { display: flex; gap: .6em; flex-wrap: wrap; align-items: end; margin-bottom: 1em; }
label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); gap: .2em; }
input, select, button { font: inherit; padding: .3em .5em; }
.up, .ok, .allow, .applied { color: var(--good); }
.down, .refused, .deny, .refuse, .error, .failed { color: var(--bad); }
.starting, .unchanged, .tool_error, .changed, .unpinned { color: var(--warn); }
.problem { color: var(--bad); }
.muted { color: var(--muted); }
.notice { padding: .6em; border: 1px solid var(--line); margin: 0 0 1em; }
`;

const SCRIPT = `// Live updates (/admin/events): when the host says something changed, a live page's main part is fetched again.
// The body's data-live says whether the stream is open (htmx swaps the body's content, never the body itself).
(function () {
  // Only a logged-in page (one with the navigation) follows the host: the login page has nothing live.
  if (!window.EventSource || !document.querySelector('header nav')) return;
  var events = new EventSource('/admin/events');
  events.addEventListener('open', function () { document.body.dataset.live = 'on'; });
  events.addEventListener('error', function () { document.body.dataset.live = 'off'; });
  events.addEventListener('change', function () {
    if (!document.querySelector('main[data-live]')) return;
    htmx.ajax('GET', location.pathname + location.search, { target: 'main', select: 'main', swap: 'outerHTML' });
  });
})();
`;

/** The tab's icon: asked for by every browser, and not worth a 404 in the console's log. */
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1e8449"/><path d="M4 12V4l4 5 4-5v8" stroke="#fff" stroke-width="2" fill="none"/></svg>`;

/** The assets by their path under /admin/assets/, loaded once, at the console's first start. */
export function consoleAssets(): Map<string, Asset> {
  const require = createRequire(import.meta.url);
  const htmx = readFileSync(require.resolve('htmx.org/dist/htmx.min.js'));
  return new Map([
    ['htmx.min.js', { type: 'text/javascript; charset=utf-8', body: htmx }],
    ['console.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(SCRIPT) }],
    ['favicon.svg', { type: 'image/svg+xml', body: Buffer.from(ICON) }],
    ['console.css', { type: 'text/css; charset=utf-8', body: Buffer.from(STYLE) }],
  ]);
}
