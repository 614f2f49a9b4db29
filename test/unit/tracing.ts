import { context as otelContext, propagation, trace, type Tracer } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { useTracer } from '../../src/telemetry/trace.js';

/**
 * Runs `body` traced, as telemetry/sdk.ts starts tracing (a registered provider, the server's
 * tracer), its spans kept in memory; every global it set is reset after.
 */
export async function withTracing(name: string, body: (t: { exporter: InMemorySpanExporter; tracer: Tracer }) => Promise<void>): Promise<void> {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  provider.register();
  const tracer = provider.getTracer(name);
  useTracer(tracer);
  try {
    await body({ exporter, tracer });
  } finally {
    useTracer(null);
    trace.disable();
    otelContext.disable();
    propagation.disable();
    await provider.shutdown();
  }
}
