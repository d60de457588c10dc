import type { Grants } from '../../loader/types.js';

/**
 * Node's permission model turned on (`--permission` from Node 22, before it
 * `--experimental-permission`): with it, a process may read and write
 * only the paths it is given, and starts no child process, worker thread,
 * native addon or WASI module unless a flag allows it.
 */
const PERMISSION_FLAG = process.allowedNodeEnvironmentFlags.has('--permission')
  ? '--permission'
  : '--experimental-permission';

/**
 * The Node flags a plugin's process starts with: the permission model,
 * reading `readable` and what the entry grants, writing only what it
 * grants; child processes only when granted (worker threads and native
 * addons never: a worker would share the plugin's limits anyway, and an
 * addon runs outside every rule); its V8 heap within `memoryLimitMb`, so
 * that a runaway heap ends with V8's own report before the host's
 * resident-memory watch has to end it (memory-watch.ts).
 */
export function permissionFlags(readable: readonly string[], grants: Grants, memoryLimitMb: number): string[] {
  return [
    PERMISSION_FLAG,
    ...[...readable, ...grants.read].map((path) => `--allow-fs-read=${path}`),
    ...grants.write.map((path) => `--allow-fs-write=${path}`),
    ...(grants.childProcess ? ['--allow-child-process'] : []),
    `--max-old-space-size=${memoryLimitMb}`,
    // The permission model's "experimental" warning is the host's business, not a line in the plugin's log
    // (the flag is Node 20.11's; before it, the warning is logged).
    ...(process.allowedNodeEnvironmentFlags.has('--disable-warning') ? ['--disable-warning=ExperimentalWarning'] : []),
  ];
}

/**
 * A plugin process's whole environment: the variables its entry names
 * (`allow.env`), with the values the host has, and nothing else, so that
 * neither its `process.env` nor its `/proc/self/environ` holds the host's
 * secrets.
 */
export function pluginEnvironment(grants: Grants): NodeJS.ProcessEnv {
  return Object.fromEntries(
    grants.env.flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]]])),
  );
}

/**
 * The fix for a plugin that reached past its permissions (Node's
 * ERR_ACCESS_DENIED, naming the path when it was a file): grant it, if it
 * should have it.
 */
export function grantFix(resource: string | undefined, more = ''): string {
  const what = resource ? ` (${resource})` : '';
  return `it reached for what its entry does not grant${what}: if it should, grant it in the entry's allow (read, write, childProcess)${more}.`;
}

/**
 * A refusal's text without the hint Node 24 appends to it ("Use --allow-fs-read to manage permissions."): the
 * flags are the host's to pass, and the operator's fix is the entry's `allow`, which `grantFix` names.
 */
export function withoutFlagHint(text: string): string {
  return text.replace(/ Use --allow-[a-z-]+ to manage permissions\./g, '');
}

/** The permission model's refusal among `error` and its causes, if one is. */
export function accessDenied(error: unknown): { resource?: string } | undefined {
  for (let e = error; e instanceof Error; e = e.cause) {
    const { code, resource } = e as { code?: unknown; resource?: unknown };
    if (code === 'ERR_ACCESS_DENIED') return typeof resource === 'string' && resource !== '' ? { resource } : {};
  }
  return undefined;
}
