import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { inSpan, startDecisionSpan, withSpan } from '../src/tracing.js';

describe('without an SDK', () => {
  it('records nothing: no decision span, and inSpan only runs the call', async () => {
    expect(startDecisionSpan()).toBeNull();
    expect(withSpan(null, () => 'ran')).toBe('ran');
    await expect(inSpan('x', {}, () => Promise.resolve(1))).resolves.toBe(1);
  });
});

describe('with an SDK', () => {
  const exporter = new InMemorySpanExporter();
  beforeAll(() => {
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  afterAll(() => {
    trace.disable();
    context.disable();
  });

  it('makes child spans of the active decision, and marks a rejection without its message', async () => {
    const decision = startDecisionSpan()!;
    await withSpan(decision, async () => {
      await inSpan('authlayer.child', { 'authlayer.config': 'auth.jwt' }, () => Promise.resolve('ok'));
      await expect(
        inSpan('authlayer.failing', {}, () => Promise.reject(new Error('secret-in-message'))),
      ).rejects.toThrow('secret-in-message');
    });
    decision.end();
    const spans = exporter.getFinishedSpans();
    expect(spans.map((span) => span.name)).toEqual(['authlayer.child', 'authlayer.failing', 'authlayer.authenticate']);
    expect(spans.slice(0, 2).map((span) => span.parentSpanContext?.spanId)).toEqual([
      decision.spanContext().spanId,
      decision.spanContext().spanId,
    ]);
    expect(spans[1]?.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(JSON.stringify(spans.map((span) => [span.attributes, span.events, span.status]))).not.toContain('secret');
  });
});
