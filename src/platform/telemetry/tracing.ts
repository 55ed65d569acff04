// Traces, when configured (tracing-settings.ts): the OpenTelemetry SDK with a batching OTLP/HTTP
// exporter, registered as the process's tracer provider and context manager (AsyncLocalStorage),
// so the span of the request a change runs in is the active one when its webhook event is
// written. When off, no SDK module is even loaded: nothing is instrumented, and the only hot-path
// cost left is a check that a tracer exists.
import type { Tracer } from '@opentelemetry/api';
import type { TracingSettings } from './tracing-settings.ts';
import { packageExports } from '../package-namespace.ts';

export interface Tracing {
  /** Undefined when traces are off: then nothing makes spans. */
  readonly tracer: Tracer | undefined;
  /** Exports what is still buffered, then stops the SDK (bounded by the exporter's timeout). */
  shutdown(): Promise<void>;
}

export const TRACING_OFF: Tracing = { tracer: undefined, shutdown: async () => {} };

/** The instrumentation scope every erx span carries. */
export const TRACER_NAME = 'erx';

export async function startTracing(settings: TracingSettings | undefined): Promise<Tracing> {
  if (!settings) return TRACING_OFF;
  const [api, { NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, resources, semconv] = await Promise.all([
    import('@opentelemetry/api').then(packageExports),
    import('@opentelemetry/sdk-trace-node').then(packageExports),
    import('@opentelemetry/exporter-trace-otlp-http').then(packageExports),
    import('@opentelemetry/resources').then(packageExports),
    import('@opentelemetry/semantic-conventions').then(packageExports),
  ]);
  // OTEL_RESOURCE_ATTRIBUTES (deployment, version, region, ...) are kept; the service's name wins.
  const resource = resources
    .defaultResource()
    .merge(resources.detectResources({ detectors: [resources.envDetector] }))
    .merge(resources.resourceFromAttributes({ [semconv.ATTR_SERVICE_NAME]: settings.serviceName }));
  // The exporter still reads OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT and _COMPRESSION; the batch
  // processor OTEL_BSP_*; the provider OTEL_TRACES_SAMPLER.
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: settings.tracesUrl }))] });
  provider.register();
  return {
    tracer: provider.getTracer(TRACER_NAME),
    async shutdown() {
      try {
        await provider.shutdown();
      } finally {
        // The globals go with it, so a later start in the same process (tests) registers afresh.
        api.trace.disable();
        api.context.disable();
        api.propagation.disable();
      }
    },
  };
}
