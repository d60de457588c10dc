import type { TelemetryConfig } from './types.js';
import { HostError, type Problem } from '../errors.js';
import { configWhere } from './problem-wording.js';
import { stableJson } from '../stable-json.js';

/** How spans and metrics leave the host: OTLP over HTTP in either encoding, or not at all. */
export type ExportKind = 'otlp-json' | 'otlp-protobuf' | 'none';

/** What the OpenTelemetry side is started with, once the config and the environment agree that it is on. */
export interface TelemetrySettings {
  serviceName: string;
  /** OTLP/HTTP base URL from the config, when the environment names none; undefined leaves the exporters to the OTEL_EXPORTER_OTLP_* environment. */
  endpoint?: string;
  traces: ExportKind;
  metrics: ExportKind;
  /** OTEL_BSP_SCHEDULE_DELAY: how long finished spans wait to be exported together. */
  spanExportDelayMs: number;
  /** OTEL_METRIC_EXPORT_INTERVAL: how often metrics are exported. */
  metricExportIntervalMs: number;
  /** Put tool arguments and results on spans (telemetry.recordArguments). */
  recordArguments: boolean;
  /** Metrics are also kept for `/metrics` to serve (`http.metrics`), whether or not they are exported. */
  scraped: boolean;
}

const ENDPOINT_VARIABLES = [
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
];

/** The variables whose presence alone turns telemetry on: an operator who set any of them expects export. */
const SWITCHING_VARIABLES = [...ENDPOINT_VARIABLES, 'OTEL_TRACES_EXPORTER', 'OTEL_METRICS_EXPORTER'];

/**
 * Whether telemetry is on, and how. Off (undefined) unless the config's
 * `telemetry.enabled` or one of the standard OTEL_* variables asks for it;
 * `telemetry.enabled: false` and OTEL_SDK_DISABLED=true win over the
 * environment. Reading this loads no OpenTelemetry code: a host with
 * telemetry off pays for nothing but this check.
 */
export function telemetrySettings(
  config: TelemetryConfig | undefined,
  env: NodeJS.ProcessEnv,
  scraped = false,
): TelemetrySettings | undefined {
  const exported = exportsOf(config, env);
  if (!exported && !scraped) return undefined;
  return {
    serviceName: nonEmpty(env.OTEL_SERVICE_NAME) ?? config?.serviceName ?? 'mcp-host',
    // As with the service name, the environment wins: the exporters read it themselves.
    ...(config?.endpoint !== undefined &&
      !ENDPOINT_VARIABLES.some((name) => nonEmpty(env[name])) && { endpoint: config.endpoint }),
    traces: exported?.traces ?? 'none',
    metrics: exported?.metrics ?? 'none',
    scraped,
    spanExportDelayMs: milliseconds(env.OTEL_BSP_SCHEDULE_DELAY, 5000),
    metricExportIntervalMs: milliseconds(env.OTEL_METRIC_EXPORT_INTERVAL, 60_000),
    recordArguments: config?.recordArguments ?? false,
  };
}

/** What is exported over OTLP: nothing (undefined) unless the config or the environment asks, and neither refuses. */
function exportsOf(
  config: TelemetryConfig | undefined,
  env: NodeJS.ProcessEnv,
): { traces: ExportKind; metrics: ExportKind } | undefined {
  if (config?.enabled === false || env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const asked = config?.enabled === true || SWITCHING_VARIABLES.some((name) => nonEmpty(env[name]));
  if (!asked) return undefined;
  const traces = exportKind(env, 'TRACES');
  const metrics = exportKind(env, 'METRICS');
  if (traces === 'none' && metrics === 'none') return undefined;
  return { traces, metrics };
}

/**
 * OTEL_{TRACES,METRICS}_EXPORTER (otlp or none) and the OTLP protocol for
 * that signal. `console` is refused: it writes to stdout, which carries
 * JSON-RPC in stdio mode. gRPC would need a second transport stack for what
 * a collector also takes over HTTP, so it is refused with the fix too.
 */
function exportKind(env: NodeJS.ProcessEnv, signal: 'TRACES' | 'METRICS'): ExportKind {
  const exporter = (nonEmpty(env[`OTEL_${signal}_EXPORTER`]) ?? 'otlp').toLowerCase();
  if (exporter === 'none') return exporter;
  if (exporter !== 'otlp') {
    throw new HostError({
      where: `the environment: OTEL_${signal}_EXPORTER`,
      what: `"${exporter}" is not an exporter mcp-host has.`,
      fix: 'set it to "otlp" or "none" ("console" would write to stdout, which carries JSON-RPC over stdio).',
    });
  }
  const protocol = nonEmpty(env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`]) ?? nonEmpty(env.OTEL_EXPORTER_OTLP_PROTOCOL);
  if (protocol === undefined || protocol === 'http/protobuf') return 'otlp-protobuf';
  if (protocol === 'http/json') return 'otlp-json';
  throw new HostError({
    where: 'the environment: OTEL_EXPORTER_OTLP_PROTOCOL',
    what: `"${protocol}" is not a protocol mcp-host exports with.`,
    fix: 'use "http/protobuf" or "http/json" (an OpenTelemetry Collector takes both, on port 4318).',
  });
}

function milliseconds(value: string | undefined, fallback: number): number {
  const parsed = Number(value);
  return nonEmpty(value) !== undefined && Number.isFinite(parsed) && parsed >= 0 ? parsed : fallback;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/**
 * Telemetry is set up once, as the host starts: its exporters and the
 * OpenTelemetry providers registered globally (which in-process plugins
 * trace into) live as long as the process. A reload that changes the
 * section is served, with a warning that the change waits for a restart.
 */
export function telemetryChangeWarning(
  before: TelemetryConfig | undefined,
  after: TelemetryConfig | undefined,
  configFile: string,
): Problem | undefined {
  if (stableJson(before ?? {}) === stableJson(after ?? {})) return undefined;
  return {
    where: configWhere(configFile, 'telemetry'),
    what: 'changed, but telemetry is set up once, when the host starts: this reload left it as it was.',
    fix: 'restart the host for the new telemetry section to take effect.',
  };
}
