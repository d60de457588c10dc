import type { TelemetryConfig } from '../config/types.js';
import { telemetrySettings } from '../config/telemetry-settings.js';
import type { Logger } from '../log.js';
import type { HostRuntime } from '../runtime.js';
import { installInstrumentation, telemetryOn } from '../sinks/telemetry.js';

/**
 * Switch telemetry on when the config's `telemetry` section or the standard
 * OTEL_* environment asks for it (config/telemetry-settings.ts), or when
 * `/metrics` will serve what it records (`scraped`); otherwise do nothing,
 * and load nothing.
 */
export async function startTelemetry(
  config: TelemetryConfig | undefined,
  runtime: HostRuntime,
  logger: Logger,
  scraped = false,
): Promise<void> {
  const settings = telemetrySettings(config, process.env, scraped);
  if (!settings || telemetryOn()) return;
  const { startOpenTelemetry } = await import('./open-telemetry.js');
  installInstrumentation(startOpenTelemetry(settings, runtime, logger));
  logger.info(
    `telemetry on: traces ${settings.traces}, metrics ${settings.metrics}${scraped ? ' and served at /metrics' : ''}, service.name "${settings.serviceName}"`,
  );
}
