import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ResolvedConfig } from '../config/types.js';
import type { AuditRecord } from '../sinks/audit.js';
import { html, table, type Html } from './html.js';

/** How much of the end of the audit file is read: the tail, not the history (the file is for that). */
const TAIL_BYTES = 1024 * 1024;
/** How many matching records are shown, newest first. */
const SHOWN = 200;
const DECISIONS = ['allow', 'deny', 'refuse'] as const;

/** The filters of the audit page, as its form sends them. */
export interface AuditFilters {
  /** A part of the identity's name (or `kind:name`). */
  identity?: string;
  /** A part of the target: a tool or prompt name, a URI. */
  tool?: string;
  decision?: string;
}

/** The last records of the audit file that match the filters, newest first. */
export async function auditTail(file: string, filters: AuditFilters): Promise<AuditRecord[]> {
  let text: string;
  const handle = await open(file, 'r').catch((error: NodeJS.ErrnoException) => {
    // No record was written yet: the file is made by the first.
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (!handle) return [];
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - TAIL_BYTES);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    text = buffer.toString('utf8');
    // A read from the middle of the file starts inside a record: that record is not whole.
    if (start > 0) text = text.slice(text.indexOf('\n') + 1);
  } finally {
    await handle.close();
  }
  const matching: AuditRecord[] = [];
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0 && matching.length < SHOWN; i--) {
    const record = parsed(lines[i]!);
    if (record && matches(record, filters)) matching.push(record);
  }
  return matching;
}

function parsed(line: string): AuditRecord | undefined {
  if (line.trim() === '') return undefined;
  try {
    return JSON.parse(line) as AuditRecord;
  } catch {
    // A record cut short (a crash, a full disk) is skipped, not the whole page.
    return undefined;
  }
}

function matches(record: AuditRecord, { identity, tool, decision }: AuditFilters): boolean {
  const who = `${record.identity?.kind}:${record.identity?.name}`;
  if (identity && !who.includes(identity)) return false;
  if (tool && !(record.target ?? '').includes(tool)) return false;
  return !decision || record.decision === decision;
}

/** The audit page: the filters, then the records (never a call's arguments, even when the log records them). */
export async function auditBody(config: ResolvedConfig, filters: AuditFilters): Promise<Html> {
  if (!config.audit) {
    return html`<p class="notice">
      The audit log is off: add <code>audit: { file: 'audit.log' }</code> to ${config.file} to record every call, get,
      read and refusal.
    </p>`;
  }
  const file = resolve(config.dir, config.audit.file);
  const records = await auditTail(file, filters);
  const rows = records.map(
    (record) =>
      html`<tr>
        <td>${record.time}</td>
        <td>${record.identity?.kind} ${record.identity?.name}</td>
        <td>${record.method}</td>
        <td><code>${record.target ?? ''}</code></td>
        <td>${record.mount ?? ''}</td>
        <td class="${record.decision}">${record.decision}</td>
        <td>${record.rule ?? ''}</td>
        <td class="${record.outcome}">${record.outcome}${record.code !== undefined && ` ${record.code}`}</td>
        <td>${record.durationMs}</td>
      </tr>`,
  );
  return html`<form class="filters" method="get" action="/admin/audit">
      <label>Identity <input name="identity" value="${filters.identity ?? ''}" placeholder="alice, token:ci" /></label>
      <label>Tool <input name="tool" value="${filters.tool ?? ''}" placeholder="notes.add" /></label>
      <label
        >Decision
        <select name="decision">
          <option value="">any</option>
          ${DECISIONS.map(
            (decision) => html`<option${filters.decision === decision ? html` selected` : ''}>${decision}</option>`,
          )}
        </select></label
      >
      <button>Filter</button>
    </form>
    <p class="muted">
      ${file}: the last ${records.length} matching record(s) of its last ${TAIL_BYTES / 1024} KiB, newest first
    </p>
    ${table('audit', ['Time', 'Identity', 'Method', 'Target', 'Mount', 'Decision', 'Rule', 'Outcome', 'ms'], rows)}`;
}
