/**
 * A `url` entry's `auth`: how the host gets an OAuth token of its own for an
 * upstream that requires one (docs/upstream-auth.md). Exactly one mode:
 *
 *   auth: { clientCredentials: { clientId: 'mcp-host', clientSecretEnv: 'GITHUB_MCP_SECRET' } }
 *   auth: { tokenExchange: { clientId: 'mcp-host', privateKeyFile: './keys/mcp-host.pem', issuer: 'https://auth.example.com' } }
 *
 * A client's credential is a secret and the config file is often committed,
 * so it never stands in the config text: it comes from the environment or a
 * file, and an inline one is refused naming where to move it. Token
 * exchange sends each caller's own token to the authorization server, so it
 * names that server (`issuer`) rather than trusting the upstream to.
 */
import type { Problem } from '../errors.js';
import { isPlainObject } from '../plain-object.js';
import { describeValue, quotedChoices, unknownKeyProblem } from './problem-wording.js';
import type { TokenExchangeConfig, UpstreamAuthConfig } from './types.js';

const MODES: readonly (keyof UpstreamAuthConfig)[] = ['clientCredentials', 'tokenExchange'];
/** Where a client's credential may come from: one of these, never the text itself. */
const CREDENTIAL_SOURCES = ['clientSecretEnv', 'clientSecretFile', 'privateKeyFile'] as const;
/** The JWS algorithms a private_key_jwt assertion may be signed with (those jose imports from a PKCS#8 PEM). */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'];
/** Keys people write for an inline credential, each refused with where it belongs instead. */
const INLINE_SECRETS: Record<string, string> = {
  clientSecret:
    'clientSecretEnv: "UPSTREAM_CLIENT_SECRET" (or clientSecretFile: "/run/secrets/upstream-client-secret")',
  secret: 'clientSecretEnv: "UPSTREAM_CLIENT_SECRET" (or clientSecretFile: "/run/secrets/upstream-client-secret")',
  privateKey: 'privateKeyFile: "./keys/upstream-client.pem"',
};

type Where = (path: string) => string;

/** Every problem of an entry's `auth` at `path`. */
export function upstreamAuthProblems(value: unknown, path: string, where: Where): Problem[] {
  const example = '{ clientCredentials: { clientId: "mcp-host", clientSecretEnv: "UPSTREAM_CLIENT_SECRET" } }';
  if (!isPlainObject(value)) {
    return [
      { where: where(path), what: `expected an object, got ${describeValue(value)}.`, fix: `e.g. auth: ${example}.` },
    ];
  }
  const problems: Problem[] = [];
  const modes = Object.keys(value).filter((key) => value[key] !== undefined);
  for (const key of modes) {
    if (!(MODES as readonly string[]).includes(key))
      problems.push(unknownKeyProblem(where(`${path}.${key}`), key, MODES));
  }
  const named = modes.filter((key) => (MODES as readonly string[]).includes(key));
  if (named.length !== 1) {
    problems.push({
      where: where(path),
      what: `${named.length === 0 ? 'names no mode' : `names ${quotedChoices(named, 'and')}`}: expected exactly one of ${quotedChoices(MODES)}.`,
      fix: `e.g. auth: ${example}.`,
    });
  }
  for (const mode of named) problems.push(...clientProblems(value[mode], `${path}.${mode}`, mode, where));
  return problems;
}

function clientProblems(value: unknown, path: string, mode: string, where: Where): Problem[] {
  const example = `{ clientId: "mcp-host", clientSecretEnv: "UPSTREAM_CLIENT_SECRET" }`;
  if (!isPlainObject(value)) {
    return [
      {
        where: where(path),
        what: `expected an object, got ${describeValue(value)}.`,
        fix: `e.g. ${mode}: ${example}.`,
      },
    ];
  }
  const problems: Problem[] = [];
  const add = (key: string, what: string, fix: string) => problems.push({ where: where(`${path}.${key}`), what, fix });
  const strings: Record<string, string> = {
    clientId: '"mcp-host" (the client registered for the host at the authorization server)',
    clientSecretFile: '"/run/secrets/upstream-client-secret"',
    privateKeyFile: '"./keys/upstream-client.pem"',
  };
  const urls: Record<string, string> = {
    tokenUrl: '"https://auth.example.com/oauth/token"',
    issuer: '"https://auth.example.com"',
    resource: '"https://mcp.example.com/mcp"',
    audience: '"https://mcp.example.com"',
  };
  const known = ['clientId', ...CREDENTIAL_SOURCES, 'algorithm', 'scopes', 'tokenUrl', 'issuer', 'resource'];
  if (mode === 'tokenExchange') known.push('audience' satisfies keyof TokenExchangeConfig);
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue;
    if (Object.hasOwn(INLINE_SECRETS, key)) {
      add(
        key,
        `holds the client's credential in the config text, which is often committed and read by whoever can read the file; mcp-host takes it only from the environment or a file.`,
        `remove ${key} and write ${INLINE_SECRETS[key]}, holding the value there.`,
      );
    } else if (!known.includes(key)) {
      problems.push(unknownKeyProblem(where(`${path}.${key}`), key, known));
    } else if (key in strings && (typeof item !== 'string' || item === '')) {
      add(key, `expected a non-empty string, got ${describeValue(item)}.`, `e.g. ${key}: ${strings[key]}.`);
    } else if (key === 'clientSecretEnv' && !(typeof item === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(item))) {
      add(
        key,
        `expected an environment variable name (letters, digits and "_", not starting with a digit), got ${describeValue(item)}.`,
        'e.g. clientSecretEnv: "UPSTREAM_CLIENT_SECRET".',
      );
    } else if (key in urls && !isHttpUrl(item)) {
      add(key, `expected an http:// or https:// URL, got ${describeValue(item)}.`, `e.g. ${key}: ${urls[key]}.`);
    } else if (
      key === 'scopes' &&
      !(Array.isArray(item) && item.every((s) => typeof s === 'string' && /^\S+$/.test(s)))
    ) {
      add(
        key,
        `expected an array of scopes (strings without spaces), got ${describeValue(item)}.`,
        'e.g. scopes: ["mcp:tools"].',
      );
    } else if (key === 'algorithm' && !ALGORITHMS.includes(item as string)) {
      add(key, `expected one of ${quotedChoices(ALGORITHMS)}, got ${describeValue(item)}.`, 'e.g. algorithm: "RS256".');
    }
  }
  if (value.clientId === undefined) {
    add(
      'clientId',
      'is missing: the host authenticates at the authorization server as a registered client.',
      `e.g. ${mode}: ${example}.`,
    );
  }
  const sources = CREDENTIAL_SOURCES.filter((key) => value[key] !== undefined);
  if (sources.length !== 1 && !Object.keys(INLINE_SECRETS).some((key) => value[key] !== undefined)) {
    problems.push({
      where: where(path),
      what: `${sources.length === 0 ? 'names no credential' : `names ${quotedChoices(sources, 'and')}`}: expected exactly one of ${quotedChoices(CREDENTIAL_SOURCES)}.`,
      fix: 'add clientSecretEnv: "UPSTREAM_CLIENT_SECRET" (a client secret), or privateKeyFile: "./keys/upstream-client.pem" (private_key_jwt); keep one.',
    });
  }
  if (mode === 'tokenExchange' && value.issuer === undefined) {
    add(
      'issuer',
      "is missing: each caller's own access token is sent to the authorization server for exchange, and without issuer that would be whatever server the upstream's metadata names (a server that names another could collect every caller's token).",
      `name the authorization server client "${typeof value.clientId === 'string' ? value.clientId : 'mcp-host'}" is registered at, as its metadata names itself, e.g. issuer: ${urls.issuer}.`,
    );
  }
  if (value.algorithm !== undefined && value.privateKeyFile === undefined) {
    add(
      'algorithm',
      'signs a private_key_jwt assertion, but the entry names no privateKeyFile.',
      'add privateKeyFile, or remove algorithm.',
    );
  }
  return problems;
}

function isHttpUrl(value: unknown): boolean {
  return typeof value === 'string' && URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol);
}
