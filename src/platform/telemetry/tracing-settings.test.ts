import { describe, expect, it } from 'vitest';
import { readTracingSettings } from './tracing-settings.ts';

describe('readTracingSettings: off unless an OTLP traces endpoint is set', () => {
  it.each([
    ['nothing set', {}, undefined],
    ['only a service name', { OTEL_SERVICE_NAME: 'api' }, undefined],
    ["another signal's endpoint", { OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://c:4318/v1/metrics' }, undefined],
    ['a blank endpoint', { OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }, undefined],
    ['the general endpoint: /v1/traces appended', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, { tracesUrl: 'http://c:4318/v1/traces', serviceName: 'erx' }],
    ['the general endpoint with a path and a trailing slash', { OTEL_EXPORTER_OTLP_ENDPOINT: 'https://c/otlp/' }, { tracesUrl: 'https://c/otlp/v1/traces', serviceName: 'erx' }],
    ['the traces endpoint: used as given', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/custom' }, { tracesUrl: 'http://c:4318/custom', serviceName: 'erx' }],
    ['both: the traces endpoint wins', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:4318/v1/traces' }, { tracesUrl: 'http://b:4318/v1/traces', serviceName: 'erx' }],
    ['a service name', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SERVICE_NAME: 'erx-sydney' }, { tracesUrl: 'http://c:4318/v1/traces', serviceName: 'erx-sydney' }],
    ['the SDK disabled', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }, undefined],
    ['OTEL_SDK_DISABLED=false', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'false' }, { tracesUrl: 'http://c:4318/v1/traces', serviceName: 'erx' }],
    ['the traces exporter none', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }, undefined],
    ['the traces exporter otlp', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'otlp' }, { tracesUrl: 'http://c:4318/v1/traces', serviceName: 'erx' }],
  ])('%s', (_case, env, expected) => {
    expect(readTracingSettings(env)).toEqual(expected);
  });
});
