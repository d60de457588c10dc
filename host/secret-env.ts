/**
 * The host's secrets in its environment (bearer tokens), kept from plugin
 * code (DESIGN.md, "Containment"): in-process plugins share `process.env`,
 * so a variable the host reads is removed from it the first time it is read,
 * before any plugin is imported, and its value kept here for the host's
 * later reads (a reload re-reads the config, never the environment).
 * Children never see them either: they get a minimal environment plus what
 * their entry gives (stdio-child.ts).
 */
/** The environment variable holding the accepted bearer tokens, comma-separated, unless `http.auth.tokensEnv` names another. */
export const TOKENS_ENV = 'MCP_HOST_HTTP_TOKENS';
/** The environment variable holding the cluster's shared key (DESIGN.md, "Scale"): never in the config file. */
export const CLUSTER_SECRET_ENV = 'MCP_HOST_CLUSTER_SECRET';
/** Or the environment variable naming a file that holds it, out of the environment plugin code can read (secret-file.ts). */
export const CLUSTER_SECRET_FILE_ENV = 'MCP_HOST_CLUSTER_SECRET_FILE';

const withheld = new Map<string, string | undefined>();

/** The value `name` had in the host's environment, which no longer has it. */
export function takeSecretEnv(name: string): string | undefined {
  if (!withheld.has(name)) {
    withheld.set(name, process.env[name]);
    delete process.env[name];
  }
  return withheld.get(name);
}

/**
 * Withhold every variable the host may read its secrets from (the config's
 * `http.auth.tokensEnv` and `http.oauth.introspection.clientSecretEnv`,
 * MCP_HOST_HTTP_TOKENS, MCP_HOST_CLUSTER_SECRET and the file
 * MCP_HOST_CLUSTER_SECRET_FILE names), before the config's plugins are
 * imported.
 */
export function withholdTokenVariables(
  auth: { tokensEnv?: string } | 'none' | undefined,
  introspectionSecretEnv?: string,
): void {
  takeSecretEnv(TOKENS_ENV);
  if (introspectionSecretEnv !== undefined) takeSecretEnv(introspectionSecretEnv);
  takeSecretEnv(CLUSTER_SECRET_ENV);
  takeSecretEnv(CLUSTER_SECRET_FILE_ENV);
  if (auth !== 'none' && auth?.tokensEnv !== undefined) takeSecretEnv(auth.tokensEnv);
}
