import { audit, auditOn } from '../sinks/audit.js';

/**
 * The audit record of a request refused at the door, before any JSON-RPC
 * message was read (a missing or wrong bearer token): no one is known yet,
 * so the identity is `unauthenticated`; `rule` names the check that refused
 * it and `code` the HTTP status answered.
 */
export function auditRefusal(path: string, status: number, rule: string): void {
  if (!auditOn()) return;
  audit({
    time: new Date().toISOString(),
    identity: { name: 'unauthenticated', kind: 'none' },
    method: 'http',
    target: path,
    decision: 'refuse',
    rule,
    outcome: 'error',
    code: status,
    durationMs: 0,
  });
}
