import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Reloader } from '../reload/reloader.js';
import type { HostRuntime } from '../runtime.js';
import type { AdminRoute } from '../serve/admin-route.js';
import type { AdminCredential } from '../serve/admin-credential.js';
import { consoleAssets, type Asset } from './assets.js';
import { auditBody } from './audit-tail.js';
import { ConsoleSessions, csrfMatches, sessionCookie, type ConsoleSession } from './console-sessions.js';
import { explainBody } from './explain-form.js';
import { html, type Html } from './html.js';
import { loginPage, page } from './layout.js';
import { LiveUpdates } from './live-updates.js';
import { mountBody, mountsBody } from './mount-pages.js';
import { pinsBody } from './pins-page.js';
import { ReloadHistory } from './reload-history.js';
import { sessionsBody } from './sessions-page.js';
import { redacted, secretsOf } from './secrets.js';

/** Whether an `Authorization` header carries an admin credential (http.admin), and if not, the answer to give. */
type Judged =
  { admitted: true; who: string } | { admitted: false; status: number; message: string; challenge?: string };

/** The largest form the console reads: a token and a CSRF field. */
const MAX_FORM_BYTES = 16 * 1024;

/**
 * Every console answer's headers: nothing but this host's own scripts and
 * styles run (no inline script, no eval), the console is never framed, and
 * no answer is cached or leaks its URL to another site.
 */
const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // Not no-referrer: under it a browser sends a form's Origin as "null", and the POST could not be told from a forgery.
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

/**
 * The admin console at `/admin` (docs/admins.md): server-rendered pages of
 * what the host serves, its reloads, sessions, audit log, access rules and
 * pins, with htmx for the actions and live updates. Only an admin
 * credential (`http.admin`) admits: the login form takes it once, and the
 * browser then holds an HttpOnly, SameSite=Strict session cookie; every
 * POST carries the session's CSRF token and must come from this origin.
 * Its actions call the code the CLI does: the reloader that `mcp-host
 * reload` reaches, `access explain`'s and `pin --diff`'s own functions.
 */
export class AdminConsole implements AdminRoute {
  private readonly sessions = new ConsoleSessions();
  private readonly history: ReloadHistory;
  private readonly live: LiveUpdates;
  private readonly assets: Map<string, Asset> = consoleAssets();

  /**
   * `bearerTokens`: the static tokens the HTTP endpoint accepts, never shown
   * (a page that would show one shows `[redacted]`, as it does every secret
   * the config names).
   */
  constructor(
    private readonly runtime: HostRuntime,
    private readonly reloader: Reloader,
    private readonly bearerTokens: readonly string[],
  ) {
    this.history = new ReloadHistory(runtime, reloader);
    this.live = new LiveUpdates(runtime, reloader);
  }

  /** End the live-update streams, so that the HTTP server closes without waiting for them. */
  close(): void {
    this.live.close();
  }

  async handle(req: IncomingMessage, res: ServerResponse, path: string, credential: AdminCredential): Promise<void> {
    const judge = (authorization: string | undefined) => judged(credential, authorization, path);
    const url = new URL(req.url ?? path, 'http://admin.invalid');
    const method = req.method ?? 'GET';
    const asset = path.startsWith('/admin/assets/') ? this.assets.get(path.slice('/admin/assets/'.length)) : undefined;
    // The stylesheet and the scripts hold nothing of the host's: the login page needs them before any credential.
    if (asset && method === 'GET') return send(res, 200, asset.type, asset.body);
    if (path === '/admin/login')
      return method === 'POST' ? this.login(req, res, judge) : this.sendPage(res, 200, loginPage());
    const session = await this.sessionOf(req, res, judge);
    if (!session) return;
    if (method === 'POST') {
      const form = await this.checkedForm(req, res, session);
      if (!form) return;
      if (path === '/admin/logout') {
        this.sessions.end(session);
        this.runtime.logger.info(`admin console: ${session.who} logged out`);
        return redirect(res, '/admin/login', sessionCookie(undefined));
      }
      if (path === '/admin/reload') {
        this.runtime.logger.info(`admin console: ${session.who} asked for a reload`);
        await this.reloader.reload('admin console');
        return redirect(res, '/admin/reloads');
      }
      return this.sendPage(res, 404, this.notFound(path, session), session);
    }
    if (method !== 'GET')
      return send(res, 405, 'text/plain; charset=utf-8', `${method} is not served at ${path}\n`, {
        allow: 'GET, POST',
      });
    if (path === '/admin/events') {
      if (!this.live.open(res, SECURITY_HEADERS))
        send(res, 503, 'text/plain; charset=utf-8', 'too many consoles are open on this host; close one\n');
      return;
    }
    const body = await this.pageOf(path, url.searchParams, session);
    return this.sendPage(res, body ? 200 : 404, body ?? this.notFound(path, session), session);
  }

  private async pageOf(path: string, query: URLSearchParams, session: ConsoleSession): Promise<Html | undefined> {
    const at = (current: string, live = true) => ({ current, csrf: session.csrf, live });
    const params = Object.fromEntries(query) as Record<string, string>;
    switch (path) {
      case '/admin':
      case '/admin/':
        return page('Mounts', at('/admin'), mountsBody(this.runtime));
      case '/admin/reloads':
        return page('Reloads', at('/admin/reloads'), this.history.body(session.csrf));
      case '/admin/sessions':
        return page('Sessions', at('/admin/sessions'), sessionsBody(this.runtime));
      case '/admin/audit':
        return page('Audit log', at('/admin/audit'), await auditBody(this.runtime.current.config, params));
      case '/admin/explain':
        // Not live: a change would wipe what the admin is typing.
        return page('Access explain', at('/admin/explain', false), explainBody(this.runtime, params));
      case '/admin/pins':
        return page('Pins and drift', at('/admin/pins'), await pinsBody(this.runtime));
    }
    if (path.startsWith('/admin/mounts/')) {
      // A name that is not even percent-encoded well names no mount.
      const name = decodedOrUndefined(path.slice('/admin/mounts/'.length));
      const body = name === undefined ? undefined : mountBody(this.runtime, name);
      return body && page(`Mount ${name}`, at('/admin'), body);
    }
    return undefined;
  }

  /** A page, every secret the host holds (and the session's own credential) blanked out of it. */
  private sendPage(
    res: ServerResponse,
    status: number,
    body: Html,
    session?: ConsoleSession,
    headers: Record<string, string> = {},
  ): void {
    const secrets = secretsOf(this.runtime.current.config, this.bearerTokens);
    if (session) secrets.push(session.authorization.replace(/^Bearer\s+/i, ''));
    send(res, status, 'text/html; charset=utf-8', redacted(body.text, secrets), headers);
  }

  private notFound(path: string, session: ConsoleSession): Html {
    return page('Not found', { current: '', csrf: session.csrf }, html`<p>The console has no page at ${path}.</p>`);
  }

  /**
   * The session a request belongs to, its credential checked again (a token
   * taken out of the config ends it); or, for a request carrying an admin
   * credential itself (a proxy in front that adds it), a new one. Without
   * either the answer is given here: the login page, with the refusal's
   * status.
   */
  private async sessionOf(
    req: IncomingMessage,
    res: ServerResponse,
    judge: (authorization: string | undefined) => Promise<Judged>,
  ): Promise<ConsoleSession | undefined> {
    const found = this.sessions.find(req.headers.cookie);
    const authorization = found?.authorization ?? req.headers.authorization;
    const verdict = await judge(authorization);
    if (verdict.admitted) {
      if (found) return found;
      const opened = this.sessions.open(authorization!, verdict.who);
      res.setHeader('set-cookie', sessionCookie(opened));
      return opened;
    }
    if (found) this.sessions.end(found);
    const message = authorization === undefined ? undefined : verdict.message;
    // A client that sent a token (not a browser's form) reads why in the challenge, as on /mcp.
    const headers: Record<string, string> =
      verdict.challenge === undefined ? {} : { 'www-authenticate': verdict.challenge };
    if (req.method === 'GET')
      this.sendPage(res, verdict.status, loginPage(message), undefined, {
        ...headers,
        ...(found && { 'set-cookie': sessionCookie(undefined) }),
      });
    else {
      const why = message ?? 'no admin credential: log in at /admin/login, or send Authorization: Bearer <admin token>';
      send(res, verdict.status, 'text/plain; charset=utf-8', `${why}\n`, headers);
    }
    return undefined;
  }

  private async login(
    req: IncomingMessage,
    res: ServerResponse,
    judge: (authorization: string | undefined) => Promise<Judged>,
  ): Promise<void> {
    const form = await this.sameOriginForm(req, res);
    if (!form) return;
    const token = form.get('token')?.trim() ?? '';
    const verdict = await judge(token === '' ? undefined : `Bearer ${token}`);
    if (!verdict.admitted) return this.sendPage(res, verdict.status, loginPage(verdict.message));
    this.runtime.logger.info(`admin console: ${verdict.who} logged in`);
    redirect(res, '/admin', sessionCookie(this.sessions.open(`Bearer ${token}`, verdict.who)));
  }

  /** A POST's form, once it is known to come from this origin with the session's CSRF token. */
  private async checkedForm(
    req: IncomingMessage,
    res: ServerResponse,
    session: ConsoleSession,
  ): Promise<URLSearchParams | undefined> {
    const form = await this.sameOriginForm(req, res);
    if (!form) return undefined;
    if (csrfMatches(session, form.get('_csrf') ?? undefined)) return form;
    send(
      res,
      403,
      'text/plain; charset=utf-8',
      "Forbidden: the form's CSRF token is missing or not this session's; reload the console's page and try again\n",
    );
    return undefined;
  }

  /**
   * A POST's urlencoded form, refused (403) when the browser says it comes
   * from another site: its Origin is not this host's, or Sec-Fetch-Site is
   * not same-origin. A client that sends neither is no browser, and so no
   * forgery: it still needs the CSRF token (or, to log in, the token itself).
   */
  private async sameOriginForm(req: IncomingMessage, res: ServerResponse): Promise<URLSearchParams | undefined> {
    const origin = req.headers.origin;
    const site = req.headers['sec-fetch-site'];
    const own = `http://${req.headers.host}`;
    if ((origin !== undefined && origin !== own) || (site !== undefined && site !== 'same-origin')) {
      send(
        res,
        403,
        'text/plain; charset=utf-8',
        `Forbidden: a cross-site POST to the admin console (Origin ${origin ?? 'none'}, Sec-Fetch-Site ${String(site ?? 'none')}); use the console's own pages\n`,
      );
      return undefined;
    }
    let text = '';
    for await (const chunk of req as AsyncIterable<Buffer>) {
      text += chunk.toString('utf8');
      if (text.length > MAX_FORM_BYTES) {
        send(res, 413, 'text/plain; charset=utf-8', `the form is over ${MAX_FORM_BYTES} bytes\n`);
        req.socket.destroySoon();
        return undefined;
      }
    }
    return new URLSearchParams(text);
  }
}

function decodedOrUndefined(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    ...headers,
    'content-type': type,
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

/**
 * The admin credential's verdict on an `Authorization` header: the session's
 * stored one, a login form's token, or a request's own. The credential
 * judges a request by its header alone (as the gate of /mcp does).
 */
async function judged(credential: AdminCredential, authorization: string | undefined, path: string): Promise<Judged> {
  const request = { headers: authorization === undefined ? {} : { authorization } } as IncomingMessage;
  const verdict = await credential.admit(request, path);
  if ('admin' in verdict) return { admitted: true, who: `${verdict.admin.kind} ${verdict.admin.name}` };
  const { refused } = verdict;
  const body = (await refused.json().catch(() => ({}))) as { error_description?: string; message?: string };
  const challenge = refused.headers.get('www-authenticate') ?? undefined;
  return {
    admitted: false,
    status: refused.status,
    message: body.error_description ?? body.message ?? `refused (${refused.status})`,
    ...(challenge !== undefined && { challenge }),
  };
}

/** After a POST, the page to show next (so a browser's reload never repeats the action). */
function redirect(res: ServerResponse, location: string, cookie?: string): void {
  res.writeHead(303, { ...SECURITY_HEADERS, location, 'content-length': 0, ...(cookie && { 'set-cookie': cookie }) });
  res.end();
}
