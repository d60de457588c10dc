import type { IncomingMessage } from 'node:http';
import { OAuthError, OAuthErrorCode, bearerAuthChallengeResponse } from '@modelcontextprotocol/server';
import type { AdminSettings } from '../config/admin-settings.js';
import { identityOf, type Identity } from '../vocabulary/identity.js';
import { auditRefusal } from './audit-refusal.js';
import type { BearerGate } from './oauth-resource-server.js';

/** What an admin endpoint answers a request with: a refusal to send back, or the admin it is. */
export type AdminVerdict = { refused: Response } | { admin: Identity };

/**
 * The admin credential in front of `/metrics` and `/admin` (DESIGN.md,
 * "Admin console and metrics"): a request is an admin's when it carries a
 * bearer token the host accepts (the same gate as `/mcp`: static tokens,
 * then OAuth access tokens) AND that token is one `http.admin` names, or an
 * OAuth token carrying the admin scope. Loopback alone never admits.
 *
 * - no configured admin credential at all: 503, saying what to configure;
 * - no token, or one the host does not accept: the gate's own 401 with its
 *   `WWW-Authenticate` challenge;
 * - a valid identity that is not an admin's: 403 `insufficient_scope`, the
 *   SDK's challenge, naming what would admit it.
 */
export class AdminCredential {
  constructor(
    private readonly settings: AdminSettings | undefined,
    private readonly gate: BearerGate | undefined,
  ) {}

  async admit(req: IncomingMessage, path: string): Promise<AdminVerdict> {
    const { settings, gate } = this;
    if (!settings || !gate) {
      auditRefusal(path, 503, 'http.admin');
      return {
        refused: Response.json(
          {
            error: 'not_configured',
            message: `${path} needs an admin credential, and this mcp-host has none: set http.admin in the config (tokens: names of http.auth tokens, or scope: an OAuth scope)`,
          },
          { status: 503 },
        ),
      };
    }
    const verdict = await gate(req);
    if ('challenge' in verdict) {
      auditRefusal(path, verdict.challenge.status, 'http.admin');
      return { refused: verdict.challenge };
    }
    const identity = identityOf({ http: { authInfo: verdict.authInfo } });
    if (isAdmin(identity, settings)) return { admin: identity };
    auditRefusal(path, 403, 'http.admin');
    const what = [
      settings.tokens.length > 0 && `a token named in http.admin.tokens (${settings.tokens.join(', ')})`,
      settings.scope !== undefined && `an access token with the scope "${settings.scope}"`,
    ].filter(Boolean);
    return {
      refused: bearerAuthChallengeResponse(
        new OAuthError(
          OAuthErrorCode.InsufficientScope,
          `${identity.kind} "${identity.name}" is not an admin of this mcp-host: ${path} needs ${what.join(' or ')}`,
        ),
        settings.scope === undefined ? {} : { requiredScopes: [settings.scope] },
      ),
    };
  }
}

function isAdmin(identity: Identity, settings: AdminSettings): boolean {
  // A static token's identity is named for the token (http-auth.ts): its name is the one http.admin.tokens lists.
  if (identity.kind === 'token') return settings.tokens.includes(identity.name);
  return settings.scope !== undefined && identity.scopes.includes(settings.scope);
}
