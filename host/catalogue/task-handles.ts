import { randomBytes } from 'node:crypto';
import { ErrorCode, RpcError } from '../rpc-error.js';
import type { Mount } from '../mounts/mount.js';
import { withOwner } from '../vocabulary/continuation-owner.js';

/** What a client-facing task ID stands for: the mount that created the task, and the task's ID there. */
export interface TaskBinding {
  readonly mount: Mount;
  readonly upstreamId: string;
}

interface Held extends TaskBinding {
  /** Who started the task (identity kind and name): nobody else may follow it up. */
  readonly owner: string;
  /** How long the handle outlives its last sight: the task's own `ttlMs`, else `limits.tasks.ttlMs`. */
  readonly ttlMs: number;
  expires: number;
}

/** `limits.tasks` in the host config. */
export interface TaskLimits {
  /** How many handles a host holds at once: each is a few hundred bytes, and a client could start tasks without end. */
  readonly maxTasks: number;
  /** How long a handle outlives its last sight when its task gives no `ttlMs` of its own (or `null`, unlimited). */
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
    /** The live config's `limits.tasks`, read at each use: a reload that changes them applies at once. */
    private readonly configured: () => Partial<TaskLimits> | undefined,
  ) {}

  private get limits(): TaskLimits {
    return { ...TASK_LIMITS, ...this.configured() };
  }

  /** A new handle for `upstreamId` on `mount`, started by `owner`; refused past `maxTasks` live handles. */
  issue(binding: TaskBinding, owner: string, ttlMs: unknown): string {
    this.forgetExpired();
    const { maxTasks } = this.limits;
    if (this.held.size >= maxTasks) {
      throw new RpcError(
        ErrorCode.InternalError,
        `mcp-host holds ${maxTasks} tasks, the limit limits.tasks.maxTasks in its config: the task mount "${binding.mount.name}" started was not handed out. Fix: call again once tasks have expired, or raise limits.tasks.maxTasks.`,
      );
    }
    // Named like a requestState's owner, so the cluster forwards a follow-up landing elsewhere the same way (serve/forward-continuation.ts).
    const handle = withOwner(this.replica(), randomBytes(16).toString('base64url'));
    // The task's own ttlMs is honoured (SEP-2663: it stays reachable that long); maxTasks bounds what that holds.
    const kept = typeof ttlMs === 'number' && Number.isFinite(ttlMs) && ttlMs > 0 ? ttlMs : this.limits.ttlMs;
    this.held.set(handle, { ...binding, owner, ttlMs: kept, expires: Date.now() + kept });
    return handle;
  }

  /** What `handle` stands for, when `owner` started it and it has not expired; undefined otherwise. */
  bindingOf(handle: unknown, owner: string): TaskBinding | undefined {
    const held = typeof handle === 'string' ? this.held.get(handle) : undefined;
    return held && held.owner === owner && held.expires > Date.now() ? held : undefined;
  }

  /** What `handle` stands for, when `owner` started it and it has not expired. */
  resolve(handle: unknown, owner: string): TaskBinding {
    const held = this.bindingOf(handle, owner) as Held | undefined;
    if (!held) {
      throw new RpcError(
        ErrorCode.InvalidParams,
        `Unknown task ${JSON.stringify(handle)}: mcp-host handed out no such task to this client, or it expired. Fix: use a taskId from a tools/call result of this client's.`,
      );
    }
    held.expires = Date.now() + held.ttlMs;
    return held;
  }

  private forgetExpired(): void {
    const now = Date.now();
    for (const [handle, held] of this.held) if (held.expires <= now) this.held.delete(handle);
  }
}
