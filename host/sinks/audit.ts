/**
 * The audit log as the layers see it (docs/access.md): one record per call,
 * get, read, subscribe, completion and refusal. `audit/audit-log.ts`
 * implements it and `commands/start.ts` installs it when the config has an
 * `audit` section; until then every record is dropped unmade (callers ask
 * `auditOn()` before they measure anything).
 */

/** One audited request or refusal, as written (one JSON line). */
export interface AuditRecord {
  /** When the request arrived (ISO 8601). */
  time: string;
  identity: { name: string; kind: string };
  /** The MCP session (a 2025-era HTTP session's id), when there is one. */
  session?: string;
  /** The client's own name (clientInfo.name), when it gave one. */
  client?: string;
  /** The JSON-RPC method, or `http` for a refusal before any request was read. */
  method: string;
  /** The tool or prompt name, the URI or template: what the request is about. */
  target?: string;
  /** The mount that serves the target, when one does. */
  mount?: string;
  /** What the access rules (and limits) decided. */
  decision: 'allow' | 'deny' | 'refuse';
  /** The rule that allowed it (its index in `access`), or the limit or check that refused it. */
  rule?: number | string;
  /** `ok`, `tool_error` (a tool result with isError), or `error` with `code`. */
  outcome: 'ok' | 'tool_error' | 'error';
  /** A JSON-RPC error code, or an HTTP status for a refusal at the door. */
  code?: number;
  durationMs: number;
  traceId?: string;
  /** Only with `audit.recordArguments: true`. */
  arguments?: unknown;
}

/** What the audit log's implementation offers. */
export interface AuditLog {
  /** Whether records carry a call's arguments (`audit.recordArguments`). */
  readonly recordsArguments: boolean;
  write(record: AuditRecord): void;
  /** Flush what is buffered and close the file. */
  close(): Promise<void>;
}

let active: AuditLog | undefined;

/** Wire in the audit log (commands/start.ts); undefined takes it out. */
export function installAuditLog(log: AuditLog | undefined): void {
  active = log;
}

/** Whether requests are audited: nothing is measured or made for the log otherwise. */
export function auditOn(): boolean {
  return active !== undefined;
}

export function recordsArguments(): boolean {
  return active?.recordsArguments ?? false;
}

export function audit(record: AuditRecord): void {
  active?.write(record);
}

/** Flush and close the audit log (shutdown). */
export async function stopAuditLog(): Promise<void> {
  const stopping = active;
  active = undefined;
  await stopping?.close();
}
