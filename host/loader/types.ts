/**
 * A plugin entry after resolution and every check that needs no plugin code:
 * what the mount layer needs to start it. Produced by `resolve-plugins.ts`.
 */
import type { ForwardedHeader } from '../config/forward-headers.js';
import type { Isolation, ItemCuration, ResourceCuration } from '../config/types.js';

/** An entry's curation keys: what of its mount is served (see catalogue/curation.ts). */
export interface CurationConfig {
  tools?: ItemCuration;
  prompts?: ItemCuration;
  resources?: ResourceCuration;
}

/** The `"mcp-host"` field of a plugin's package.json, after checking. */
export interface PluginManifest {
  /** MCP revisions the plugin accepts; absent means every revision. */
  protocolVersions?: string[];
  /** The prefix used when the config entry names neither `prefix` nor `flat`. */
  prefix?: string;
}

interface SpecBase {
  /** Position in the config's `plugins` array. */
  index: number;
  /** The config path of the entry, for messages: `plugins[2]`. */
  path: string;
  /** A human name for messages and logs: the package name, the command, or the URL. */
  label: string;
  /** The mount's prefix; undefined for a flat mount. */
  prefix?: string;
  flat: boolean;
  /** Per-request timeout towards the mount, in ms. */
  timeoutMs: number;
  /** The largest result the mount may answer with, serialised, in bytes. */
  maxResultBytes: number;
  /** How many pages of one list the host follows before refusing the mount's pagination. */
  maxListPages: number;
  /** The client headers passed on with each request a client makes (none unless the entry asks). */
  forwardHeaders: ForwardedHeader[];
  /**
   * What of the mount is served. Not part of the fingerprint: curation is
   * applied per generation, so editing it keeps the plugin's instance.
   */
  curation: CurationConfig;
  /**
   * Equal fingerprints mean "the same plugin": same package, version, entry
   * file and config entry. A reload keeps the live instance of a plugin whose
   * fingerprint did not change.
   */
  fingerprint: string;
}

/** An mcp-host plugin package: imported and created in this process. */
export interface InProcessSpec extends SpecBase {
  kind: 'in-process';
  packageName: string;
  version: string;
  /** Absolute directory of the package (where its package.json is). */
  packageDir: string;
  /** Absolute path of the module the package exports. */
  entryFile: string;
  manifest: PluginManifest;
  options: Record<string, unknown>;
  /** Where it runs: in the host's thread, a worker thread, or a process of its own (see mounts/isolation/). */
  isolation: Isolation;
  /** A worker's heap limit, or a process's resident memory limit, in MiB. */
  memoryLimitMb: number;
  /** At 'process' and 'sandbox': what it may do beyond reading its package. */
  grants: Grants;
}

/** An entry's `allow`, with its paths made absolute (from the config's directory) and every default filled in. */
export interface Grants {
  read: string[];
  write: string[];
  env: string[];
  net: boolean;
  childProcess: boolean;
}

/** An MCP server run as a stdio child: a server package's bin or a command. */
export interface StdioSpec extends SpecBase {
  kind: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** Set when the server came from a package (its package.json is watched for upgrades). */
  packageDir?: string;
  /** Set for a `sandbox: true` command: it runs inside bubblewrap with these grants (mounts/isolation/sandbox.ts). */
  sandbox?: Grants;
  /** Set when each client session gets a child of its own for its requests (mounts/per-client-upstreams.ts). */
  perClient?: true;
}

/** A Streamable HTTP MCP server. */
export interface RemoteSpec extends SpecBase {
  kind: 'remote';
  url: string;
  headers: Record<string, string>;
  /** Set when each client session gets an upstream session of its own for its requests (mounts/per-client-upstreams.ts). */
  perClient?: true;
  /** The entry's `auth`, its credential read: how the host gets its tokens for this server. */
  auth?: UpstreamCredentials;
}

/** A url entry's OAuth client, as the mount uses it (config/upstream-auth.ts checked the entry). */
export interface UpstreamCredentials {
  /** The host's own token for every request, or each caller's token exchanged (RFC 8693) for its calls. */
  mode: 'clientCredentials' | 'tokenExchange';
  clientId: string;
  /** A client secret, or a private key that signs a private_key_jwt assertion. */
  secret: { kind: 'clientSecret'; value: string } | { kind: 'privateKey'; pem: string; algorithm: string };
  scopes?: string[];
  tokenUrl?: string;
  /** The only authorization server the credential may be sent to. */
  issuer?: string;
  resource?: string;
  audience?: string;
}

export type PluginSpec = InProcessSpec | StdioSpec | RemoteSpec;
