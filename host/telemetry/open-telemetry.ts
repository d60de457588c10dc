/**
 * The OpenTelemetry side of sinks/telemetry.ts: loaded only when telemetry is on.
 * Spans and metrics follow the semantic conventions for MCP (development
 * status): a server span per client request, a client span per request the
 * host makes of a mount, their context carried in `params._meta`.
 */
import { performance } from 'node:perf_hooks';
import { PROTOCOL_VERSION_META_KEY, type Server, type ServerContext } from '@modelcontextprotocol/server';
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  propagation,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TextMapGetter,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtobufMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { addLogFields, type Logger } from '../log.js';
import type { HostRuntime } from '../runtime.js';
import type { CallHooks } from '../vocabulary/call-hooks.js';
import type { ChangedList } from '../vocabulary/list-kinds.js';
import { describeThrown, formatProblem } from '../errors.js';
import { HOST_VERSION } from '../version.js';
import type { ExportKind, TelemetrySettings } from '../config/telemetry-settings.js';
import {
  mountKindOf,
  type EntryAnswered,
  type ContainmentLimit,
  type EntryRequest,
  type Instrumentation,
  type UpstreamRequest,
  type TracedUpstreamRequest,
  type ReloadRecord,
  type MountStateRecord,
} from '../sinks/telemetry.js';
import { ATTR, HOST_ATTR, requestAttributes, spanName } from './conventions.js';

type Params = Record<string, unknown>;

/** The conventions' advice for operation and session durations, in seconds. */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** `_meta` as a carrier: its `traceparent` and `tracestate` keys. */
const metaGetter: TextMapGetter<Params> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => (typeof carrier[key] === 'string' ? (carrier[key] as string) : undefined),
};

/** HTTP request headers as a carrier, for a client that sends W3C headers and no `_meta`. */
const headersGetter: TextMapGetter<Headers> = {
  keys: (carrier) => [...carrier.keys()],
  get: (carrier, key) => carrier.get(key) ?? undefined,
};

export function startOpenTelemetry(settings: TelemetrySettings, runtime: HostRuntime, logger: Logger): Instrumentation {
  const resource = defaultResource()
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(resourceFromAttributes({ 'service.name': settings.serviceName, 'service.version': HOST_VERSION }));
  const spanExporter = traceExporter(settings.traces, settings.endpoint);
  const tracerProvider = new TracerProvider({
    resource,
    spanProcessors: spanExporter
      ? [new BatchSpanProcessor({ exporter: spanExporter, scheduledDelayMillis: settings.spanExportDelayMs })]
      : [],
  });
  const metricExporter = metricsExporter(settings.metrics, settings.endpoint);
  // Read on each scrape of /metrics (serve/metrics-endpoint.ts), never by a server of its own.
  const scrapeReader = settings.scraped ? new PrometheusExporter({ preventServerStart: true }) : undefined;
  const meterProvider = new MeterProvider({
    resource,
    readers: [
      ...(metricExporter
        ? [
            new PeriodicExportingMetricReader({
              exporter: metricExporter,
              exportIntervalMillis: settings.metricExportIntervalMs,
              exportTimeoutMillis: Math.min(30_000, settings.metricExportIntervalMs),
            }),
          ]
        : []),
      ...(scrapeReader ? [scrapeReader] : []),
    ],
  });
  // Registered globally, so an in-process plugin that uses @opentelemetry/api traces into the host's pipeline.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(tracerProvider);

  // A log line written while a traced request is handled names its trace and span, with the
  // field names of OpenTelemetry's log correlation (as its pino instrumentation writes them).
  addLogFields(logger, () => {
    const span = trace.getActiveSpan();
    if (!span) return {};
    const { traceId, spanId, traceFlags } = span.spanContext();
    return { trace_id: traceId, span_id: spanId, trace_flags: traceFlags.toString(16).padStart(2, '0') };
  });

  const prometheusText = new PrometheusSerializer();
  const tracer = tracerProvider.getTracer('mcp-host', HOST_VERSION);
  const meter = meterProvider.getMeter('mcp-host', HOST_VERSION);
  const duration = (name: string, description: string) =>
    meter.createHistogram(name, { unit: 's', description, advice: { explicitBucketBoundaries: DURATION_BUCKETS } });
  const serverDuration = duration('mcp.server.operation.duration', 'MCP request duration as the host served it');
  const clientDuration = duration('mcp.client.operation.duration', 'MCP request duration as the host asked a mount');
  const sessionDuration = duration('mcp.server.session.duration', 'How long a client session lasted');
  const reloadDuration = duration('mcp-host.reload.duration', 'How long a reload took, swapped or refused');
  const upstreamCalls = meter.createCounter('mcp-host.upstream.requests', {
    description: 'Requests the host made of a mount, by mount, method, tool and error.type (absent when it succeeded)',
  });
  const reloads = meter.createCounter('mcp-host.reloads', { description: 'Reloads, by outcome (ok, refused)' });
  const mountTransitions = meter.createCounter('mcp-host.mount.transitions', {
    description: 'Mounts going down (a fault) or coming back up (a restart)',
  });
  const listChanged = meter.createCounter('mcp-host.list_changed.sent', {
    description: 'list_changed notifications sent to clients, by list',
  });
  const dropped = meter.createCounter('mcp-host.notifications.dropped', {
    description: 'Log and progress notifications a mount sent over the chatter limit, dropped',
  });
  const limitHits = meter.createCounter('mcp-host.limits.hit', {
    description: 'Containment limits hit (a request or connection refused, a stream cut, input paused), by config key',
  });
  const tokenRequests = meter.createCounter('mcp-host.upstream.token_requests', {
    description: "Tokens asked of a mount's authorization server (first, renewed or exchanged), by grant and outcome",
  });
  meter
    .createObservableGauge('mcp-host.mounts', { description: 'Mounts of the live catalogue, by state (up, down)' })
    .addCallback((result) => {
      const byState = new Map<string, number>();
      for (const mount of runtime.installed?.mounts ?? [])
        byState.set(mount.state, (byState.get(mount.state) ?? 0) + 1);
      for (const state of ['up', 'down']) result.observe(byState.get(state) ?? 0, { [HOST_ATTR.mountState]: state });
    });
  meter
    .createObservableUpDownCounter('mcp-host.sessions.open', { description: 'Long-lived client sessions open' })
    .addCallback((result) => result.observe([...runtime.sessions].filter((s) => !s.fansOut).length));

  /** End a span with its outcome per the conventions; returns the attributes its duration metric carries. */
  const finish = (span: Span, attributes: Attributes, error: unknown, result?: Params): Attributes => {
    const errorType = error !== undefined ? errorTypeOf(error) : result?.isError === true ? 'tool_error' : undefined;
    if (errorType !== undefined) {
      span.setAttribute(ATTR.errorType, errorType);
      const code = (error as { code?: unknown } | undefined)?.code;
      if (typeof code === 'number') {
        span.setAttribute(ATTR.jsonRpcErrorCode, code);
        span.setAttribute(ATTR.responseStatusCode, String(code));
      }
      span.setStatus({
        code: SpanStatusCode.ERROR,
        ...(error !== undefined && { message: describeThrown(error) }),
      });
    }
    if (settings.recordArguments && result !== undefined && attributes[ATTR.toolName] !== undefined) {
      span.setAttribute(ATTR.toolCallResult, JSON.stringify(result));
    }
    span.end();
    return errorType === undefined ? attributes : { ...attributes, [ATTR.errorType]: errorType };
  };

  /** Follow an answer to its end: the span's outcome and the duration metric. */
  const follow = (
    span: Span,
    metric: { record(value: number, attributes: Attributes): void },
    attributes: Attributes,
    answer: Promise<Params>,
  ): Promise<Params> => {
    const began = performance.now();
    const seconds = () => (performance.now() - began) / 1000;
    return answer.then(
      (result) => {
        metric.record(seconds(), finish(span, attributes, undefined, result));
        return result;
      },
      (error: unknown) => {
        metric.record(seconds(), finish(span, attributes, error));
        throw error;
      },
    );
  };

  /** A request to a mount is counted as well as timed: its count and its errors, beside its latency. */
  const countedClientDuration = {
    record(seconds: number, attributes: Attributes) {
      upstreamCalls.add(1, attributes);
      clientDuration.record(seconds, attributes);
    },
  };

  /** Put `spanContext` in a request's `_meta`, replacing whatever context it carried. */
  const withContext = (params: Params | undefined, spanContext: Context): Params => {
    const { traceparent: _parent, tracestate: _state, ...meta } = (params?._meta ?? {}) as Params;
    const carrier: Params = {};
    propagation.inject(spanContext, carrier);
    return { ...params, _meta: { ...meta, ...carrier } };
  };

  /** A server span for a client's request, its parent the client's context (in `_meta`, else in W3C headers). */
  const serverSpan = (
    request: EntryRequest & { sessionId: string | undefined; protocolVersion: string | undefined },
  ) => {
    const { method, params, headers, sessionId, protocolVersion } = request;
    const meta = params?._meta as Params | undefined;
    const parent =
      meta && typeof meta.traceparent === 'string'
        ? propagation.extract(ROOT_CONTEXT, meta, metaGetter)
        : headers
          ? propagation.extract(ROOT_CONTEXT, headers, headersGetter)
          : ROOT_CONTEXT;
    const measured: Attributes = {
      ...requestAttributes(method, params),
      [ATTR.networkTransport]: headers ? 'tcp' : 'pipe',
      ...(protocolVersion !== undefined && { [ATTR.protocolVersion]: protocolVersion }),
    };
    const attributes: Attributes = {
      ...measured,
      ...(request.id !== undefined && { [ATTR.requestId]: String(request.id) }),
      ...(sessionId !== undefined && { [ATTR.sessionId]: sessionId }),
      ...(typeof params?.uri === 'string' && { [ATTR.resourceUri]: params.uri }),
      ...(settings.recordArguments &&
        method === 'tools/call' && { [ATTR.toolCallArguments]: JSON.stringify(params?.arguments ?? {}) }),
    };
    const span = tracer.startSpan(spanName(method, params), { kind: SpanKind.SERVER, attributes }, parent);
    return { span, parent, measured };
  };

  /** Progress becomes the span's events; a mount's mid-call request a child span whose context the client receives. */
  const tracedHooks = (hooks: CallHooks, span: Span, spanContext: Context, mount: string): CallHooks => ({
    ...hooks,
    ...(hooks.onProgress && {
      onProgress: (progress: Params) => {
        span.addEvent('mcp.progress', numbersOf(progress));
        hooks.onProgress!(progress);
      },
    }),
    ...(hooks.onRequest && {
      onRequest: (request: { method: string; params?: Params }, signal: AbortSignal) => {
        const attributes = { [ATTR.methodName]: request.method, [HOST_ATTR.mount]: mount };
        const child = tracer.startSpan(request.method, { kind: SpanKind.CLIENT, attributes }, spanContext);
        const childContext = trace.setSpan(spanContext, child);
        const relayed = { method: request.method, params: withContext(request.params, childContext) };
        return follow(
          child,
          clientDuration,
          attributes,
          context.with(childContext, () => hooks.onRequest!(relayed, signal)),
        );
      },
    }),
  });

  return {
    traceId: () => trace.getActiveSpan()?.spanContext().traceId,
    serve(method: string, params: Params | undefined, ctx: ServerContext, server: Server, work: () => Promise<Params>) {
      const headers = (ctx.http as { req?: { headers: Headers } } | undefined)?.req?.headers;
      const { span, parent, measured } = serverSpan({
        method,
        id: ctx.mcpReq.id,
        params,
        ...(headers && { headers }),
        sessionId: ctx.sessionId,
        protocolVersion: server.getNegotiatedProtocolVersion(),
      });
      return follow(span, serverDuration, measured, context.with(trace.setSpan(parent, span), work));
    },

    answeredAtEntry(request: EntryRequest): EntryAnswered {
      const envelope = request.params?._meta as Params | undefined;
      const claimed = envelope?.[PROTOCOL_VERSION_META_KEY];
      const { span, measured } = serverSpan({
        ...request,
        sessionId: undefined,
        protocolVersion: typeof claimed === 'string' ? claimed : undefined,
      });
      const began = performance.now();
      return (error) => {
        const attributes = finish(
          span,
          measured,
          error && Object.assign(new Error(error.message), { code: error.code }),
        );
        serverDuration.record((performance.now() - began) / 1000, attributes);
      };
    },

    upstream({ mount, method, id, params, hooks }: UpstreamRequest): TracedUpstreamRequest {
      const parent = context.active();
      const kind = mountKindOf(mount);
      const measured: Attributes = {
        ...requestAttributes(method, params),
        [HOST_ATTR.mount]: mount,
        ...(kind !== undefined && { [HOST_ATTR.mountKind]: kind }),
        // A request made while serving a client's is that client's; any other (start-up and
        // list_changed drains, pings, resubscriptions) is the host's own.
        [HOST_ATTR.initiator]: trace.getSpan(parent) ? 'client' : 'host',
      };
      const attributes: Attributes = {
        ...measured,
        [ATTR.requestId]: String(id),
        ...(typeof params?.uri === 'string' && { [ATTR.resourceUri]: params.uri }),
      };
      const span = tracer.startSpan(spanName(method, params), { kind: SpanKind.CLIENT, attributes }, parent);
      const spanContext = trace.setSpan(parent, span);
      return {
        params: withContext(params, spanContext),
        hooks: tracedHooks(hooks, span, spanContext, mount),
        follow: (answer) => follow(span, countedClientDuration, measured, answer),
      };
    },

    sessionOpened(server: Server) {
      const began = performance.now();
      return () => {
        const protocolVersion = server.getNegotiatedProtocolVersion();
        sessionDuration.record(
          (performance.now() - began) / 1000,
          protocolVersion === undefined ? {} : { [ATTR.protocolVersion]: protocolVersion },
        );
      };
    },

    reloaded(outcome: ReloadRecord) {
      const attributes = { [HOST_ATTR.reloadOutcome]: outcome.ok ? 'ok' : 'refused' };
      reloads.add(1, attributes);
      reloadDuration.record(outcome.ms / 1000, attributes);
      const end = Date.now();
      const span = tracer.startSpan('mcp-host reload', {
        startTime: end - outcome.ms,
        attributes: { ...attributes, [HOST_ATTR.generation]: outcome.generation },
      });
      if (!outcome.ok) {
        for (const problem of outcome.problems)
          span.addEvent('mcp-host.reload.problem', { message: formatProblem(problem) });
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'reload refused' });
      }
      span.end(end);
    },

    mountStateChanged(mount: MountStateRecord) {
      const attributes: Attributes = {
        [HOST_ATTR.mount]: mount.name,
        [HOST_ATTR.mountKind]: mount.spec.kind,
        [HOST_ATTR.mountState]: mount.state,
        ...(mount.outage && { [HOST_ATTR.outage]: mount.outage.cause }),
      };
      mountTransitions.add(1, { [HOST_ATTR.mount]: mount.name, [HOST_ATTR.mountState]: mount.state });
      // In the trace of the request that saw it happen, when there is one.
      const current = trace.getActiveSpan();
      if (current) current.addEvent(`mcp-host.mount.${mount.state}`, attributes);
      else tracer.startSpan(`mcp-host mount ${mount.state}`, { attributes }).end();
    },

    listChangedSent(lists: readonly ChangedList[]) {
      for (const list of lists) listChanged.add(1, { [HOST_ATTR.list]: list });
    },

    notificationsDropped(mount: string, count: number) {
      dropped.add(count, { [HOST_ATTR.mount]: mount });
    },

    limitHit(limit: ContainmentLimit) {
      limitHits.add(1, { [HOST_ATTR.limit]: limit });
    },

    upstreamTokenRequested(mount, grant, outcome) {
      tokenRequests.add(1, {
        [HOST_ATTR.mount]: mount,
        [HOST_ATTR.tokenGrant]: grant,
        [HOST_ATTR.tokenOutcome]: outcome,
      });
    },

    ...(scrapeReader && {
      async scrape() {
        // Collection errors are an observable callback's throw; the host's callbacks read plain state and do not throw.
        const { resourceMetrics } = await scrapeReader.collect();
        return prometheusText.serialize(resourceMetrics);
      },
    }),

    async shutdown() {
      const results = await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
      for (const result of results) {
        if (result.status === 'rejected')
          logger.warn(`telemetry: the last export failed: ${describeThrown(result.reason)}`);
      }
    },
  };
}

function traceExporter(kind: ExportKind, endpoint: string | undefined): SpanExporter | undefined {
  const url = endpoint && { url: `${endpoint.replace(/\/$/, '')}/v1/traces` };
  if (kind === 'otlp-json') return new JsonTraceExporter({ ...url });
  if (kind === 'otlp-protobuf') return new ProtobufTraceExporter({ ...url });
  return undefined;
}

function metricsExporter(kind: ExportKind, endpoint: string | undefined): PushMetricExporter | undefined {
  const url = endpoint && { url: `${endpoint.replace(/\/$/, '')}/v1/metrics` };
  if (kind === 'otlp-json') return new JsonMetricExporter({ ...url });
  if (kind === 'otlp-protobuf') return new ProtobufMetricExporter({ ...url });
  return undefined;
}

/** `error.type`: the JSON-RPC code as a string, as the conventions ask; else the error's class. */
function errorTypeOf(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'number') return String(code);
  return error instanceof Error ? error.name : '_OTHER';
}

/** A progress notification's numbers, as event attributes (its message stays out: it may quote arguments). */
function numbersOf(progress: Params): Attributes {
  const attributes: Attributes = {};
  for (const key of ['progress', 'total'] as const) {
    if (typeof progress[key] === 'number') attributes[key] = progress[key];
  }
  return attributes;
}
