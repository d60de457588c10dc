import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import {
  OAuthError,
  OAuthErrorCode,
  bearerAuthChallengeResponse,
  verifyBearerToken,
  type AuthInfo,
} from '@modelcontextprotocol/server';
import type { HttpAuthConfig } from '../config/types.js';
import { HostError } from '../errors.js';
import { TOKENS_ENV, takeSecretEnv } from '../secret-env.js';

/** The tokens named by an environment variable, comma-separated (empty entries ignored); the variable is withheld from plugins. */
export function tokensFromEnv(name = TOKENS_ENV): string[] {
  return (takeSecretEnv(name) ?? '')
    .split(',')
    .map((token) => token.trim())
    .filter((token) => token.length > 0);
}

/** The bearer tokens `/mcp` accepts, and where they came from (for messages that must not show them). */
export interface BearerTokens {
  tokens: string[];
  source: string;
}

/**
 * The tokens the config's `http.auth` and the environment give. With no
 * `http.auth`, MCP_HOST_HTTP_TOKENS alone decides (none: no auth). With it,
 * auth was asked for, so finding no token is an error: serving the endpoint
 * open because a variable was not exported would be the wrong way to fail.
 */
export function bearerTokensOf(auth: HttpAuthConfig | undefined, where: string): BearerTokens {
  const name = auth?.tokensEnv ?? TOKENS_ENV;
  const listed = auth?.tokens ?? [];
  const tokens = [...listed, ...tokensFromEnv(name)];
  const source = listed.length > 0 ? `http.auth.tokens and ${name}` : name;
  if (auth && tokens.length === 0) {
    throw new HostError({
      where,
      what: `asks for bearer-token auth, but there is no token: ${auth.tokens ? 'http.auth.tokens is empty and ' : ''}${name} is unset or empty.`,
      fix: `set ${name} to one or more comma-separated tokens in the host's environment, or list them in http.auth.tokens.`,
    });
  }
  return { tokens, source };
}

/**
 * Optional bearer-token auth for `/mcp`: a request must carry
 * `Authorization: Bearer <one of the tokens>`, or it is answered 401 with a
 * `WWW-Authenticate` challenge (the SDK's parsing and challenge, so clients
 * see the standard shape).
 *
 * The token is checked before the body is read, and compared in constant
 * time against every accepted token (digests of equal length, no early
 * exit), so neither timing nor length tells a caller how close it came. The
 * token is the host's business only: it is never passed on to plugins.
 */
export function bearerGate(
  tokens: readonly string[],
  source = TOKENS_ENV,
): (req: IncomingMessage) => Promise<Response | undefined> {
  const accepted = tokens.map(digest);
  const verifier = {
    verifyAccessToken(token: string): Promise<AuthInfo> {
      const offered = digest(token);
      let match = -1;
      accepted.forEach((candidate, index) => {
        if (timingSafeEqual(candidate, offered) && match < 0) match = index;
      });
      if (match < 0) {
        return Promise.reject(
          new OAuthError(
            OAuthErrorCode.InvalidToken,
            `the bearer token is not one this mcp-host accepts (its tokens come from ${source})`,
          ),
        );
      }
      // Static tokens do not expire, but the SDK's check requires an expiry.
      return Promise.resolve({
        token,
        clientId: `token-${match + 1}`,
        scopes: [],
        expiresAt: Number.MAX_SAFE_INTEGER,
      });
    },
  };
  return async (req) => {
    try {
      await verifyBearerToken(req.headers.authorization, { verifier });
      return undefined;
    } catch (error) {
      return bearerAuthChallengeResponse(error);
    }
  };
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
