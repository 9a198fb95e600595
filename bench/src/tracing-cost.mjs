// What the OpenTelemetry spans cost an app that registers no SDK: the API key middleware's
// decision (authenticate + decide, no HTTP), called directly (the median of 7 rounds of 300 000
// calls): without an SDK, alternating with the no-op span calls alone (what a decision adds when
// no SDK is registered); then with the SDK's tracer provider and an in-memory exporter, for
// comparison (30 000 calls a round: the exporter keeps every span).
//
//   pnpm --filter @authlayer/bench tracing-cost
import { createAuthMiddleware } from '@authlayer/express';
import { startDecisionSpan } from '@authlayer/core/internal';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

const CALLS = Number(process.env.CALLS ?? 300_000);
const ROUNDS = 7;
const KEY = 'bench-tracing-key-0123456789';
const logger = { info() {}, warn() {}, error() {} };
const auth = await createAuthMiddleware({ auth: { mode: 'api_key' } }, { env: { SERVICE_API_KEY: KEY }, logger });
const req = { method: 'GET', headers: { 'x-api-key': KEY }, rawHeaders: ['X-API-Key', KEY] };
const res = { locals: {}, setHeader() {}, getHeader() {} };
let passed = 0;
const next = () => void (passed += 1);

function nsPerCall(run, calls = CALLS) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i += 1) run();
  return Number(process.hrtime.bigint() - start) / calls;
}
const decision = () => auth(req, res, next);
const spanOnly = () => startDecisionSpan();
const exporter = new InMemorySpanExporter();
const sdk = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

const results = { no_sdk: [], span_calls_no_sdk: [], with_sdk: [] };
// No SDK first, alternating with the span calls alone: once an SDK is registered, the API's proxy
// tracer keeps delegating to it, even after trace.disable().
for (let round = 0; round < ROUNDS; round += 1) {
  results.no_sdk.push(nsPerCall(decision));
  results.span_calls_no_sdk.push(nsPerCall(spanOnly));
}
trace.setGlobalTracerProvider(sdk);
for (let round = 0; round < ROUNDS; round += 1) {
  // Fewer: the exporter keeps every span until the round ends.
  results.with_sdk.push(nsPerCall(decision, CALLS / 10));
  exporter.reset();
}
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const summary = Object.fromEntries(Object.entries(results).map(([name, values]) => [name, Math.round(median(values))]));
console.log(
  JSON.stringify(
    {
      ns_per_decision: summary,
      decisions: passed,
      share_of_no_sdk_decision: summary.span_calls_no_sdk / summary.no_sdk,
    },
    null,
    2,
  ),
);
