import type { ResolvedConfig } from '../config/types.js';
import { namedToken, tokensIn } from '../config/token-names.js';
import { isPlainObject } from '../plain-object.js';
import { escapeHtml } from './html.js';

/** Shorter than this, a "secret" is too likely to be an ordinary word of a page to blank out. */
const SHORTEST = 8;

/**
 * The secrets this host holds that a page could come to show through text
 * it does not control (a plugin's description, an upstream's error, a
 * refused reload's message): the static bearer tokens, and the value of
 * every environment variable the config names for a secret (`tokensEnv`,
 * `clientSecretEnv`, ...), whole and, for tokens, each of them.
 */
export function secretsOf(
  config: ResolvedConfig,
  bearerTokens: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  const found = new Set<string>();
  const add = (entry: string) => {
    found.add(entry);
    found.add(namedToken(entry).token);
  };
  bearerTokens.forEach(add);
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (isPlainObject(value)) {
      for (const [key, inner] of Object.entries(value)) {
        const named = key.endsWith('Env') && typeof inner === 'string' ? env[inner] : undefined;
        if (named !== undefined) [named, ...tokensIn(named)].forEach(add);
        else visit(inner);
      }
    }
  };
  visit(config);
  return [...found].filter((secret) => secret.length >= SHORTEST);
}

/** `html` with every secret (as it is, and as HTML escapes it) replaced by `[redacted]`. */
export function redacted(html: string, secrets: readonly string[]): string {
  let text = html;
  for (const secret of secrets) {
    text = text.replaceAll(secret, '[redacted]').replaceAll(escapeHtml(secret), '[redacted]');
  }
  return text;
}
