import type { IncomingMessage } from 'node:http';
import { scrapeMetrics } from '../sinks/telemetry.js';
import type { AdminCredential } from './admin-credential.js';

/** Where Prometheus scrapes the host (`http.metrics`). */
export const METRICS_PATH = '/metrics';

/** The Prometheus text exposition format, version 0.0.4 (what the OpenTelemetry Prometheus serializer writes). */
const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * `/metrics`: the metrics the host records (telemetry/open-telemetry.ts),
 * serialized by the OpenTelemetry Prometheus exporter at each scrape, to an
 * admin only (admin-credential.ts). Nothing is cached: a scrape reads the
 * counters as they are.
 */
export async function metricsResponse(req: IncomingMessage, admin: AdminCredential): Promise<Response> {
  if (req.method !== 'GET') {
    return Response.json(
      { error: 'method_not_allowed', message: `${METRICS_PATH} answers GET only` },
      { status: 405, headers: { allow: 'GET' } },
    );
  }
  const verdict = await admin.admit(req, METRICS_PATH);
  if ('refused' in verdict) return verdict.refused;
  // Telemetry is started with the scrape reader whenever /metrics is served (commands/start.ts).
  const text = (await scrapeMetrics()) ?? '';
  return new Response(text, { headers: { 'content-type': PROMETHEUS_TEXT, 'cache-control': 'no-store' } });
}
