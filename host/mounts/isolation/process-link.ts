/**
 * The link between the host and a plugin's own process (process-channel.ts
 * on the host's side, process-entry.ts on the plugin's): one JSON object a
 * line, over a pipe on the plugin process's fd 3. What crosses is what
 * crosses a worker's port (worker-channel.ts), plus the start, which a
 * worker gets as its `workerData`, and the plugin logger's records, which
 * a worker writes to stderr itself.
 */
import type { FromWorker, ToWorker, WorkerStart } from './worker-channel.js';

/** The file descriptor of the link in the plugin's process: 0–2 are its own stdin, stdout and stderr. */
export const LINK_FD = 3;

/** Host → plugin process: first its start, then what a worker is sent. */
export type ToProcess = { type: 'start'; start: ProcessStart } | ToWorker;

/** Plugin process → host: what a worker sends, and its logger's records. */
export type FromProcess = FromWorker | { type: 'log'; record: Record<string, unknown> };

/** What a plugin process needs to start its plugin: a worker's start, and the bound its answers must keep to. */
export interface ProcessStart extends WorkerStart {
  maxLineBytes: number;
}
