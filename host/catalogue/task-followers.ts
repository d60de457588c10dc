import type { JSONRPCNotification } from '@modelcontextprotocol/server';
import type { Mount } from '../mounts/mount.js';
import type { TaskBinding } from './task-handles.js';

type Params = Record<string, unknown>;

/** One listen stream following one task, under the ID its client knows. */
interface Follower {
  readonly handle: string;
  tell(params: Params): void;
}

/**
 * Who follows which task's status (SEP-2663: a `subscriptions/listen`
 * naming `taskIds`). A mount's upstream is asked to tell of a task while at
 * least one stream follows it (mounts/modern-link.ts), and each of its
 * `notifications/tasks` about the task reaches each follower under the
 * host's ID, never the upstream's: two upstreams number their tasks alike.
 */
export class TaskFollowers {
  private readonly byMount = new Map<Mount, Map<string, Set<Follower>>>();

  /** Have `tell` hear task `binding`'s status under `handle`; the returned function stops it. */
  follow(binding: TaskBinding, handle: string, tell: (params: Params) => void): () => void {
    const { mount, upstreamId } = binding;
    let tasks = this.byMount.get(mount);
    if (!tasks) this.byMount.set(mount, (tasks = new Map()));
    let followers = tasks.get(upstreamId);
    if (!followers) {
      tasks.set(upstreamId, (followers = new Set()));
      mount.followTask(upstreamId, true);
    }
    const follower: Follower = { handle, tell };
    followers.add(follower);
    return () => {
      followers.delete(follower);
      if (followers.size > 0) return;
      tasks.delete(upstreamId);
      if (tasks.size === 0) this.byMount.delete(mount);
      mount.followTask(upstreamId, false);
    };
  }

  /** Pass a task notification `mount`'s upstream sent to the task's followers, each under its own ID. */
  tell(mount: Mount, notification: JSONRPCNotification): void {
    // The `_meta` names the upstream's listen stream, which means nothing to a client: each stream stamps its own.
    const { _meta: _upstreamStream, ...task } = (notification.params ?? {}) as Params;
    const followers = this.byMount.get(mount)?.get(String(task.taskId));
    for (const { handle, tell } of followers ?? []) tell({ ...task, taskId: handle });
  }
}
