/**
 * A local OTLP/HTTP receiver (JSON protocol) on 127.0.0.1, as the host's
 * OpenTelemetry exporters see a collector: it keeps every span and metric
 * data point posted to /v1/traces and /v1/metrics.
 *
 *   const otlp = await startOtlpReceiver(t);
 *   startStdioHost(t, configFile, { env: otlp.env });
 *   const span = await otlp.span('the server span', (s) => s.name === 'tools/call lab.echo');
 *   await otlp.point('mcp.server.operation.duration', { 'gen_ai.tool.name': 'lab.echo' });
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { until, type Teardown } from './host.js';

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type OtlpAttributes = { key: string; value: OtlpValue }[];

/** A span as received, its attributes flattened to plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP's SpanKind: 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  status: { code?: number; message?: string };
  events: { name: string; attributes: Record<string, string | number | boolean> }[];
}

/** One data point of a metric, with the metric's name. */
export interface ReceivedPoint {
  metric: string;
  attributes: Record<string, string | number | boolean>;
}

export interface OtlpReceiver {
  /** The standard environment that points a host's exporters here, with short export intervals. */
  env: Record<string, string>;
  spans: ReceivedSpan[];
  points: ReceivedPoint[];
  /** The paths of the posts in OTLP's protobuf encoding, which is not decoded. */
  protobufPosts: string[];
  /** Wait for the first span that matches. */
  span(what: string, match: (span: ReceivedSpan) => boolean): Promise<ReceivedSpan>;
  /** Wait for a data point of `metric` whose attributes include `attributes`. */
  point(metric: string, attributes?: Record<string, string>): Promise<ReceivedPoint>;
}

export async function startOtlpReceiver(t: Teardown): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const points: ReceivedPoint[] = [];
  const protobufPosts: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      if (req.headers['content-type'] !== 'application/json') {
        // Protobuf (the default protocol): counted, not decoded.
        protobufPosts.push(req.url ?? '');
      } else {
        const payload = JSON.parse(body) as Record<string, unknown>;
        if (req.url === '/v1/traces') spans.push(...spansOf(payload));
        if (req.url === '/v1/metrics') points.push(...pointsOf(payload));
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  const { port } = server.address() as AddressInfo;
  const waitFor = async <T>(what: string, list: T[], match: (item: T) => boolean): Promise<T> => {
    await until(what, () => list.some(match));
    return list.find(match)!;
  };
  return {
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'mcp-host-under-test',
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_METRIC_EXPORT_INTERVAL: '200',
    },
    spans,
    points,
    protobufPosts,
    span: (what, match) => waitFor(what, spans, match),
    point: (metric, attributes = {}) =>
      waitFor(
        `a ${metric} data point with ${JSON.stringify(attributes)}`,
        points,
        (point) =>
          point.metric === metric &&
          Object.entries(attributes).every(([key, value]) => point.attributes[key] === value),
      ),
  };
}

function flatten(attributes: OtlpAttributes | undefined): Record<string, string | number | boolean> {
  const flat: Record<string, string | number | boolean> = {};
  for (const { key, value } of attributes ?? []) {
    const plain = value.stringValue ?? value.boolValue ?? value.doubleValue ?? value.intValue;
    if (plain !== undefined) flat[key] = typeof plain === 'string' && 'intValue' in value ? Number(plain) : plain;
  }
  return flat;
}

interface RawSpan extends Omit<ReceivedSpan, 'attributes' | 'events'> {
  attributes?: OtlpAttributes;
  events?: { name: string; attributes?: OtlpAttributes }[];
}

function spansOf(payload: Record<string, unknown>): ReceivedSpan[] {
  const resourceSpans = (payload.resourceSpans ?? []) as { scopeSpans: { spans: RawSpan[] }[] }[];
  return resourceSpans.flatMap((r) =>
    r.scopeSpans.flatMap((s) =>
      s.spans.map((span) => ({
        ...span,
        ...(span.parentSpanId ? {} : { parentSpanId: undefined }),
        attributes: flatten(span.attributes),
        events: (span.events ?? []).map((e) => ({ name: e.name, attributes: flatten(e.attributes) })),
      })),
    ),
  );
}

type RawMetric = { name: string } & Record<string, { dataPoints?: { attributes?: OtlpAttributes }[] } | string>;

function pointsOf(payload: Record<string, unknown>): ReceivedPoint[] {
  const resourceMetrics = (payload.resourceMetrics ?? []) as { scopeMetrics: { metrics: RawMetric[] }[] }[];
  return resourceMetrics.flatMap((r) =>
    r.scopeMetrics.flatMap((s) =>
      s.metrics.flatMap((metric) =>
        Object.values(metric)
          .filter((data) => typeof data === 'object' && data !== null && Array.isArray(data.dataPoints))
          .flatMap((data) =>
            (data as { dataPoints: { attributes?: OtlpAttributes }[] }).dataPoints.map((point) => ({
              metric: metric.name,
              attributes: flatten(point.attributes),
            })),
          ),
      ),
    ),
  );
}
