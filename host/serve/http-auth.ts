import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { resolve } from 'node:path';
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
import { readSecretFile } from '../secret-file.js';
import { authInfoFor } from '../vocabulary/identity.js';
import { namedToken, tokenId, tokensIn } from '../config/token-names.js';

/** The tokens named by an environment variable, comma-separated (empty entries ignored); the variable is withheld from plugins. */
export function tokensFromEnv(name = TOKENS_ENV): string[] {
  return tokensIn(takeSecretEnv(name) ?? '');
}

/** The bearer tokens `/mcp` accepts, and where they came from (for messages that must not show them). */
export interface BearerTokens {
  tokens: string[];
  source: string;
}

/** The shortest token accepted: anything shorter could be guessed. */
export const MIN_TOKEN_LENGTH = 16;

const MAKE_A_TOKEN = 'make one with `openssl rand -hex 32`';

/**
 * The tokens the config's `http.auth` and the environment give, refusing
 * every way auth could be silently weaker than the operator meant: a token
 * variable that is set but holds no token, a token shorter than
 * MIN_TOKEN_LENGTH, auth asked for with no token, and an endpoint bound
 * beyond loopback with no token unless `http.auth: 'none'` says so.
 *
 * The variable is removed from `env` once read, so plugin code running in
 * the host's process cannot read the host's secrets from it; `tokensFile`
 * (relative to `configDir`) keeps them out of the environment altogether.
 */
export function bearerTokensOf(
  auth: HttpAuthConfig | 'none' | undefined,
  bind: { host: string; loopback: boolean },
  where: string,
  configDir: string,
): BearerTokens {
  const name = (auth !== 'none' && auth?.tokensEnv) || TOKENS_ENV;
  const isSet = takeSecretEnv(name) !== undefined;
  const fromEnv = tokensFromEnv(name);
  const refuse = (what: string, fix: string): never => {
    throw new HostError({ where, what, fix });
  };
  if (auth === 'none') {
    if (isSet) {
      refuse(
        `is 'none' (no auth), but ${name} is set in the environment.`,
        `remove http.auth: 'none' to require those tokens, or unset ${name}.`,
      );
    }
    return { tokens: [], source: name };
  }
  if (isSet && fromEnv.length === 0) {
    refuse(
      `${name} is set but holds no token (it is empty or only commas and spaces), so the endpoint would be served open.`,
      `put one or more comma-separated tokens in ${name} (${MAKE_A_TOKEN}), or unset it.`,
    );
  }
  const listed = auth?.tokens ?? [];
  const fromFile = auth?.tokensFile === undefined ? [] : tokensFromFile(resolve(configDir, auth.tokensFile), where);
  const tokens = [...listed, ...fromFile, ...fromEnv];
  const sources = [
    listed.length > 0 && 'http.auth.tokens',
    auth?.tokensFile !== undefined && 'http.auth.tokensFile',
    name,
  ];
  const source = sources.filter(Boolean).join(' and ');
  if (tokens.some((entry) => namedToken(entry).token.length < MIN_TOKEN_LENGTH)) {
    refuse(
      `a token in ${source} is shorter than ${MIN_TOKEN_LENGTH} characters, short enough to guess.`,
      `use tokens of at least ${MIN_TOKEN_LENGTH} characters (${MAKE_A_TOKEN}).`,
    );
  }
  if (auth && tokens.length === 0) {
    refuse(
      `asks for bearer-token auth, but there is no token: ${auth.tokens ? 'http.auth.tokens is empty and ' : ''}${name} is unset or empty.`,
      `set ${name} to one or more comma-separated tokens in the host's environment, or name a file holding them in http.auth.tokensFile.`,
    );
  }
  if (tokens.length === 0 && !bind.loopback) {
    refuse(
      `the endpoint would be bound to ${bind.host}, reachable beyond this machine, with no auth.`,
      `set ${name} to a token (${MAKE_A_TOKEN}), or set http.auth: 'none' in the config if an authenticating proxy guards it, or bind 127.0.0.1.`,
    );
  }
  return { tokens, source };
}

/** The tokens in an `http.auth.tokensFile`: one that holds none is refused, as an empty variable is. */
function tokensFromFile(file: string, where: string): string[] {
  const tokens = tokensIn(readSecretFile(file, where, 'bearer tokens (http.auth.tokensFile)'));
  if (tokens.length === 0) {
    throw new HostError({
      where,
      what: `http.auth.tokensFile ${file} holds no token (it is empty or only commas, spaces and line ends), so the endpoint would be served open.`,
      fix: `put one or more tokens in it, one a line (${MAKE_A_TOKEN}), or remove tokensFile.`,
    });
  }
  return tokens;
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
 * token is the host's business only: it is never passed on to plugins. What
 * is passed on, as `clientId`, is which token it was (`token-1c9e05a2`, the
 * same on every replica whatever the order of its token list): a session
 * belongs to the token that opened it.
 */
export function bearerGate(
  tokens: readonly string[],
  source = TOKENS_ENV,
): (req: IncomingMessage) => Promise<{ challenge: Response } | { authInfo: AuthInfo }> {
  const named = tokens.map(namedToken);
  const accepted = named.map(({ token }) => digest(token));
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
      const { name } = named[match]!;
      return Promise.resolve(
        authInfoFor(
          { kind: 'token', name, tokenName: name, claims: {}, scopes: [] },
          { token, clientId: tokenId(named[match]!.token), scopes: [], expiresAt: Number.MAX_SAFE_INTEGER },
        ),
      );
    },
  };
  return async (req) => {
    try {
      return { authInfo: await verifyBearerToken(req.headers.authorization, { verifier }) };
    } catch (error) {
      return { challenge: bearerAuthChallengeResponse(error) };
    }
  };
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
