import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { ForbiddenError } from '@authlayer/core';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createCaptureLogger } from '@authlayer/testkit';
import type { Engine } from '../src/engine.js';
import { decisionOf, RequestScope } from '../src/request/scope.js';
import { engineAt, judge, KEYS, requestTo } from './support/engine-at.js';

// Where a request's one decision is reported besides `onDecision`: the OpenTelemetry span of the
// decision (with the real SDK registered), the access log of `access.log: refusals`, and
// `report_only`'s warning lines.

const exporter = new InMemorySpanExporter();
beforeAll(() => {
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(() => {
  trace.disable();
  context.disable();
});

let open: Engine[] = [];
afterEach(async () => {
  exporter.reset();
  await Promise.all(open.map((engine) => engine.close()));
  open = [];
});
async function made(access: Record<string, unknown>) {
  const result = await engineAt({ access });
  open.push(result.engine);
  return result;
}

describe('the decision span', () => {
  it('one span per decision: its method and outcome, the reason of a refusal, never the caller', async () => {
    const { engine } = await made({ 'GET /reports': { roles: ['auditor'] } });
    const allowed = await judge(engine.current(), requestTo('GET', '/reports', { 'x-api-key': KEYS.auditor }));
    expect(allowed.scope.holding).toBe(true);
    // A decision that lets the request on ends its span when the answer starts.
    expect(exporter.getFinishedSpans()).toEqual([]);
    allowed.scope.answered();
    await judge(engine.current(), requestTo('GET', '/reports', { 'x-api-key': KEYS.plain }));
    const spans = exporter.getFinishedSpans();
    expect(spans.map((span) => [span.name, span.attributes])).toEqual([
      ['authlayer.authenticate', { 'authlayer.method': 'api_key', 'authlayer.outcome': 'allowed' }],
      [
        'authlayer.authenticate',
        { 'authlayer.method': 'api_key', 'authlayer.outcome': 'forbidden', 'authlayer.reason': 'role_missing' },
      ],
    ]);
    expect(JSON.stringify(spans.map((span) => span.attributes))).not.toContain('auditor');
  });
});

describe('access.log: refusals', () => {
  it('each refusal is one line with its reason and key; a request let through is not logged', async () => {
    const { engine, logger } = await made({ 'GET /reports': { roles: ['auditor'] }, log: 'refusals' });
    const allowed = await judge(engine.current(), requestTo('GET', '/reports', { 'x-api-key': KEYS.auditor }));
    allowed.scope.answered();
    await judge(engine.current(), requestTo('GET', '/reports', { 'x-api-key': KEYS.plain }));
    await judge(engine.current(), requestTo('GET', '/reports'));
    expect(logger.text).toEqual([
      'info: access: forbidden role_missing rule="GET /reports" method=api_key request_id=r-1',
      'info: access: refused credentials_missing rule="GET /reports" method=api_key request_id=r-1',
    ]);
    expect(logger.text.join('\n')).not.toContain(KEYS.plain);
  });
});

describe("report_only's warning", () => {
  it('names the request when no key decided it', () => {
    const logger = createCaptureLogger();
    const scope = new RequestScope(() => null);
    const to = { logger, onDecision: undefined, logRefusals: true };
    const error = new ForbiddenError('role_missing', null, ['admin']);
    scope.decide(to, decisionOf(scope, 'forbidden', error.reason, 'ada', 'api_key'), undefined);
    expect(logger.text).toEqual(['warn: access report_only: forbidden request (role_missing)']);
  });
});
