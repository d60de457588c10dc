import type { Mount } from '../mounts/mount.js';
import { TASKS_EXTENSION } from '../vocabulary/task-extension.js';

/** Whether `mount` offers the tasks extension: its 2026-07-28 capabilities name it under `extensions`. */
export function offersTasks(mount: Mount): boolean {
  const extensions = mount.capabilities.extensions as Record<string, unknown> | undefined;
  return mount.peer.speaksModern && extensions?.[TASKS_EXTENSION] !== undefined;
}
