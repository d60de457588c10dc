/**
 * Validation of a loaded host config (DESIGN.md, "The config file"): every
 * field, every problem at once (not the first), each naming where it is
 * (`mcp-host.config.js: plugins[2].prefix`), what was expected and got, and
 * the fix. A valid config comes back with every default filled in.
 */
import { dirname } from 'node:path';
import { ProblemsError, type Problem } from '../errors.js';
import { DEFAULT_REVISIONS } from '../protocol-versions.js';
import { HOST_VERSION } from '../version.js';
import {
  isDispatcherLevelKey,
  misplacedDispatcherKeyProblem,
  unsupportedDispatcherKeyProblem,
} from './dispatcher-keys.js';
import { forwardHeadersProblems } from './forward-headers.js';
import { ENTRY_KINDS, entryLabel, kindsNamedBy, prefixHint, type EntryKind } from './entries.js';
import { duplicatePrefixProblem, prefixProblem } from './prefix.js';
import { configWhere, describeValue, quotedChoices, unknownKeyProblem } from './problem-wording.js';
import { revisionListProblems } from './revisions.js';
import { upstreamAuthProblems } from './upstream-auth.js';
import { accessProblems, perToolProblems } from './access-settings.js';
import { DEFAULT_ADMIN_SCOPE } from './admin-settings.js';
import { serverPath, serverProblems } from './server-settings.js';
import type {
  AllowConfig,
  AuditConfig,
  ClusterConfig,
  CommandPluginEntry,
  DiscoveryConfig,
  DiscoveryMode,
  HostConfig,
  HttpAuthConfig,
  HttpAdminConfig,
  HttpOAuthConfig,
  OAuthIntrospectionConfig,
  HttpConfig,
  Isolation,
  ItemCuration,
  LimitsConfig,
  LogLevel,
  MountOptions,
  PackagePluginEntry,
  PinsPolicy,
  ReloadConfig,
  ResolvedConfig,
  ResourceCuration,
  Separator,
  TelemetryConfig,
  UpstreamSessions,
  UpstreamsConfig,
  UrlPluginEntry,
} from './types.js';
import { isPlainObject } from '../plain-object.js';
import { LOG_FORMATS } from '../log.js';
import { packageSpecifierProblem } from './package-specifier.js';

const SEPARATORS: readonly Separator[] = ['.', '_', '__'];
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const ISOLATIONS: readonly Isolation[] = ['none', 'worker', 'process', 'sandbox'];
/** The levels whose plugin runs in a process of its own, which an entry's `allow` grants more. */
const OWN_PROCESS: readonly unknown[] = ['process', 'sandbox'];
/** Below this a worker cannot even load the SDK. */
const MIN_MEMORY_LIMIT_MB = 16;
const PINS_POLICIES: readonly PinsPolicy[] = ['warn', 'refuse'];
const UPSTREAM_SESSIONS: readonly UpstreamSessions[] = ['shared', 'per-client'];
const DISCOVERY_MODES: readonly DiscoveryMode[] = ['all', 'search', 'auto'];
/** The most tools one search may return: a result is definitions in full, and a client's context is not. */
export const MAX_SEARCH_RESULTS = 50;

/** The host is never reachable from the network unless asked. */
export const DEFAULT_HTTP_HOST = '127.0.0.1';

const DEFAULTS = {
  name: 'mcp-host',
  separator: '.',
  /** The MCP spec's limit on tool and prompt names. */
  maxNameLength: 128,
  httpHost: DEFAULT_HTTP_HOST,
  reload: { watch: true, debounceMs: 200, drainTimeoutMs: 30_000 },
  upstreams: {
    startTimeoutMs: 30_000,
    reconnectDelayMs: 500,
    maxReconnectDelayMs: 30_000,
    pingIntervalMs: 15_000,
    heartbeatTimeoutMs: 10_000,
    /** Each is a process (or an upstream session) of its own: enough for a team, few enough for one machine. */
    maxPerClientSessions: 16,
  },
  /** In the host's thread: the fastest (see docs/performance.md). */
  isolation: 'none',
  logLevel: 'info',
  pins: 'warn',
  /** 'all' is what a host without discovery has always served; the rest fit the strictest common client (Cursor: 40 tools). */
  discovery: { mode: 'all', threshold: 40, alwaysVisible: [], results: 5, maxSurfaced: 32 },
  /** Where a client may be served search, the name limit of the strictest clients. */
  searchMaxNameLength: 64,
} as const;

/**
 * Check `raw` (what the config file exports) and fill in the defaults.
 * Throws a ProblemsError listing every problem found.
 */
export function validateConfig(raw: unknown, file: string): ResolvedConfig {
  const { problems, salvaged } = inspectConfig(raw, file);
  if (problems.length > 0) throw new ProblemsError(problems);
  return salvaged!;
}

/** Every problem of a config, and what of it is still usable. */
export interface ConfigInspection {
  problems: Problem[];
  /**
   * The config with defaults in place of every invalid top-level value, so
   * that `check` still resolves the entries that are valid; undefined when
   * the config is not even an object.
   */
  salvaged?: ResolvedConfig;
  /** Indexes of the plugin entries that have problems of their own; `salvaged.plugins` keeps them in place. */
  invalidEntries: ReadonlySet<number>;
}

export function inspectConfig(raw: unknown, file: string): ConfigInspection {
  const findings = new Findings(file, raw);
  if (!isPlainObject(raw)) {
    findings.add(
      undefined,
      `expected the config to be an object with a "plugins" array, got ${describeValue(raw)}.`,
      'make it an object (a .js config exports it as its default export), e.g. { plugins: [{ package: "@acme/mcp-weather", prefix: "weather" }] }.',
    );
    return { problems: findings.problems, invalidEntries: findings.invalidEntries };
  }
  const invalidKeys = new Set<string>();
  const tracked = Object.fromEntries(
    Object.entries(TOP_LEVEL_FIELDS).map(([key, check]): [string, Check] => [
      key,
      (f, value, path, name) => {
        const before = f.problems.length;
        check(f, value, path, name);
        if (f.problems.length > before) invalidKeys.add(key);
      },
    ]),
  );
  checkKeys(findings, raw, '', tracked, (key, path) =>
    findings.problems.push(
      isDispatcherLevelKey(key)
        ? unsupportedDispatcherKeyProblem(key, findings.where(path))
        : unknownKeyProblem(findings.where(path), key, Object.keys(TOP_LEVEL_FIELDS)),
    ),
  );
  if (raw.plugins === undefined) TOP_LEVEL_FIELDS.plugins(findings, undefined, 'plugins', 'plugins');
  const usable = Object.fromEntries(Object.entries(raw).filter(([key]) => !invalidKeys.has(key) || key === 'plugins'));
  if (!Array.isArray(usable.plugins)) usable.plugins = [];
  return {
    problems: findings.problems,
    salvaged: withDefaults(usable as unknown as HostConfig, file),
    invalidEntries: findings.invalidEntries,
  };
}

function withDefaults(config: HostConfig, file: string): ResolvedConfig {
  const { http, reload, upstreams, log } = config;
  const discovery = config.discovery && { ...DEFAULTS.discovery, ...definedKeys(config.discovery) };
  // Search is for clients that cap their tools, and such clients cap names too: names fit them unless the config says otherwise.
  const searching = discovery !== undefined && discovery.mode !== 'all';
  return {
    file,
    dir: dirname(file),
    name: config.name ?? DEFAULTS.name,
    version: config.version ?? HOST_VERSION,
    ...(config.instructions !== undefined && { instructions: config.instructions }),
    protocolVersions: config.protocolVersions ?? [...DEFAULT_REVISIONS],
    separator: config.separator ?? DEFAULTS.separator,
    maxNameLength: config.maxNameLength ?? (searching ? DEFAULTS.searchMaxNameLength : DEFAULTS.maxNameLength),
    ...(config.pageSize !== undefined && { pageSize: config.pageSize }),
    isolation: config.isolation ?? DEFAULTS.isolation,
    shortenNames: config.shortenNames ?? searching,
    pins: config.pins ?? DEFAULTS.pins,
    plugins: config.plugins,
    ...(http && {
      http: {
        // the limits' defaults are the HTTP server's (they hold for --http without an http section too)
        ...http,
        host: http.host ?? DEFAULTS.httpHost,
        // validation refuses an http section without a port
        port: http.port!,
      },
    }),
    reload: {
      watch: reload?.watch ?? DEFAULTS.reload.watch,
      debounceMs: reload?.debounceMs ?? DEFAULTS.reload.debounceMs,
      drainTimeoutMs: reload?.drainTimeoutMs ?? DEFAULTS.reload.drainTimeoutMs,
    },
    upstreams: {
      startTimeoutMs: upstreams?.startTimeoutMs ?? DEFAULTS.upstreams.startTimeoutMs,
      reconnectDelayMs: upstreams?.reconnectDelayMs ?? DEFAULTS.upstreams.reconnectDelayMs,
      maxReconnectDelayMs: upstreams?.maxReconnectDelayMs ?? DEFAULTS.upstreams.maxReconnectDelayMs,
      pingIntervalMs: upstreams?.pingIntervalMs ?? DEFAULTS.upstreams.pingIntervalMs,
      heartbeatTimeoutMs: upstreams?.heartbeatTimeoutMs ?? DEFAULTS.upstreams.heartbeatTimeoutMs,
      maxPerClientSessions: upstreams?.maxPerClientSessions ?? DEFAULTS.upstreams.maxPerClientSessions,
    },
    log: { level: log?.level ?? DEFAULTS.logLevel, ...(log?.format && { format: log.format }) },
    ...(config.telemetry && { telemetry: config.telemetry }),
    ...(config.cluster && { cluster: config.cluster }),
    ...(discovery && { discovery: { ...discovery, alwaysVisible: [...discovery.alwaysVisible] } }),
    ...(config.access && { access: config.access }),
    ...(config.servers && { servers: resolvedServers(config.servers, discovery) }),
    ...(config.audit && { audit: config.audit }),
    ...(config.limits && { limits: config.limits }),
  };
}

/** Each server's discovery over the host's: the keys it sets replace the host's (or the defaults). */
function resolvedServers(
  servers: NonNullable<HostConfig['servers']>,
  hostDiscovery:
    (Readonly<Omit<Required<DiscoveryConfig>, 'alwaysVisible'>> & { alwaysVisible: readonly string[] }) | undefined,
): NonNullable<ResolvedConfig['servers']> {
  return Object.fromEntries(
    Object.entries(servers).map(([name, { discovery, ...server }]) => {
      const resolved = discovery
        ? { ...(hostDiscovery ?? DEFAULTS.discovery), ...definedKeys(discovery) }
        : hostDiscovery;
      return [
        name,
        { ...server, ...(resolved && { discovery: { ...resolved, alwaysVisible: [...resolved.alwaysVisible] } }) },
      ];
    }),
  );
}

/** A section without its keys set to undefined (a config may write `mode: process.env.MODE`). */
function definedKeys<T extends object>(section: T): Partial<T> {
  return Object.fromEntries(Object.entries(section).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** The problems found so far, and what every check needs to word them. */
class Findings {
  readonly problems: Problem[] = [];
  /** The config's separator, or undefined when it is invalid (prefixes are then checked for characters only). */
  readonly separator: Separator | undefined;
  /** The first entry using each prefix, to name it when another uses it again. */
  readonly prefixOwners = new Map<string, { path: string; label: string }>();
  /** The config turns on bearer auth, so a client's Authorization header is the host's and never forwarded. */
  readonly hostChecksTokens: boolean;
  /** Indexes of the plugin entries with problems. */
  readonly invalidEntries = new Set<number>();
  /** The top-level isolation, which package entries without their own take. */
  readonly isolation: unknown;

  constructor(
    readonly file: string,
    raw: unknown,
  ) {
    const separator = isPlainObject(raw) ? (raw.separator ?? DEFAULTS.separator) : DEFAULTS.separator;
    this.separator = SEPARATORS.find((s) => s === separator);
    this.isolation = isPlainObject(raw) ? (raw.isolation ?? DEFAULTS.isolation) : DEFAULTS.isolation;
    this.hostChecksTokens =
      isPlainObject(raw) &&
      isPlainObject(raw.http) &&
      ((raw.http.auth !== undefined && raw.http.auth !== 'none') || raw.http.oauth !== undefined);
  }

  where(path: string | undefined): string {
    return configWhere(this.file, path);
  }

  add(path: string | undefined, what: string, fix: string): void {
    this.problems.push({ where: this.where(path), what, fix });
  }
}

/** Checks one value found at `path` (whose last key is `key`), reporting into `findings`. */
type Check = (findings: Findings, value: unknown, path: string, key: string) => void;

interface Rule {
  /** What the value should be, as "expected …" words it. */
  expected: string;
  test(value: unknown): boolean;
}

/** A value that must pass `rule`; the fix shows `example`, a valid value. */
function field(rule: Rule, example: string): Check {
  return (findings, value, path, key) => {
    if (!rule.test(value)) {
      findings.add(path, `expected ${rule.expected}, got ${describeValue(value)}.`, `e.g. ${key}: ${example}.`);
    }
  };
}

/** An object whose keys are checked by `fields`; `required` keys must be present. */
function section(fields: Record<string, Check>, example: string, required: readonly string[] = []): Check {
  return (findings, value, path, key) => {
    if (!isPlainObject(value)) {
      findings.add(path, `expected an object, got ${describeValue(value)}.`, `e.g. ${key}: ${example}.`);
      return;
    }
    checkKeys(findings, value, path, fields);
    for (const name of required) {
      if (value[name] === undefined) fields[name]!(findings, undefined, `${path}.${name}`, name);
    }
  };
}

/**
 * Check each key of `object` with its field's check. A key set to undefined
 * counts as absent (a config may write `prefix: process.env.PREFIX`).
 */
function checkKeys(
  findings: Findings,
  object: Record<string, unknown>,
  path: string,
  fields: Record<string, Check>,
  onUnknownKey = (key: string, keyPath: string) =>
    findings.problems.push(unknownKeyProblem(findings.where(keyPath), key, Object.keys(fields))),
): void {
  for (const [key, value] of Object.entries(object)) {
    const keyPath = path ? `${path}.${key}` : key;
    const check = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (!check) onUnknownKey(key, keyPath);
    else if (value !== undefined) check(findings, value, keyPath, key);
  }
}

const aString: Rule = { expected: 'a string', test: (v) => typeof v === 'string' };
const aNonEmptyString: Rule = { expected: 'a non-empty string', test: (v) => typeof v === 'string' && v !== '' };
const aBoolean: Rule = { expected: 'true or false', test: (v) => typeof v === 'boolean' };
const anObject: Rule = { expected: 'an object', test: isPlainObject };
const anArrayOfStrings: Rule = {
  expected: 'an array of strings',
  test: (v) => Array.isArray(v) && v.every((item) => typeof item === 'string'),
};
const anArrayOfNonEmptyStrings: Rule = {
  expected: 'an array of non-empty strings',
  test: (v) => Array.isArray(v) && v.every((item) => typeof item === 'string' && item !== ''),
};
const anEnvironmentVariableName: Rule = {
  expected: 'an environment variable name (letters, digits and "_", not starting with a digit)',
  test: (v) => typeof v === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(v),
};
const anObjectOfStrings: Rule = {
  expected: 'an object whose values are strings',
  test: (v) => isPlainObject(v) && Object.values(v).every((item) => typeof item === 'string'),
};
const aPositiveInteger = integerFrom(1);
const aDuration = integerFrom(0);

function integerFrom(min: number, max = Infinity): Rule {
  return {
    expected:
      max !== Infinity
        ? `an integer from ${min} to ${max}`
        : min === 1
          ? 'a positive integer'
          : `an integer of ${min} or more`,
    test: (v) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max,
  };
}

function oneOf(values: readonly string[]): Rule {
  return { expected: quotedChoices(values), test: (v) => values.includes(v as string) };
}

const anHttpUrl: Rule = {
  expected: 'an http:// or https:// URL',
  test: (v) => typeof v === 'string' && URL.canParse(v) && ['http:', 'https:'].includes(new URL(v).protocol),
};

const aRedisUrl: Rule = {
  expected: 'a redis:// or rediss:// URL',
  test: (v) => typeof v === 'string' && URL.canParse(v) && ['redis:', 'rediss:'].includes(new URL(v).protocol),
};

const CLUSTER_FIELDS: Record<keyof ClusterConfig, Check> = {
  redis: field(aRedisUrl, '"redis://redis.internal:6379" (or set MCP_HOST_REDIS_URL)'),
  name: field(aNonEmptyString, '"prod"'),
  advertise: field(anHttpUrl, '"http://10.0.0.12:3000"'),
  redisTimeoutMs: field(aPositiveInteger, '1000'),
  redisAuth: field(oneOf(['none']), '"none" (only where nothing but the replicas can reach Redis)'),
};

const HTTP_AUTH_FIELDS: Record<keyof HttpAuthConfig, Check> = {
  tokens: field(anArrayOfNonEmptyStrings, '[process.env.MY_TOKEN]'),
  tokensEnv: field(anEnvironmentVariableName, '"MCP_HOST_HTTP_TOKENS"'),
  tokensFile: field(aNonEmptyString, '"/run/secrets/mcp-host-tokens"'),
};

/** The JWS algorithms `http.oauth.algorithms` may name: asymmetric only, since the issuer's keys are public. */
export const JWT_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];

/** An issuer is https, except on this machine (a test or a local identity provider), as the SDK's own check says. */
const anIssuerUrl: Rule = {
  expected: 'an https:// URL without query or fragment (http:// only for localhost or 127.0.0.1)',
  test: (v) => {
    if (typeof v !== 'string' || !URL.canParse(v)) return false;
    const url = new URL(v);
    const local = url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
    return (url.protocol === 'https:' || local) && url.search === '' && url.hash === '';
  },
};

const OAUTH_INTROSPECTION_FIELDS: Record<keyof OAuthIntrospectionConfig, Check> = {
  clientId: field(aNonEmptyString, '"mcp-host"'),
  clientSecretEnv: field(anEnvironmentVariableName, '"MCP_HOST_INTROSPECTION_SECRET"'),
  clientSecretFile: field(aNonEmptyString, '"/run/secrets/introspection-secret"'),
  endpoint: field(anHttpUrl, '"https://id.example.com/token/introspect"'),
};
const INTROSPECTION_EXAMPLE = '{ clientId: "mcp-host", clientSecretEnv: "MCP_HOST_INTROSPECTION_SECRET" }';

const OAUTH_FIELDS: Record<keyof HttpOAuthConfig, Check> = {
  issuer: field(anIssuerUrl, '"https://id.example.com" (the authorization server\'s issuer, as its metadata names it)'),
  audience: field(anHttpUrl, '"https://mcp.example.com/mcp" (the public URL clients reach this endpoint at)'),
  scopes: field(
    {
      expected: 'an array of scope names (non-empty, without spaces)',
      test: (v) => Array.isArray(v) && v.every((item) => typeof item === 'string' && /^[\x21-\x7e]+$/.test(item)),
    },
    '["mcp"]',
  ),
  algorithms: field(
    {
      expected: `an array of asymmetric JWS algorithms (${JWT_ALGORITHMS.join(', ')}); "none" and HS* are never accepted`,
      test: (v) => Array.isArray(v) && v.length > 0 && v.every((item) => JWT_ALGORITHMS.includes(item as string)),
    },
    '["RS256", "ES256"]',
  ),
  clockSkewSeconds: field(integerFrom(0, 300), '30'),
  introspection: (findings, value, path, key) => {
    section(OAUTH_INTROSPECTION_FIELDS, INTROSPECTION_EXAMPLE, ['clientId'])(findings, value, path, key);
    if (!isPlainObject(value)) return;
    const secrets = ['clientSecretEnv', 'clientSecretFile'].filter((name) => value[name] !== undefined);
    if (secrets.length !== 1) {
      findings.add(
        path,
        secrets.length === 0
          ? 'names no client secret, so the host could not authenticate at the introspection endpoint.'
          : 'names both clientSecretEnv and clientSecretFile: the host would not know which secret to use.',
        `give exactly one: e.g. introspection: ${INTROSPECTION_EXAMPLE}.`,
      );
    }
  },
};
const OAUTH_EXAMPLE = '{ issuer: "https://id.example.com", audience: "https://mcp.example.com/mcp" }';

const ADMIN_FIELDS: Record<keyof HttpAdminConfig, Check> = {
  tokens: field(
    {
      expected: 'an array of token names (letters, digits, _ . -, as http.auth tokens are named "name:token")',
      test: (v) =>
        Array.isArray(v) && v.every((item) => typeof item === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(item)),
    },
    '["ops"]',
  ),
  scope: field(
    {
      expected: 'a scope name (non-empty, without spaces)',
      test: (v) => typeof v === 'string' && /^[\x21-\x7e]+$/.test(v),
    },
    `"${DEFAULT_ADMIN_SCOPE}"`,
  ),
};

const HTTP_FIELDS: Record<keyof HttpConfig, Check> = {
  host: field(aNonEmptyString, `"${DEFAULTS.httpHost}"`),
  port: field(integerFrom(0, 65535), '3000 (0 picks a free port)'),
  allowedHosts: field(anArrayOfStrings, '["mcp.example.com"]'),
  allowedOrigins: field(anArrayOfStrings, '["https://app.example.com"]'),
  auth: (findings, value, path, key) => {
    // 'none' opens the endpoint on purpose; anything else must be the auth section
    if (value !== 'none')
      section(HTTP_AUTH_FIELDS, `{ tokensEnv: "MCP_HOST_HTTP_TOKENS" } or "none"`)(findings, value, path, key);
  },
  oauth: section(OAUTH_FIELDS, OAUTH_EXAMPLE, ['issuer', 'audience']),
  admin: section(ADMIN_FIELDS, '{ tokens: ["ops"] } or { scope: "mcp-host:admin" }'),
  metrics: field(aBoolean, 'true (false keeps /metrics off while http.admin is set)'),
  maxBodyBytes: field(aPositiveInteger, '1048576 (1 MiB)'),
  sessionIdleTimeoutMs: field(aPositiveInteger, '600000 (10 minutes)'),
  maxSessions: field(aPositiveInteger, '1000'),
  maxSessionsPerToken: field(aPositiveInteger, '100'),
  maxListenStreams: field(aPositiveInteger, '1000'),
  maxConnections: field(aPositiveInteger, '2000'),
  bodyTimeoutMs: field(aPositiveInteger, '30000 (30 seconds)'),
  maxStreamQueueBytes: field(aPositiveInteger, '16777216 (16 MiB)'),
  eventStoreBytes: field(aPositiveInteger, '1048576 (1 MiB)'),
};

const RELOAD_FIELDS: Record<keyof ReloadConfig, Check> = {
  watch: field(aBoolean, 'true'),
  debounceMs: field(aDuration, String(DEFAULTS.reload.debounceMs)),
  drainTimeoutMs: field(aDuration, String(DEFAULTS.reload.drainTimeoutMs)),
};

const UPSTREAMS_FIELDS: Record<keyof UpstreamsConfig, Check> = {
  startTimeoutMs: field(aPositiveInteger, String(DEFAULTS.upstreams.startTimeoutMs)),
  reconnectDelayMs: field(aPositiveInteger, String(DEFAULTS.upstreams.reconnectDelayMs)),
  maxReconnectDelayMs: field(aPositiveInteger, String(DEFAULTS.upstreams.maxReconnectDelayMs)),
  pingIntervalMs: field(aDuration, `${DEFAULTS.upstreams.pingIntervalMs} (0 turns pinging off)`),
  heartbeatTimeoutMs: field(aPositiveInteger, String(DEFAULTS.upstreams.heartbeatTimeoutMs)),
  maxPerClientSessions: field(aPositiveInteger, String(DEFAULTS.upstreams.maxPerClientSessions)),
};

const anIsolation = field(
  oneOf(ISOLATIONS),
  '"process" (its own Node process, reading only its package) or "worker" (its own thread); see docs/isolation.md',
);
const aPathList = field(anArrayOfNonEmptyStrings, '["./data"] (relative to the config\'s directory)');
const ALLOW_FIELDS: Record<keyof AllowConfig, Check> = {
  read: aPathList,
  write: aPathList,
  env: field(
    {
      expected: 'an array of environment variable names',
      test: (v) => Array.isArray(v) && v.every((name) => anEnvironmentVariableName.test(name)),
    },
    '["API_KEY"]',
  ),
  net: field(aBoolean, 'true'),
  childProcess: field(aBoolean, 'true'),
};
/** A command sets its environment with `env`, and its processes may start others inside the sandbox. */
const COMMAND_ALLOW_FIELDS: Record<keyof AllowConfig, Check> = {
  ...ALLOW_FIELDS,
  env: (findings, _value, path) =>
    findings.add(
      path,
      "a command's environment is its entry's env: the host gives it nothing else.",
      'move the variables into env: { NAME: process.env.NAME }.',
    ),
  childProcess: (findings, _value, path) =>
    findings.add(
      path,
      'a sandboxed command may always start processes: they stay inside its sandbox.',
      'remove childProcess.',
    ),
};
const ALLOW_EXAMPLE = '{ read: ["./data"], env: ["API_KEY"] }';
const SANDBOXED_ALLOW_EXAMPLE = '{ read: ["./data"], net: true }';
const anUpstreamSessions = field(
  oneOf(UPSTREAM_SESSIONS),
  '"per-client" (an upstream of its own for each client session) or "shared" (the default); see docs/isolation.md',
);
const TELEMETRY_FIELDS: Record<keyof TelemetryConfig, Check> = {
  enabled: field(aBoolean, 'true'),
  endpoint: field(anHttpUrl, '"http://localhost:4318"'),
  serviceName: field(aNonEmptyString, '"mcp-host"'),
  recordArguments: field(aBoolean, 'false (true puts tool arguments and results on spans)'),
};

const DISCOVERY_FIELDS: Record<keyof DiscoveryConfig, Check> = {
  mode: field(
    oneOf(DISCOVERY_MODES),
    '"search" (list alwaysVisible and search_tools) or "auto" (search above threshold tools)',
  ),
  threshold: field(
    aPositiveInteger,
    `${DEFAULTS.discovery.threshold} (search once an identity may use more tools than this)`,
  ),
  alwaysVisible: field(anArrayOfNonEmptyStrings, '["notes.*", "clock.now"] (globs on served tool names)'),
  results: field(integerFrom(1, MAX_SEARCH_RESULTS), String(DEFAULTS.discovery.results)),
  maxSurfaced: field(aPositiveInteger, String(DEFAULTS.discovery.maxSurfaced)),
};

const AUDIT_FIELDS: Record<keyof AuditConfig, Check> = {
  file: field(aNonEmptyString, '"./audit.log" (relative to the config\'s directory)'),
  rotate: section(
    { size: field(aPositiveInteger, '10485760 (10 MiB)'), keep: field(aPositiveInteger, '5') },
    '{ size: 10485760, keep: 5 }',
    ['size', 'keep'],
  ),
  recordArguments: field(aBoolean, "false (true puts each call's arguments in its record)"),
};

const TOP_LEVEL_FIELDS: Record<keyof HostConfig, Check> = {
  name: field(aNonEmptyString, '"my-host"'),
  version: field(aNonEmptyString, '"1.0.0"'),
  instructions: field(aString, '"Tools for the ops team."'),
  protocolVersions: (findings, value, path) =>
    findings.problems.push(
      ...revisionListProblems(value, (index) => findings.where(index === undefined ? path : `${path}[${index}]`)),
    ),
  separator: field(oneOf(SEPARATORS), '"_" (some clients reject ".")'),
  maxNameLength: field(integerFrom(1, DEFAULTS.maxNameLength), '64 (for clients stricter than the spec)'),
  pageSize: field(aPositiveInteger, '100'),
  isolation: anIsolation,
  shortenNames: field(aBoolean, 'true (for clients with 64-character name limits)'),
  pins: field(oneOf(PINS_POLICIES), '"refuse" (withhold definitions that drifted from mcp-host.lock.json)'),
  plugins: (findings, value, path) => {
    if (!Array.isArray(value)) {
      findings.add(
        path,
        `expected an array of plugin entries, got ${describeValue(value)}.`,
        'e.g. plugins: [{ package: "@acme/mcp-weather", prefix: "weather" }].',
      );
      return;
    }
    value.forEach((entry: unknown, index) => {
      const before = findings.problems.length;
      checkEntry(findings, entry, `${path}[${index}]`);
      if (findings.problems.length > before) findings.invalidEntries.add(index);
    });
  },
  http: section(HTTP_FIELDS, `{ host: "${DEFAULTS.httpHost}", port: 3000 }`, ['port']),
  reload: section(RELOAD_FIELDS, '{ watch: true }'),
  upstreams: section(UPSTREAMS_FIELDS, `{ startTimeoutMs: ${DEFAULTS.upstreams.startTimeoutMs} }`),
  log: section(
    { level: field(oneOf(LOG_LEVELS), `"${DEFAULTS.logLevel}"`), format: field(oneOf(LOG_FORMATS), '"json"') },
    `{ level: "${DEFAULTS.logLevel}", format: "pretty" }`,
  ),
  telemetry: section(TELEMETRY_FIELDS, '{ enabled: true, endpoint: "http://localhost:4318" }'),
  cluster: section(CLUSTER_FIELDS, '{ redis: "redis://127.0.0.1:6379", name: "prod" }'),
  discovery: section(DISCOVERY_FIELDS, '{ mode: "search", alwaysVisible: ["notes.*"] }'),
  access: (findings, value) => findings.problems.push(...accessProblems(value, (path) => findings.where(path))),
  servers: (findings, value) => {
    findings.problems.push(...serverProblems(value, (path) => findings.where(path)));
    // A server's discovery is checked as the host's is.
    for (const [name, server] of isPlainObject(value) ? Object.entries(value) : []) {
      const discovery = isPlainObject(server) ? server.discovery : undefined;
      if (discovery !== undefined)
        TOP_LEVEL_FIELDS.discovery(findings, discovery, `${serverPath(name)}.discovery`, 'discovery');
    }
  },
  audit: section(AUDIT_FIELDS, '{ file: "./audit.log" }', ['file']),
  // callsPerMinute may be left out only beside tasks: an empty limits section is a mistake worth naming.
  limits: (findings, value, path, key) =>
    section(
      LIMITS_FIELDS,
      '{ callsPerMinute: { default: 60 } }',
      isPlainObject(value) && value.tasks !== undefined ? [] : ['callsPerMinute'],
    )(findings, value, path, key),
};

const LIMITS_FIELDS: Record<keyof LimitsConfig, Check> = {
  callsPerMinute: section(
    {
      default: field(aPositiveInteger, '60'),
      perTool: (findings, value, path) =>
        findings.problems.push(...perToolProblems(value, (at) => findings.where(at ?? path))),
    },
    '{ default: 60, perTool: { "search.*": 10 } }',
  ),
  tasks: section(
    { maxTasks: field(aPositiveInteger, '10000'), ttlMs: field(aPositiveInteger, '3600000') },
    '{ maxTasks: 10000, ttlMs: 3600000 }',
  ),
};

const ITEM_CURATION_FIELDS: Record<keyof ItemCuration, Check> = {
  include: field(anArrayOfNonEmptyStrings, '["issue_*", "search"]'),
  exclude: field(anArrayOfNonEmptyStrings, '["*_delete"]'),
  rename: field(anObjectOfStrings, '{ search: "search_code" }'),
  describe: field(anObjectOfStrings, '{ search: "Search code on GitHub" }'),
};

const RESOURCE_CURATION_FIELDS: Record<keyof ResourceCuration, Check> = {
  include: field(anArrayOfNonEmptyStrings, '["github://repos/**"]'),
  exclude: field(anArrayOfNonEmptyStrings, '["file:///secrets/**"]'),
};

/**
 * The fields of each kind of plugin entry. The checks of `prefix` and
 * `forwardHeaders` need the rest of the entry, so they are added per entry.
 */
const MOUNT_FIELDS: Record<Exclude<keyof MountOptions, 'prefix'>, Check> = {
  flat: field(aBoolean, 'true'),
  timeoutMs: field(aPositiveInteger, '60000'),
  maxResultBytes: field(aPositiveInteger, '16777216 (16 MiB)'),
  maxListPages: field(aPositiveInteger, '5000'),
  tools: section(ITEM_CURATION_FIELDS, '{ include: ["issue_*"], exclude: ["*_delete"] }'),
  prompts: section(ITEM_CURATION_FIELDS, '{ exclude: ["*"] }'),
  resources: section(RESOURCE_CURATION_FIELDS, '{ include: ["github://repos/**"] }'),
};
const ENTRY_FIELDS: {
  package: Record<Exclude<keyof PackagePluginEntry, 'prefix' | 'forwardHeaders'>, Check>;
  command: Record<Exclude<keyof CommandPluginEntry, 'prefix'>, Check>;
  url: Record<Exclude<keyof UrlPluginEntry, 'prefix' | 'forwardHeaders'>, Check>;
} = {
  package: {
    package: (findings, value, path, key) => {
      field(aNonEmptyString, '"@acme/mcp-weather" or "./plugins/clock"')(findings, value, path, key);
      const problem = typeof value === 'string' && value !== '' && packageSpecifierProblem(value, findings.where(path));
      if (problem) findings.problems.push(problem);
    },
    options: field(anObject, '{ units: "metric" }'),
    bin: field(aNonEmptyString, '"mcp-server-memory"'),
    args: field(anArrayOfStrings, '["--verbose"]'),
    env: field(anObjectOfStrings, '{ API_KEY: "…" }'),
    isolation: anIsolation,
    memoryLimitMb: field(integerFrom(MIN_MEMORY_LIMIT_MB), '256'),
    allow: section(ALLOW_FIELDS, ALLOW_EXAMPLE),
    sandbox: field(aBoolean, 'true'),
    ...MOUNT_FIELDS,
  },
  command: {
    command: field(aNonEmptyString, '"uvx"'),
    args: field(anArrayOfStrings, '["mcp-server-time"]'),
    env: field(anObjectOfStrings, '{ API_KEY: "…" }'),
    cwd: field(aNonEmptyString, '"./servers"'),
    sandbox: field(aBoolean, 'true'),
    allow: section(COMMAND_ALLOW_FIELDS, SANDBOXED_ALLOW_EXAMPLE),
    sessions: anUpstreamSessions,
    ...MOUNT_FIELDS,
  },
  url: {
    url: field(anHttpUrl, '"http://127.0.0.1:4000/mcp"'),
    headers: field(anObjectOfStrings, '{ Authorization: "Bearer …" }'),
    sessions: anUpstreamSessions,
    auth: (findings, value, path) =>
      findings.problems.push(...upstreamAuthProblems(value, path, (at) => findings.where(at))),
    ...MOUNT_FIELDS,
  },
};

function checkEntry(findings: Findings, entry: unknown, path: string): void {
  if (!isPlainObject(entry)) {
    const example = typeof entry === 'string' ? JSON.stringify(entry) : '"@acme/mcp-weather"';
    findings.add(
      path,
      `expected a plugin entry object, got ${describeValue(entry)}.`,
      `write { package: ${example}, prefix: "…" } or { package: ${example}, flat: true }.`,
    );
    return;
  }
  const kinds = kindsNamedBy(entry);
  const kind = kinds.length === 1 ? kinds[0] : undefined;
  if (kinds.length === 0) {
    findings.add(
      path,
      `names no plugin: expected exactly one of ${quotedChoices(ENTRY_KINDS)}.`,
      'add package: "<npm package or ./path>", command: "<stdio MCP server>" or url: "<Streamable HTTP MCP server>".',
    );
  } else if (kinds.length > 1) {
    findings.add(
      path,
      `names ${quotedChoices(kinds, 'and')}: expected exactly one of ${quotedChoices(ENTRY_KINDS)}.`,
      'keep one; write one entry per plugin.',
    );
  }

  const label = entryLabel(entry);
  // A sandboxed server package is granted what a sandboxed command is.
  const sandboxedPackage = kind === 'package' && entry.sandbox === true;
  const fields: Record<string, Check> = {
    ...(kind ? ENTRY_FIELDS[kind] : { ...ENTRY_FIELDS.package, ...ENTRY_FIELDS.command, ...ENTRY_FIELDS.url }),
    ...(sandboxedPackage && { allow: section(COMMAND_ALLOW_FIELDS, SANDBOXED_ALLOW_EXAMPLE) }),
    prefix: (f, value, prefixPath) => checkPrefix(f, value, prefixPath, path, entry),
    ...(kind !== 'command' && {
      forwardHeaders: (f: Findings, value: unknown, keyPath: string) =>
        f.problems.push(
          ...forwardHeadersProblems(value, f.where(keyPath), {
            staticHeaders: entry.headers,
            hostChecksTokens: f.hostChecksTokens,
          }),
        ),
    }),
  };
  checkKeys(findings, entry, path, fields, (key, keyPath) =>
    findings.problems.push(unknownEntryKeyProblem(findings, key, keyPath, path, kind, Object.keys(fields))),
  );

  if (entry.flat === true && entry.prefix !== undefined) {
    findings.add(
      path,
      `has both prefix ${describeValue(entry.prefix)} and flat: true; a mount is either prefixed or flat.`,
      `remove flat: true to mount under the prefix, or remove prefix to mount "${label}" with names unchanged.`,
    );
  }
  if (entry.memoryLimitMb !== undefined && (entry.isolation ?? findings.isolation) === 'none') {
    findings.add(
      `${path}.memoryLimitMb`,
      `limits the heap of a plugin's worker thread, but "${label}" runs in the host's thread (isolation "none").`,
      'add isolation: "worker" to the entry, or remove memoryLimitMb.',
    );
  }
  if (
    entry.allow !== undefined &&
    kind === 'package' &&
    !sandboxedPackage &&
    !OWN_PROCESS.includes(entry.isolation ?? findings.isolation)
  ) {
    findings.add(
      `${path}.allow`,
      `grants what a plugin in a process of its own may do, but "${label}" runs at isolation ${JSON.stringify(entry.isolation ?? findings.isolation)}, where it can already do all the host can.`,
      'add isolation: "process" (or "sandbox") to the entry, or remove allow.',
    );
  }
  if (entry.allow !== undefined && kind === 'command' && entry.sandbox !== true) {
    findings.add(
      `${path}.allow`,
      `grants what a sandboxed command may do, but "${label}" is not sandboxed: it can already do all the host's user can.`,
      'add sandbox: true to the entry, or remove allow.',
    );
  }
}

function checkPrefix(
  findings: Findings,
  prefix: unknown,
  prefixPath: string,
  entryPath: string,
  entry: Record<string, unknown>,
): void {
  const problem = prefixProblem(prefix, findings.separator, findings.where(prefixPath), prefixHint(entry));
  if (problem) {
    findings.problems.push(problem);
    return;
  }
  const first = findings.prefixOwners.get(prefix as string);
  if (first) findings.problems.push(duplicatePrefixProblem(findings.where(prefixPath), prefix as string, false, first));
  else findings.prefixOwners.set(prefix as string, { path: entryPath, label: entryLabel(entry) });
}

/** A dispatcher-level key, a key of another kind of entry, or a plain unknown key. */
function unknownEntryKeyProblem(
  findings: Findings,
  key: string,
  keyPath: string,
  entryPath: string,
  kind: EntryKind | undefined,
  knownKeys: readonly string[],
): Problem {
  const where = findings.where(keyPath);
  if (isDispatcherLevelKey(key)) return misplacedDispatcherKeyProblem(key, where, `plugin entry ${entryPath}`);
  if (key === 'forwardHeaders' && kind === 'command') {
    return {
      where,
      what: "a command runs as a stdio child, which gets no per-request headers: a client's headers cannot reach it.",
      fix: 'give the server its credentials in env, or run it as an HTTP server and mount it with url and forwardHeaders.',
    };
  }
  // Every kind it applies to: "sessions" is a command's and a url's.
  const owners = kind ? ENTRY_KINDS.filter((other) => Object.hasOwn(ENTRY_FIELDS[other], key)) : [];
  if (owners.length > 0) {
    return {
      where,
      what: `"${key}" applies to ${owners.join(' and ')} entries only, and this is a ${kind} entry.`,
      fix: `remove "${key}".`,
    };
  }
  return unknownKeyProblem(where, key, knownKeys);
}
