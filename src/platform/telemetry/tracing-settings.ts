// Whether traces are on, read from the standard OpenTelemetry variables (not erx's own settings:
// operators' collectors and platforms set these by name). Off unless an OTLP traces endpoint is
// given; OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none keep it off even then.

type Env = Record<string, string | undefined>;

export interface TracingSettings {
  /** Where spans are POSTed (OTLP/HTTP, JSON). */
  tracesUrl: string;
  serviceName: string;
}

export const DEFAULT_SERVICE_NAME = 'erx';

const text = (env: Env, name: string): string => env[name]?.trim() ?? '';

/** Undefined: traces are off, and no OpenTelemetry SDK is loaded. */
export function readTracingSettings(env: Env): TracingSettings | undefined {
  if (text(env, 'OTEL_SDK_DISABLED').toLowerCase() === 'true') return undefined;
  const exporters = text(env, 'OTEL_TRACES_EXPORTER').toLowerCase();
  if (exporters !== '' && !exporters.split(',').some((name) => name.trim() === 'otlp')) return undefined;
  const tracesUrl = tracesUrlOf(env);
  if (!tracesUrl) return undefined;
  return { tracesUrl, serviceName: text(env, 'OTEL_SERVICE_NAME') || DEFAULT_SERVICE_NAME };
}

/** The specification's rule: the signal's own endpoint as given; the general one with `/v1/traces` appended. */
function tracesUrlOf(env: Env): string | undefined {
  const own = text(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  if (own) return own;
  const base = text(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (!base) return undefined;
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}
