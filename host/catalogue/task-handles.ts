import { randomBytes } from 'node:crypto';
import { ErrorCode, RpcError } from '../rpc-error.js';
import type { Mount } from '../mounts/mount.js';

/** What a client-facing task ID stands for: the mount that created the task, and the task's ID there. */
export interface TaskBinding {
  readonly mount: Mount;
  readonly upstreamId: string;
}

interface Held extends TaskBinding {
  /** Who started the task (identity kind and name): nobody else may follow it up. */
  readonly owner: string;
  /** When the handle may be forgotten: the task's own `ttlMs` after its last sight, or the host's TTL. */
  expires: number;
}

export interface TaskLimits {
  /** How many handles a host holds at once: each is a few hundred bytes, and a client could start tasks without end. */
  readonly maxTasks: number;
  /** How long a handle outlives its last sight when its task names no longer `ttlMs`. */
  readonly ttlMs: number;
}

export const TASK_LIMITS: TaskLimits = { maxTasks: 10_000, ttlMs: 60 * 60_000 };

/**
 * The task IDs clients see. Two upstreams count their tasks the same way
 * (`1`, `2`, ...), so an upstream's ID is never shown: each task gets a
 * handle `mcph.<replica>.<random>`, bound to the mount and the identity that
 * started it. The replica part lets a load balancer send follow-ups (whose
 * `Mcp-Name` header carries the ID) to the replica holding the binding; the
 * 128 random bits make another client's task unguessable, and a handle
 * presented by another identity is answered as unknown, word for word.
 */
export class TaskHandles {
  private readonly held = new Map<string, Held>();

  constructor(
    private readonly replica: () => string,
    private readonly limits: TaskLimits = TASK_LIMITS,
  ) {}

  /** A new handle for `upstreamId` on `mount`, started by `owner`; refused past `maxTasks` live handles. */
  issue(binding: TaskBinding, owner: string, ttlMs: unknown): string {
    this.forgetExpired();
    if (this.held.size >= this.limits.maxTasks) {
      throw new RpcError(
        ErrorCode.InternalError,
        `mcp-host holds ${this.limits.maxTasks} tasks, its limit: the task mount "${binding.mount.name}" started was not handed out. Fix: let tasks finish and expire (an hour after they were last seen, or their own ttlMs), or spread clients over more replicas.`,
      );
    }
    const handle = `mcph.${this.replica()}.${randomBytes(16).toString('base64url')}`;
    this.held.set(handle, { ...binding, owner, expires: this.expiry(ttlMs) });
    return handle;
  }

  /** What `handle` stands for, when `owner` started it and it has not expired. */
  resolve(handle: unknown, owner: string, ttlMs?: unknown): TaskBinding {
    const held = typeof handle === 'string' ? this.held.get(handle) : undefined;
    if (!held || held.owner !== owner || held.expires <= Date.now()) {
      throw new RpcError(
        ErrorCode.InvalidParams,
        `Unknown task ${JSON.stringify(handle)}: mcp-host handed out no such task to this client, or it expired. Fix: use a taskId from a tools/call result of this client's.`,
      );
    }
    if (ttlMs !== undefined) held.expires = this.expiry(ttlMs);
    return held;
  }

  private expiry(ttlMs: unknown): number {
    const own = typeof ttlMs === 'number' && Number.isFinite(ttlMs) && ttlMs > 0 ? ttlMs : 0;
    return Date.now() + Math.max(own, this.limits.ttlMs);
  }

  private forgetExpired(): void {
    const now = Date.now();
    for (const [handle, held] of this.held) if (held.expires <= now) this.held.delete(handle);
  }
}
