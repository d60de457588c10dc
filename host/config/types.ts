/**
 * The shape of `mcp-host.config.js` (DESIGN.md, "The config file").
 * `validate.ts` checks a loaded value against exactly these fields.
 */
import type { LogFormat } from '../log.js';

export type { LogFormat };

/** Between a mount's prefix and a tool or prompt's own name. Some clients reject '.'. */
export type Separator = '.' | '_' | '__';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** What every kind of plugin entry shares: how it is mounted. */
export interface MountOptions {
  /** Mount under this prefix: `weather` makes `forecast` into `weather.forecast`. */
  prefix?: string;
  /** Mount with names unchanged; collisions are detected, never shadowed. */
  flat?: boolean;
  /** Per-request timeout towards this mount, in ms (reset by progress). Default 60 000. */
  timeoutMs?: number;
  /** The largest result this mount may answer a request with, serialised, in bytes. Default 8 MiB. */
  maxResultBytes?: number;
  /** How many pages of one list the host follows before calling the mount's pagination broken. Default 1000. */
  maxListPages?: number;
  /** Which of the mount's tools are served, under which names and descriptions (curation.ts). */
  tools?: ItemCuration;
  /** Which of the mount's prompts are served, the same way. */
  prompts?: ItemCuration;
  /** Which of the mount's resources and templates are served, by URI glob. */
  resources?: ResourceCuration;
}

/** What of a mount's tools or prompts is served; names and globs are the plugin's own, before prefixing. */
export interface ItemCuration {
  /** Globs; only names matching one are served. Default: all. */
  include?: string[];
  /** Globs; names matching one are not served (applied after include). */
  exclude?: string[];
  /** The plugin's name -> the name served (before prefixing). */
  rename?: Record<string, string>;
  /** The plugin's name -> the description served instead of its own. */
  describe?: Record<string, string>;
}

/** What of a mount's resources and templates is served: globs over URIs and URI templates. */
export interface ResourceCuration {
  include?: string[];
  exclude?: string[];
}

/** What happens to a tool or prompt whose definition no longer matches mcp-host.lock.json. */
export type PinsPolicy = 'warn' | 'refuse';

/**
 * Client headers a mount receives with each request a client makes (see
 * forward-headers.ts): names passed on as they are, or `{ sentAs: fromClient }`.
 */
export type ForwardHeaders = string[] | Record<string, string>;

/**
 * Where an mcp-host plugin runs: in the host's own thread, in a worker thread of its own, in a Node process of
 * its own under Node's permission model, or that process inside bubblewrap (docs/isolation.md).
 */
export type Isolation = 'none' | 'worker' | 'process' | 'sandbox';

/**
 * What a 'process' or 'sandbox' plugin (or a `sandbox: true` command) may do beyond reading its own package:
 * nothing of it is granted by default.
 */
export interface AllowConfig {
  /** Paths it may also read (relative to the config's directory). */
  read?: string[];
  /** Paths it may write (relative to the config's directory). */
  write?: string[];
  /** Names of the host's environment variables it is given. */
  env?: string[];
  /** 'sandbox' only: reach the network (a 'process' plugin always can: Node's permission model has no network rule). */
  net?: boolean;
  /** Start child processes. */
  childProcess?: boolean;
}

/** An npm package: an mcp-host plugin, or an MCP server package with a `bin`. */
export interface PackagePluginEntry extends MountOptions {
  package: string;
  /** Passed to the plugin's `create({ options })`. */
  options?: Record<string, unknown>;
  /** An mcp-host plugin only: where it runs ('none', 'worker', 'process', 'sandbox'). Default: the top-level `isolation`. */
  isolation?: Isolation;
  /** An mcp-host plugin in a worker (its V8 heap) or a process (all of its resident memory) only: the limit, in MiB. Default 512. */
  memoryLimitMb?: number;
  /**
   * An mcp-host plugin at 'process' or 'sandbox': what it may do beyond reading its own package. A server
   * package with sandbox: true: what it may read and write beyond its package, and whether it may reach the network.
   */
  allow?: AllowConfig;
  /** A server package only: run its bin inside bubblewrap, as a `sandbox: true` command runs (docs/isolation.md). Default false. */
  sandbox?: boolean;
  /** For a server package with several bins: which one to run. */
  bin?: string;
  args?: string[];
  env?: Record<string, string>;
  /** An mcp-host plugin only (a server package runs as a stdio child, which has no per-request headers). */
  forwardHeaders?: ForwardHeaders;
}

/** Any stdio MCP server, run as a child process. */
export interface CommandPluginEntry extends MountOptions {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** Run the command inside bubblewrap, as a 'sandbox' plugin runs (docs/isolation.md). Default false. */
  sandbox?: boolean;
  /** With sandbox: true, what it may read and write beyond its cwd, and whether it may reach the network. */
  allow?: AllowConfig;
  /** One child for every client, or one more per client session for its requests (docs/isolation.md). Default 'shared'. */
  sessions?: UpstreamSessions;
}

/** Any Streamable HTTP MCP server. */
export interface UrlPluginEntry extends MountOptions {
  url: string;
  headers?: Record<string, string>;
  forwardHeaders?: ForwardHeaders;
  /** One upstream session for every client, or one more per client session for its requests (docs/isolation.md). Default 'shared'. */
  sessions?: UpstreamSessions;
  /** How the host gets its own OAuth token for the server (docs/upstream-auth.md): exactly one mode. */
  auth?: UpstreamAuthConfig;
}

/** An OAuth-protected remote's token: the host's own (client credentials), or one per caller (token exchange). */
export interface UpstreamAuthConfig {
  clientCredentials?: UpstreamClientConfig;
  tokenExchange?: TokenExchangeConfig;
}

/**
 * The host as an OAuth client of the upstream's authorization server. Its secret is never in the config text:
 * `clientSecretEnv` or `clientSecretFile` (client_secret_basic / _post), or `privateKeyFile` (private_key_jwt).
 */
export interface UpstreamClientConfig {
  clientId: string;
  /** The environment variable holding the client secret. */
  clientSecretEnv?: string;
  /** A file holding the client secret (relative to the config's directory). */
  clientSecretFile?: string;
  /** A PKCS#8 PEM private key file: the client authenticates with a signed JWT (private_key_jwt) instead of a secret. */
  privateKeyFile?: string;
  /** The private key's JWS algorithm. Default "RS256". */
  algorithm?: string;
  /** The scopes asked for. Default: those the server's protected-resource metadata lists. */
  scopes?: string[];
  /** The token endpoint. Default: found from the server's 401 (RFC 9728, then RFC 8414 metadata). */
  tokenUrl?: string;
  /**
   * The authorization server the client is registered at: its credential is sent to no other, whatever the
   * server's metadata names. Default: the one the metadata names (or tokenUrl's origin).
   */
  issuer?: string;
  /** The resource indicator (RFC 8707) the token is asked for. Default: the server's protected-resource metadata's. */
  resource?: string;
}

/** RFC 8693: each caller's token is exchanged for one issued for the upstream; the host's own requests use client credentials. */
export interface TokenExchangeConfig extends UpstreamClientConfig {
  /**
   * Required: the authorization server each caller's own token is sent to for exchange. Learnt from the upstream's
   * metadata instead, it would be whatever server the upstream names.
   */
  issuer: string;
  /** The `audience` asked for in the exchange, where the authorization server wants one beside `resource`. */
  audience?: string;
}

/**
 * Whether a command's child or a URL's upstream session serves every client
 * (`'shared'`), or each 2025-era client session gets one of its own for its
 * requests, so that what the upstream says outside any request (log lines,
 * resource updates) goes to that session (`'per-client'`).
 */
export type UpstreamSessions = 'shared' | 'per-client';

export type PluginEntry = PackagePluginEntry | CommandPluginEntry | UrlPluginEntry;

export interface HttpConfig {
  /** Default 127.0.0.1: the host is never reachable from the network unless asked. */
  host?: string;
  port?: number;
  /** Extra Host header values accepted besides the bound address (DNS-rebinding protection). */
  allowedHosts?: string[];
  /** Extra Origin values accepted (DNS-rebinding protection). */
  allowedOrigins?: string[];
  /**
   * Require `Authorization: Bearer <token>` on `/mcp`. Without it, tokens in MCP_HOST_HTTP_TOKENS still apply.
   * `'none'` says the endpoint is open on purpose (behind an authenticating proxy): required to bind beyond loopback without tokens.
   */
  auth?: HttpAuthConfig | 'none';
  /** The host as an OAuth 2.1 resource server: access tokens from this issuer, for this audience (docs/identity.md). */
  oauth?: HttpOAuthConfig;
  /** Who is an admin, for `/metrics` and `/admin` (docs/telemetry.md): never loopback alone. */
  admin?: HttpAdminConfig;
  /** Serve Prometheus text at `/metrics`, to admins only. Default: on when `admin` is set. */
  metrics?: boolean;
  /** The largest request body read, in bytes; larger is refused with 413. Default 4 MiB (the SDK's). */
  maxBodyBytes?: number;
  /** A 2025-era session with nothing open (no call, no GET stream) this long is ended, in ms. Default 30 minutes. */
  sessionIdleTimeoutMs?: number;
  /** 2025-era sessions open at once; the next `initialize` is refused (503). Default 1000. */
  maxSessions?: number;
  /** 2025-era sessions one bearer token may hold open at once (429 beyond). Default 100. */
  maxSessionsPerToken?: number;
  /** 2026-07-28 `subscriptions/listen` streams open at once (503 beyond). Default 1000. */
  maxListenStreams?: number;
  /** TCP connections open at once; the next is answered 503 and closed. Default 2000. */
  maxConnections?: number;
  /** How long a request's body may take to arrive, in ms (408 after). Default 30 000. */
  bodyTimeoutMs?: number;
  /** Bytes an SSE stream may hold unread by its client; over it the stream is closed. Default 16 MiB. */
  maxStreamQueueBytes?: number;
  /** Bytes of SSE events a 2025-era session keeps for `Last-Event-ID` resumption (at most maxStreamQueueBytes). Default 1 MiB. */
  eventStoreBytes?: number;
}

/**
 * Bearer-token auth for `/mcp`: the tokens accepted are those listed here
 * and those in the environment variable named here. Once `auth` is set, a
 * host that finds no token at all refuses to start rather than serve open.
 */
export interface HttpAuthConfig {
  /** Accepted tokens. A config file is often committed: prefer tokensEnv for real secrets. */
  tokens?: string[];
  /** The environment variable holding accepted tokens, comma-separated. Default "MCP_HOST_HTTP_TOKENS". */
  tokensEnv?: string;
  /** A file holding accepted tokens, one a line (relative to the config's directory): out of the environment plugin code can read. */
  tokensFile?: string;
}

/** The admin credential: a static token named here, or an OAuth access token with the scope. */
export interface HttpAdminConfig {
  /** Names of `http.auth` tokens (given as `name:token`) that are admins'. */
  tokens?: string[];
  /** The OAuth scope that makes an access token an admin's (with `http.oauth`). Default "mcp-host:admin". */
  scope?: string;
}

/**
 * OAuth access tokens accepted on `/mcp` (DESIGN.md, "Identity and access"):
 * JWTs checked against the issuer's keys, opaque tokens introspected.
 * Static tokens (`auth`) keep working beside them.
 */
export interface HttpOAuthConfig {
  /** The authorization server's issuer URL; its RFC 8414 / OpenID discovery metadata names its JWKS. */
  issuer: string;
  /** The resource indicator tokens must be issued for (their `aud`): this endpoint's public URL. */
  audience: string;
  /** Scopes every token must carry. Default none. */
  scopes?: string[];
  /** The JWS algorithms accepted. Default every asymmetric one (RS*, PS*, ES*, EdDSA); never `none`, never HS*. */
  algorithms?: string[];
  /** How far `exp` and `nbf` may be off the host's clock, in seconds. Default 30. */
  clockSkewSeconds?: number;
  /** Opaque (non-JWT) tokens are checked at the issuer's RFC 7662 introspection endpoint with these credentials. */
  introspection?: OAuthIntrospectionConfig;
}

/** The host's own client credentials at the issuer's introspection endpoint; the secret from the environment or a file. */
export interface OAuthIntrospectionConfig {
  clientId: string;
  /** The environment variable holding the client secret. */
  clientSecretEnv?: string;
  /** A file holding the client secret (relative to the config's directory). */
  clientSecretFile?: string;
  /** The introspection endpoint. Default: the issuer metadata's `introspection_endpoint`. */
  endpoint?: string;
}

export interface ReloadConfig {
  /** Watch the config file and the plugins' package.json files. Default true. */
  watch?: boolean;
  /** Quiet time after the last change before a reload starts, in ms. Default 200. */
  debounceMs?: number;
  /** How long calls on a removed or replaced plugin may run before they are cancelled, in ms. Default 30 000. */
  drainTimeoutMs?: number;
}

/**
 * How the host starts and supervises the upstreams it does not run in
 * process: stdio children and remote servers.
 */
export interface UpstreamsConfig {
  /**
   * How long start-up and `check` wait for an upstream before going on without it, in ms; also how long an
   * in-process plugin's `create()` may take before the plugin is refused. Default 30 000.
   */
  startTimeoutMs?: number;
  /** The first wait before reconnecting a child that exited or a remote that dropped, in ms; doubles per failure. Default 500. */
  reconnectDelayMs?: number;
  /** The longest wait between reconnection attempts, in ms. Default 30 000. */
  maxReconnectDelayMs?: number;
  /** How often an idle remote is pinged to notice that it dropped, in ms; 0 turns pinging off. Default 15 000. */
  pingIntervalMs?: number;
  /** A worker plugin whose thread does not answer the host's heartbeat this long is terminated and restarted, in ms. Default 10 000. */
  heartbeatTimeoutMs?: number;
  /** How many upstreams one `sessions: 'per-client'` entry may hold open at once, one per client session. Default 16. */
  maxPerClientSessions?: number;
}

/**
 * Several replicas behind a load balancer, coordinated through Redis
 * (DESIGN.md, "Scale"). The shared signing key is MCP_HOST_CLUSTER_SECRET,
 * never in the file.
 */
export interface ClusterConfig {
  /** The Redis URL (redis:// or rediss://). Default: MCP_HOST_REDIS_URL. */
  redis?: string;
  /** Replicas with the same name form one cluster. Default "mcp-host". */
  name?: string;
  /** Where the other replicas reach this one (http:// or https://). Default: this replica's HTTP address. */
  advertise?: string;
  /** How long a replica waits for a Redis command before it does without, in ms. Default 1 000. */
  redisTimeoutMs?: number;
  /** 'none': Redis asks for no credentials, on purpose (a private network); otherwise a URL without them is refused. */
  redisAuth?: 'none';
}

export interface HostConfig {
  name?: string;
  version?: string;
  instructions?: string;
  protocolVersions?: string[];
  separator?: Separator;
  maxNameLength?: number;
  pageSize?: number;
  /** The isolation of every `package` entry that does not set its own. Default 'none'. */
  isolation?: Isolation;
  /** Shorten composed names over maxNameLength (a readable head and a hash) instead of refusing them. Default false. */
  shortenNames?: boolean;
  /** With mcp-host.lock.json beside the config: serve drifted definitions with a warning, or withhold them. Default 'warn'. */
  pins?: PinsPolicy;
  plugins: PluginEntry[];
  http?: HttpConfig;
  reload?: ReloadConfig;
  upstreams?: UpstreamsConfig;
  /** format: 'pretty' (human-readable) or 'json' lines; default pretty when stderr is a terminal, else json. */
  log?: { level?: LogLevel; format?: LogFormat };
  telemetry?: TelemetryConfig;
  cluster?: ClusterConfig;
  /** Who sees and may use what (docs/access.md); absent: every client, everything. */
  access?: AccessRule[];
  /** One JSON record per call, get, read, subscribe, completion and refusal (docs/access.md). */
  audit?: AuditConfig;
  /** How many tool calls an identity may make (docs/access.md); shared through Redis in a cluster. */
  limits?: LimitsConfig;
  /** List every tool, or a few and a search tool over the rest (docs/discovery.md). Default: mode 'all'. */
  discovery?: DiscoveryConfig;
  /** Virtual servers: named subsets of the catalogue, each at /mcp/NAME (docs/virtual-servers.md). */
  servers?: Record<string, VirtualServerConfig>;
}

/**
 * One virtual server (docs/virtual-servers.md): globs over served names
 * (tools, prompts) and URIs (resources, templates), per kind; a kind left
 * out has no members.
 */
export interface VirtualServerConfig {
  tools?: string[];
  prompts?: string[];
  resources?: string[];
  resourceTemplates?: string[];
  /** Skills (SEP-2640), by their `skill://` URI as served. */
  skills?: string[];
  /** Its `serverInfo.name`. Default: the host's name, '-', the server's. */
  name?: string;
  /** Its instructions. Default: the host's. */
  instructions?: string;
  /** Its discovery, over the host's (each key given replaces the host's). */
  discovery?: DiscoveryConfig;
}

/** How a client finds tools in a big catalogue (docs/discovery.md). */
export type DiscoveryMode = 'all' | 'search' | 'auto';

/**
 * Discovery for big catalogues: instead of every tool, a client lists the
 * always-visible ones and `search_tools`, and finds the rest by search.
 */
export interface DiscoveryConfig {
  /** 'all' lists every tool; 'search' lists alwaysVisible and the search tool; 'auto' searches above threshold tools. Default 'all'. */
  mode?: DiscoveryMode;
  /** 'auto' only: an identity that may use more tools than this is served search. Default 40 (Cursor's cap). */
  threshold?: number;
  /** Globs on served tool names always listed beside the search tool. Default none. */
  alwaysVisible?: string[];
  /** How many tools a search returns unless its `limit` says otherwise. Default 5. */
  results?: number;
  /** A 2025-era session's list keeps at most this many found tools; the oldest found goes first. Default 32. */
  maxSurfaced?: number;
}

/** Calls per minute per identity: over all tools (`default`), and per glob of composed tool names (`perTool`). */
export interface LimitsConfig {
  callsPerMinute?: { default?: number; perTool?: Record<string, number> };
  /** The tasks the host holds for its clients (docs/tasks.md). */
  tasks?: { maxTasks?: number; ttlMs?: number };
}

/**
 * Whom an access rule is for: every key given must match. Claims are an
 * OAuth token's; `token` is a static token's name (`http.auth` tokens as
 * `name:token`); `stdio` is the client on the host's own stdin and stdout.
 */
export interface AccessWho {
  sub?: string;
  client_id?: string;
  /** A scope the token grants. */
  scope?: string;
  /** Any one of these in the token's `groups` claim. */
  groups?: string[];
  /** Any one of these in the token's `roles` claim. */
  roles?: string[];
  token?: string;
  stdio?: boolean;
}

/** What the identities `who` matches see and may use: globs of composed names and of (normalised) URIs. */
export interface AccessRule {
  who: AccessWho;
  tools?: string[];
  prompts?: string[];
  /** Resource URIs and resource template URIs. */
  resources?: string[];
}

/** The audit log (host/audit/): a file of JSON lines, never stdout. */
export interface AuditConfig {
  /** The file written (relative to the config's directory). */
  file: string;
  /** Start a new file past `size` bytes, keeping `keep` old ones. */
  rotate?: { size: number; keep: number };
  /** Put a call's arguments in its record. Default false. */
  recordArguments?: boolean;
}

/** OpenTelemetry export (host/telemetry/): off unless this section or the standard OTEL_* environment asks. */
export interface TelemetryConfig {
  /** true: export even with no OTEL_* variable set; false: never, whatever the environment says. */
  enabled?: boolean;
  /** The OTLP/HTTP base URL (`/v1/traces`, `/v1/metrics` are added), when no OTEL_EXPORTER_OTLP_*ENDPOINT is set. Default http://localhost:4318. */
  endpoint?: string;
  /** service.name, when OTEL_SERVICE_NAME is not set. Default "mcp-host". */
  serviceName?: string;
  /** Put tool arguments and results on spans (gen_ai.tool.call.arguments/result). Default false. */
  recordArguments?: boolean;
}

/** A config after validation, with every default filled in. */
export interface ResolvedConfig {
  /** Absolute path of the config file (or of the package.json holding it). */
  file: string;
  /** The directory plugins are resolved from. */
  dir: string;
  name: string;
  version: string;
  instructions?: string;
  protocolVersions: string[];
  separator: Separator;
  maxNameLength: number;
  pageSize?: number;
  isolation: Isolation;
  shortenNames: boolean;
  pins: PinsPolicy;
  plugins: PluginEntry[];
  http?: Required<Pick<HttpConfig, 'host' | 'port'>> & Omit<HttpConfig, 'host' | 'port'>;
  reload: Required<ReloadConfig>;
  upstreams: Required<UpstreamsConfig>;
  /** format absent: the process's own default (pretty on a terminal, else json). */
  log: { level: LogLevel; format?: LogFormat };
  telemetry?: TelemetryConfig;
  /** Resolved at start (cluster/cluster-options.ts): its defaults come from the environment and the HTTP address. */
  cluster?: ClusterConfig;
  /** Absent without a discovery section: every tool is listed, as with mode 'all'. */
  discovery?: Required<DiscoveryConfig>;
  access?: AccessRule[];
  audit?: AuditConfig;
  limits?: LimitsConfig;
  /** Each server's discovery resolved over the host's (absent when neither sets one). */
  servers?: Record<string, Omit<VirtualServerConfig, 'discovery'> & { discovery?: Required<DiscoveryConfig> }>;
}
