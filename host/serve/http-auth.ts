import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import {
  OAuthError,
  OAuthErrorCode,
  bearerAuthChallengeResponse,
  verifyBearerToken,
  type AuthInfo,
} from '@modelcontextprotocol/server';

/** The environment variable holding the accepted bearer tokens, comma-separated. */
export const TOKENS_ENV = 'MCP_HOST_HTTP_TOKENS';

/** The tokens named by `MCP_HOST_HTTP_TOKENS` (empty entries ignored). */
export function tokensFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env[TOKENS_ENV] ?? '')
    .split(',')
    .map((token) => token.trim())
    .filter((token) => token.length > 0);
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
export function bearerGate(tokens: readonly string[]): (req: IncomingMessage) => Promise<Response | undefined> {
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
            `the bearer token is not one this mcp-host accepts (its tokens come from ${TOKENS_ENV})`,
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
