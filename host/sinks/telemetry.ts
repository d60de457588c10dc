import type { Server, ServerContext } from '@modelcontextprotocol/server';
import type { ChangedList } from '../vocabulary/list-kinds.js';
import type { CallHooks } from '../vocabulary/call-hooks.js';
import type { Problem } from '../errors.js';

type Params = Record<string, unknown>;

/** A reload's outcome as telemetry records it (reload/reloader.ts's ReloadOutcome is one). */
export type ReloadRecord =
  | { ok: true; generation: number; ms: number }
  | { ok: false; generation: number; ms: number; problems: readonly Problem[] };

/** A mount whose state changed, as telemetry records it (mounts/mount.ts's Mount is one). */
export interface MountStateRecord {
  readonly name: string;
  readonly spec: { readonly kind: string };
  readonly state: string;
  readonly outage?: { readonly cause: string };
}

/** A request the host makes of a mount, as its client span sees it. */
export interface UpstreamRequest {
  /** The mount's name (the peer's label). */
  mount: string;
  method: string;
  id: number;
  params: Params | undefined;
  hooks: CallHooks;
}

/** What a traced upstream request sends instead, and how its answer ends the span. */
export interface TracedUpstreamRequest {
  /** The params with the client span's context in `_meta`. */
  params: Params;
  /** The hooks, wrapped so that progress and mid-call requests stay in the trace. */
  hooks: CallHooks;
  follow(answer: Promise<Params>): Promise<Params>;
}

/** A request the SDK's serving entry answers itself (a `subscriptions/listen`), before any handler sees it. */
export interface EntryRequest {
  method: string;
  /** Absent from a body too malformed to have one (the SDK refuses it). */
  id?: string | number;
  params: Params | undefined;
  /** The HTTP request's headers; none over stdio. */
  headers?: Headers;
}

/** Ends an entry-answered request's span: with the JSON-RPC error it was refused with, if it was. */
export type EntryAnswered = (error?: { code: number; message: string }) => void;

/**
 * The host's instrumentation, as the rest of the host calls it. Only
 * `telemetry/open-telemetry.ts` implements it, and only that module imports the
 * OpenTelemetry SDK: it is loaded when telemetry is switched on, so a host
 * with telemetry off loads no OpenTelemetry code at all.
 */
export interface Instrumentation {
  serve(
    method: string,
    params: Params | undefined,
    ctx: ServerContext,
    server: Server,
    work: () => Promise<Params>,
  ): Promise<Params>;
  answeredAtEntry(request: EntryRequest): EntryAnswered;
  upstream(request: UpstreamRequest): TracedUpstreamRequest;
  /** A long-lived client session opened; the returned function records its end. */
  sessionOpened(server: Server): () => void;
  reloaded(outcome: ReloadRecord): void;
  mountStateChanged(mount: MountStateRecord): void;
  /** One session was told that these lists changed. */
  listChangedSent(lists: readonly ChangedList[]): void;
  notificationsDropped(mount: string, dropped: number): void;
  limitHit(limit: ContainmentLimit): void;
  upstreamTokenRequested(mount: string, grant: UpstreamTokenGrant, outcome: 'ok' | 'refused'): void;
  /** The metrics recorded so far, in the Prometheus text format: only when `/metrics` serves them. */
  scrape?(): Promise<string>;
  /** The trace of the request being served, for the audit log. */
  traceId(): string | undefined;
  shutdown(): Promise<void>;
}

let active: Instrumentation | undefined;

/**
 * Wire in the implementation the layers' calls reach from now on
 * (telemetry/start-telemetry.ts, at start): the layers that call this sink
 * never load it themselves.
 */
export function installInstrumentation(instrumentation: Instrumentation): void {
  active = instrumentation;
}

/** Export what is still buffered and stop (shutdown). */
export async function stopTelemetry(): Promise<void> {
  const stopping = active;
  active = undefined;
  await stopping?.shutdown();
}

/**
 * The metrics in the Prometheus text format, for `/metrics`: undefined when
 * nothing records them (telemetry started without `http.metrics`).
 */
export function scrapeMetrics(): Promise<string> | undefined {
  return active?.scrape?.();
}

/** The trace id of the request being served, when telemetry is on and one is. */
export function currentTraceId(): string | undefined {
  return active?.traceId();
}

/** Whether telemetry is on: what is instrumented only then asks this once, when it is set up. */
export function telemetryOn(): boolean {
  return active !== undefined;
}

/** Serve one client request under a server span (or just serve it, with telemetry off). */
export function traceServed(
  method: string,
  params: Params | undefined,
  ctx: ServerContext,
  server: Server,
  work: () => Promise<Params>,
): Promise<Params> {
  return active ? active.serve(method, params, ctx, server, work) : work();
}

/** A request the SDK's entry answers, under a server span: undefined with telemetry off. */
export function traceAnsweredAtEntry(request: EntryRequest): EntryAnswered | undefined {
  return active?.answeredAtEntry(request);
}

/** A request to a mount under a client span: undefined with telemetry off (send it as it is). */
export function traceUpstream(request: UpstreamRequest): TracedUpstreamRequest | undefined {
  return active?.upstream(request);
}

/** A long-lived session opened: what to call when it closes, with telemetry on. */
export function traceSession(server: Server): (() => void) | undefined {
  return active?.sessionOpened(server);
}

export function recordReload(outcome: ReloadRecord): void {
  active?.reloaded(outcome);
}

export function recordMountState(mount: MountStateRecord): void {
  active?.mountStateChanged(mount);
}

/**
 * Each mount's kind by name, for the spans of its requests: the peer that
 * sends them knows only the name. Kept with telemetry off too (one map
 * entry per mount), since mounts start before telemetry is switched on.
 */
const mountKinds = new Map<string, string>();

/** A mount is being started: its requests' spans will name its kind. */
export function recordMountKind(name: string, kind: string): void {
  mountKinds.set(name, kind);
}

export function mountKindOf(name: string): string | undefined {
  return mountKinds.get(name);
}

/** One session was told that these lists changed. */
export function recordListChanged(lists: readonly ChangedList[]): void {
  if (lists.length > 0) active?.listChangedSent(lists);
}

/**
 * The containment limits whose hits are counted, by the config key that
 * sets each (`stdio.backpressure` has none: the pipe's own buffer is the
 * limit, and the count says how often a client stopped reading).
 */
export type ContainmentLimit =
  | 'http.maxSessions'
  | 'http.maxSessionsPerToken'
  | 'http.maxListenStreams'
  | 'http.maxConnections'
  | 'http.maxBodyBytes'
  | 'http.bodyTimeoutMs'
  | 'http.maxStreamQueueBytes'
  | 'http.eventStoreBytes'
  | 'upstreams.maxPerClientSessions'
  | 'stdio.backpressure'
  | 'limits.callsPerMinute';

/** A containment limit refused a request or a connection, cut a stream, or paused input. */
export function recordLimitHit(limit: ContainmentLimit): void {
  active?.limitHit(limit);
}

/** Log and progress notifications a mount sent over the chatter limit, dropped. */
export function recordDroppedNotifications(mount: string, dropped: number): void {
  active?.notificationsDropped(mount, dropped);
}

/** How the host asks an upstream's authorization server for a token: its own (client credentials), or a caller's exchanged. */
export type UpstreamTokenGrant = 'client_credentials' | 'token_exchange';

/** The host asked a mount's authorization server for a token (a first one, a renewal or an exchange): granted or refused. */
export function recordUpstreamToken(mount: string, grant: UpstreamTokenGrant, outcome: 'ok' | 'refused'): void {
  active?.upstreamTokenRequested(mount, grant, outcome);
}
