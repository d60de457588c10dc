import type { Mount } from '../mounts/mount.js';
import { isPlainObject } from '../plain-object.js';
import { APPS_EXTENSION, SKILLS_EXTENSION } from '../vocabulary/served-uris.js';

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

/** Whether a mount lists a tool whose `_meta` names a UI resource (either spelling SEP-1865 allows). */
function namesAnApp(mount: Mount): boolean {
  return mount.items.tools.some((tool) => {
    const meta = tool._meta;
    return isPlainObject(meta) && (isPlainObject(meta.ui) || typeof meta['ui/resourceUri'] === 'string');
  });
}
