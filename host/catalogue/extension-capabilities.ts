import type { Mount } from '../mounts/mount.js';
import { isPlainObject } from '../plain-object.js';
import type { ListItem } from '../vocabulary/list-kinds.js';
import { APPS_EXTENSION, SKILLS_EXTENSION, uiResourceOf } from '../vocabulary/served-uris.js';

type Settings = Record<string, unknown>;

/**
 * The extensions the host advertises (`capabilities.extensions`) for MCP
 * Apps and Skills: each only when some mount offers it (DESIGN.md,
 * "Protocol extensions through the host"), or undefined when none does.
 *
 * - `io.modelcontextprotocol/ui` when a mount declares it, with the first
 *   declaring mount's settings, or serves a tool that names a `ui://`
 *   resource (SEP-1865 servers need not declare it: a client finds apps by
 *   the tools' `_meta.ui`);
 * - `io.modelcontextprotocol/skills` when a mount declares it, with
 *   `directoryRead: true` when one of those does (the host then routes
 *   `resources/directory/read` to the mounts that declared it).
 */
export function extensionCapabilities(mounts: readonly Mount[]): Record<string, Settings> | undefined {
  const extensions: Record<string, Settings> = {};
  const apps = mounts.map((mount) => declared(mount, APPS_EXTENSION)).find((settings) => settings !== undefined);
  if (apps ?? mounts.some(namesAnApp)) extensions[APPS_EXTENSION] = apps ?? {};
  const skills = mounts.map(skillsSettingsOf).filter((settings) => settings !== undefined);
  if (skills.length > 0) {
    extensions[SKILLS_EXTENSION] = skills.some((settings) => settings.directoryRead === true)
      ? { directoryRead: true }
      : {};
  }
  return Object.keys(extensions).length > 0 ? extensions : undefined;
}

/** A mount's settings of the Skills extension (`directoryRead`), when it declared the extension. */
export function skillsSettingsOf(mount: Mount): Settings | undefined {
  return declared(mount, SKILLS_EXTENSION);
}

function declared(mount: Mount, extension: string): Settings | undefined {
  const settings = (mount.capabilities as { extensions?: Record<string, unknown> }).extensions?.[extension];
  return isPlainObject(settings) ? settings : undefined;
}

/**
 * Whether a mount's tools name UIs, by the tools list it was judged on: a
 * 2026-07-28 client's request builds a front server (and its capabilities)
 * of its own, and a mount's drained list is replaced, never changed, when
 * it is refreshed.
 */
const appsNamed = new WeakMap<readonly ListItem[], boolean>();

/** Whether a mount lists a tool whose `_meta` names a UI resource (either spelling SEP-1865 allows). */
function namesAnApp(mount: Mount): boolean {
  const tools = mount.items.tools;
  let named = appsNamed.get(tools);
  if (named === undefined) {
    named = tools.some((tool) => uiResourceOf(tool) !== undefined);
    appsNamed.set(tools, named);
  }
  return named;
}
