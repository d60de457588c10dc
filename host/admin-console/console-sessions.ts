import { randomBytes, timingSafeEqual } from 'node:crypto';

/** The console's cookie: its value is a session's id, which only this host's memory maps to anything. */
export const SESSION_COOKIE = 'mcp_host_admin';
/** A session unused this long is ended; the admin logs in again. */
const IDLE_MS = 30 * 60_000;
/** However busy, a session ends after this long: a stolen cookie is not good forever. */
const LIFETIME_MS = 12 * 60 * 60_000;
/** At most this many sessions are held: logging in past it ends the oldest. */
const MAX_SESSIONS = 100;

/** One logged-in admin's console session. */
export interface ConsoleSession {
  readonly id: string;
  /** The credential the admin logged in with, held in memory only: each request checks it again, so a token removed from the config (or expired) ends the session at its next request. Never rendered. */
  readonly authorization: string;
  /** Who logged in, as the credential names them (a token's name, a subject): for the host's log. */
  readonly who: string;
  /** Sent back with every POST (a form field): a page of another site cannot read it, so cannot forge an action. */
  readonly csrf: string;
  readonly created: number;
  lastSeen: number;
}

/**
 * The console's logged-in sessions, in this process's memory: a restart
 * logs every admin out, and a replica knows only the sessions opened on
 * it (the console is per host, as `mcp-host status` is).
 */
export class ConsoleSessions {
  private readonly sessions = new Map<string, ConsoleSession>();

  open(authorization: string, who: string, now = Date.now()): ConsoleSession {
    if (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
    const session = {
      id: randomBytes(32).toString('base64url'),
      authorization,
      who,
      csrf: randomBytes(32).toString('base64url'),
      created: now,
      lastSeen: now,
    };
    this.sessions.set(session.id, session);
    return session;
  }

  /** The live session a request's cookie names, if any (an expired one is ended here). */
  find(cookieHeader: string | undefined, now = Date.now()): ConsoleSession | undefined {
    const id = cookieOf(cookieHeader, SESSION_COOKIE);
    const session = id === undefined ? undefined : this.sessions.get(id);
    if (!session) return undefined;
    if (now - session.lastSeen > IDLE_MS || now - session.created > LIFETIME_MS) {
      this.sessions.delete(session.id);
      return undefined;
    }
    session.lastSeen = now;
    return session;
  }

  end(session: ConsoleSession): void {
    this.sessions.delete(session.id);
  }
}

/** Whether a form's CSRF field is the session's token (compared in constant time). */
export function csrfMatches(session: ConsoleSession, sent: string | undefined): boolean {
  if (sent === undefined) return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(session.csrf);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The Set-Cookie value of a session: unreadable by scripts, never sent by another site's page. */
export function sessionCookie(session: ConsoleSession | undefined): string {
  const value = session ? session.id : '';
  const expiry = session ? '' : '; Max-Age=0';
  return `${SESSION_COOKIE}=${value}; Path=/admin; HttpOnly; SameSite=Strict${expiry}`;
}

function cookieOf(header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}
