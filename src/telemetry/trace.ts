import type { IncomingHttpHeaders } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';

/**
 * Tracing as the rest of the code sees it: spans when the OpenTelemetry SDK was started
 * (telemetry/sdk.ts, only when OTEL_* configure an exporter), and nothing at all otherwise — each
 * helper checks one variable and calls straight through, so an unset OTEL_* costs no span, no
 * context switch and no allocation on the request path.
 */
let tracer: Tracer | null = null;

/** Called once by the SDK's start-up (and with null at its shutdown). */
export function useTracer(t: Tracer | null): void {
  tracer = t;
}

export const tracingOn = (): boolean => tracer !== null;

function failed(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

/**
 * Runs `fn` in a span, a child of the active one, when tracing is on (ended when `fn` returns or
 * its promise settles; a throw or rejection marks it failed); only `fn` when it is off. Without an
 * active span (the warm-up's operations, background work) there is no span either, unless `root`
 * (a sync run: a trace of its own when no request started it).
 */
export function traced<T>(name: string, attributes: Attributes, fn: (span: Span | null) => T, root = false): T {
  if (!tracer || (!root && !trace.getActiveSpan())) return fn(null);
  return tracer.startActiveSpan(name, { attributes }, (span) => {
    let result: T;
    try {
      result = fn(span);
    } catch (err) {
      failed(span, err);
      span.end();
      throw err;
    }
    if (result instanceof Promise) {
      return result.then(
        (value) => {
          span.end();
          return value;
        },
        (err) => {
          failed(span, err);
          span.end();
          throw err;
        },
      ) as T;
    }
    span.end();
    return result;
  });
}

export interface RequestSpan {
  span: Span;
  /** The context the request's work runs in (its span active). */
  context: Context;
  /** The W3C traceparent of the request's span, for the response. */
  traceparent: string;
}

/** The span of an HTTP request, continuing the caller's trace when it sent a traceparent; null when tracing is off. */
export function startRequestSpan(method: string, headers: IncomingHttpHeaders): RequestSpan | null {
  if (!tracer) return null;
  const parent = propagation.extract(ROOT_CONTEXT, headers);
  const span = tracer.startSpan(method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } }, parent);
  const ctx = trace.setSpan(parent, span);
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return { span, context: ctx, traceparent: carrier.traceparent ?? '' };
}

/** Ends a request's span with what it became: its route template and status. */
export function endRequestSpan(request: RequestSpan, method: string, route: string, status: number): void {
  // The route table's `:zip` as OpenAPI and OpenTelemetry write it: `{zip}`.
  const template = route.replace(/:(\w+)/g, '{$1}');
  request.span.updateName(`${method} ${template}`);
  request.span.setAttributes({ 'http.route': template, 'http.response.status_code': status });
  if (status >= 500) request.span.setStatus({ code: SpanStatusCode.ERROR });
  request.span.end();
}

export const runIn = <T>(ctx: Context, fn: () => T): T => context.with(ctx, fn);

/** The trace id of the active span, for log lines; undefined when there is none. */
export function activeTraceId(): string | undefined {
  if (!tracer) return undefined;
  const span = trace.getActiveSpan();
  return span?.spanContext().traceId;
}
