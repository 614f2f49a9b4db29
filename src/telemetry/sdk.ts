import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { useTracer } from './trace.js';

/**
 * The OpenTelemetry SDK, started only when OTEL_* configure an exporter (config.ts), and loaded
 * only then (app/start.ts imports this module dynamically). Everything else is the standard variables,
 * read by the SDK itself: OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (and
 * _HEADERS, _TIMEOUT), OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER and
 * OTEL_TRACES_SAMPLER_ARG, OTEL_BSP_* for batching. Spans go out over OTLP/HTTP (JSON), in batches;
 * W3C trace context comes in and goes out (traceparent).
 */
export function startTracing(version: string): { shutdown(): Promise<void> } {
  // Our name unless OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES) says otherwise.
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'ski-zip-gateway', [ATTR_SERVICE_VERSION]: version }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  // The global provider, AsyncLocalStorage for the active span across awaits, W3C propagation.
  provider.register();
  useTracer(provider.getTracer('ski-zip-gateway', version));
  return {
    shutdown: async () => {
      // What was recorded is sent before the process exits.
      await provider.shutdown();
      useTracer(null);
    },
  };
}
