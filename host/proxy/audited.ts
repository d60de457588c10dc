import { CLIENT_INFO_META_KEY, ProtocolError, type Server, type ServerContext } from '@modelcontextprotocol/server';
import type { Generation } from '../catalogue/generation.js';
import { accessViewOf, type Decision } from '../catalogue/access-rules.js';
import { SEARCH_TOOL_NAME } from '../catalogue/search-tool-name.js';
import { RpcError } from '../rpc-error.js';
import { audit, auditOn, recordsArguments, type AuditRecord } from '../sinks/audit.js';
import { currentTraceId } from '../sinks/telemetry.js';
import { identityOf } from '../vocabulary/identity.js';
import { CallLimited } from './call-limits.js';
import { searchServed } from './tool-discovery.js';

type Params = Record<string, unknown>;
type Result = Record<string, unknown>;

/** The requests audited, and what each is about: a name (tools, prompts) or a URI. */
const TARGETS: Record<string, (params: Params) => { kind: 'tools' | 'prompts' | 'resources'; target: string }> = {
  'tools/call': (params) => ({ kind: 'tools', target: String(params.name) }),
  'prompts/get': (params) => ({ kind: 'prompts', target: String(params.name) }),
  'resources/read': (params) => ({ kind: 'resources', target: String(params.uri) }),
  'resources/subscribe': (params) => ({ kind: 'resources', target: String(params.uri) }),
  'resources/unsubscribe': (params) => ({ kind: 'resources', target: String(params.uri) }),
  // The Skills extension's (SEP-2640): a skill and a directory are judged by URI, as resources are.
  'skills/get': (params) => ({ kind: 'resources', target: String(params.uri) }),
  'resources/directory/read': (params) => ({ kind: 'resources', target: String(params.uri) }),
  'completion/complete': (params) => {
    const ref = (params.ref ?? {}) as { type?: string; name?: unknown; uri?: unknown };
    return ref.type === 'ref/prompt'
      ? { kind: 'prompts', target: String(ref.name) }
      : { kind: 'resources', target: String(ref.uri) };
  },
};

/** Whether a method's requests are audited. */
export function isAudited(method: string): boolean {
  return Object.hasOwn(TARGETS, method);
}

/**
 * Serve one request with `work` and, when the audit log is on, write its
 * record once it is answered: who asked (identity, session, client), what
 * for, which rule allowed it (or that none did), the mount that serves it,
 * the outcome and how long it took. With the log off this is `work()`
 * itself, adding no promise to the call.
 */
export function audited(
  generation: Generation,
  server: Server,
  ctx: ServerContext,
  method: string,
  params: Params,
  work: () => Promise<Result>,
): Promise<Result> {
  if (!auditOn()) return work();
  const started = performance.now();
  const time = new Date().toISOString();
  const traceId = currentTraceId();
  const record = (outcome: Pick<AuditRecord, 'outcome' | 'code'> & Partial<Pick<AuditRecord, 'decision' | 'rule'>>) =>
    audit({
      time,
      ...who(generation, server, ctx, method, params),
      ...outcome,
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
      ...(traceId !== undefined && { traceId }),
      ...(recordsArguments() && params.arguments !== undefined && { arguments: params.arguments }),
    });
  return (async () => {
    try {
      const result = await work();
      record({ outcome: result.isError === true ? 'tool_error' : 'ok' });
      return result;
    } catch (error) {
      // A call a limit refused was allowed by the rules and refused by the limit: the record names the limit.
      const limited: Partial<AuditRecord> =
        error instanceof CallLimited ? { decision: 'refuse', rule: error.limit } : {};
      record({ outcome: 'error', ...(codeOf(error) !== undefined && { code: codeOf(error) }), ...limited });
      throw error;
    }
  })();
}

/** The record's who, what and which rule. */
function who(
  generation: Generation,
  server: Server,
  ctx: ServerContext,
  method: string,
  params: Params,
): Pick<AuditRecord, 'identity' | 'session' | 'client' | 'method' | 'target' | 'mount' | 'decision' | 'rule'> {
  const identity = identityOf(ctx);
  const { kind, target } = TARGETS[method]!(params);
  const view = accessViewOf(generation.config, identity);
  const decision: Decision | undefined =
    kind === 'resources'
      ? (view.decide('resources', target) ?? view.decide('resourceTemplates', target))
      : view.decide(kind, target);
  // The search tool is the host's own, no rule's to allow: every client served search may call it.
  const search =
    method === 'tools/call' && target === SEARCH_TOOL_NAME && searchServed(generation, identity) !== undefined;
  const allowed = generation.config.access === undefined || decision !== undefined || search;
  const mount = allowed ? generation.index.owners[kind].get(target)?.mount.name : undefined;
  // A 2026-07-28 client names itself in each request's _meta; a 2025-era one once, at initialize.
  const carried = ctx.mcpReq._meta?.[CLIENT_INFO_META_KEY] as { name?: string } | undefined;
  const client = server.getClientVersion()?.name ?? carried?.name;
  return {
    identity: { name: identity.name, kind: identity.kind },
    ...(ctx.sessionId !== undefined && { session: ctx.sessionId }),
    ...(client !== undefined && { client }),
    method,
    target,
    ...(mount !== undefined && { mount }),
    decision: allowed ? 'allow' : 'deny',
    ...(decision && { rule: decision.index }),
  };
}

function codeOf(error: unknown): number | undefined {
  return error instanceof RpcError || error instanceof ProtocolError ? error.code : undefined;
}
