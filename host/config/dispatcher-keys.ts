/**
 * Dispatcher-level settings (DESIGN.md, "Dispatcher-level settings are refused").
 *
 * There is one dispatcher and it is the host's: a plugin entry, manifest or
 * definition that tries to configure it is refused, naming the setting and
 * where it belongs. This is the only list of those keys; config validation,
 * manifest checks and definition checks all ask it.
 */
import type { Problem } from '../errors.js';
import { quotedChoices } from './problem-wording.js';

/** Each dispatcher-level key and what it configures, as messages name it. */
const DISPATCHER_LEVEL_SETTINGS = {
  tasks: 'task support',
  taskStore: 'the task store',
  sessionStore: 'the session store',
  eventStore: 'the event store',
  pageSize: 'the page size of lists',
  transport: 'the transport',
  http: 'HTTP serving',
  auth: 'authorization',
  log: 'logging',
  extensions: 'protocol extensions',
  cache: 'the cache policy',
} as const;

export type DispatcherLevelKey = keyof typeof DISPATCHER_LEVEL_SETTINGS;

export const DISPATCHER_LEVEL_KEYS = Object.keys(DISPATCHER_LEVEL_SETTINGS) as readonly DispatcherLevelKey[];

/** The dispatcher-level keys the host config offers today; the others are not supported yet. */
const OFFERED_BY_HOST_CONFIG: readonly DispatcherLevelKey[] = ['pageSize', 'http', 'log'];
/** The dispatcher-level keys the host config offers inside a section, not at its top level. */
const OFFERED_INSIDE: Partial<Record<DispatcherLevelKey, string>> = { auth: 'http.auth' };

export function isDispatcherLevelKey(key: string): key is DispatcherLevelKey {
  return Object.hasOwn(DISPATCHER_LEVEL_SETTINGS, key);
}

/**
 * The refusal of a dispatcher-level key set outside the host config's top
 * level. `setBy` names who set it: "plugin entry plugins[2]", "the package.json
 * of \"@acme/mcp-weather\"", …
 */
export function misplacedDispatcherKeyProblem(key: DispatcherLevelKey, where: string, setBy: string): Problem {
  const inside = OFFERED_INSIDE[key];
  const belongs = inside
    ? `set it as ${inside} in the host config`
    : OFFERED_BY_HOST_CONFIG.includes(key)
      ? 'set it at the top level of the host config, where it applies to every plugin'
      : `it belongs in the host config, and mcp-host does not offer "${key}" yet`;
  return {
    where,
    what: `"${key}" (${DISPATCHER_LEVEL_SETTINGS[key]}) is a dispatcher-level setting: there is one dispatcher, the host's, so ${setBy} cannot set it.`,
    fix: `remove "${key}" from ${setBy}; ${belongs}.`,
  };
}

/** The refusal of a dispatcher-level key at the host config's top level that the host does not offer there. */
export function unsupportedDispatcherKeyProblem(key: DispatcherLevelKey, where: string): Problem {
  const inside = OFFERED_INSIDE[key];
  if (inside) {
    return {
      where,
      what: `"${key}" (${DISPATCHER_LEVEL_SETTINGS[key]}) is set as ${inside}, not at the top level.`,
      fix: `move it into ${inside}.`,
    };
  }
  return {
    where,
    what: `"${key}" (${DISPATCHER_LEVEL_SETTINGS[key]}) is a dispatcher-level setting that mcp-host does not offer yet.`,
    fix: `remove it; the dispatcher-level settings the host config offers are ${quotedChoices(OFFERED_BY_HOST_CONFIG, 'and')}.`,
  };
}
