import { context, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';

// OpenTelemetry through its API alone: the app registers an SDK, or nothing is recorded. Without
// an SDK every span is the API's non-recording span (no allocation past that object, no context
// switch): `isRecording()` is asked first, and nothing else is done for it.
const tracer = trace.getTracer('authlayer');

/** The span of one authentication decision, or `null` when no SDK records it. */
export function startDecisionSpan(): Span | null {
  const span = tracer.startSpan('authlayer.authenticate');
  return span.isRecording() ? span : null;
}

/** Runs `run` with `span` as the active span, so that spans started within are its children. */
export function withSpan<T>(span: Span | null, run: () => T): T {
  return span === null ? run() : context.with(trace.setSpan(context.active(), span), run);
}

/**
 * Runs `run` inside a child span `name` of the active span (a key set fetch, an introspection, a
 * Redis call), ended when its promise settles; a rejection marks the span as an error, without the
 * error's message (it may describe a credential). `attributes` must never hold a credential.
 */
export function inSpan<T>(name: string, attributes: Attributes, run: () => Promise<T>): Promise<T> {
  const span = tracer.startSpan(name, { attributes });
  if (!span.isRecording()) return run();
  return context.with(trace.setSpan(context.active(), span), run).then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      throw error;
    },
  );
}
