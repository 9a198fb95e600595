/**
 * `@authlayer/engine/internal`: the adapter contract, what an adapter (Express, Fastify, a web
 * `Request`/`Response` one) builds on, and nothing else; outside the semver promise of the main
 * entry point while 0.x. Each name and what an adapter does with it: docs/design/engine.md,
 * "The adapter contract".
 */
export * from './index.js';
// Start-up: one engine per app; a generation per config (a reload swaps it).
export { createEngine } from './engine.js';
export type { Engine } from './engine.js';
export type { Generation } from './generation.js';
export { summaryOf } from './combine-handlers.js';
export { loadModeHandler, modePackageName } from './load-mode.js';
export type { LoadedMode } from './load-mode.js';
// The request port: the engine runs the order, the adapter gives its I/O once.
export { refuseThrough, runAccess, runFlow, runPlan } from './request/run.js';
export type { HeaderList, Port } from './request/run.js';
export { RequestScope, reportWhenAnswered } from './request/scope.js';
export type { EngineRequest, Flow } from './request/decide.js';
// Answers: what the adapter writes, built by the engine.
export type { Answer } from './request/answer.js';
export { INTERNAL_ANSWER, answerJson, refusalAnswer } from './request/answer.js';
export { canonicalTargetProblem, nonCanonicalTargetAnswer } from './request/canonical-target.js';
export { kindOf } from './request/kind-of.js';
export { pathOf } from './request/path-of.js';
// Guards after the decision: the engine judges, the adapter wraps.
export { guardRefusal, namesCheck, ruleCheck, unauthenticated } from './request/guard.js';
export type { GuardCheck, GuardRefusal } from './request/guard.js';
export type { AccessRuleInput } from './access/rule-input.js';
// MCP: the body of a POST to `mcp.endpoint`, read by the adapter, judged by the gate.
export { BODY_TOO_LARGE, NOT_JSON } from './mcp/mcp-gate.js';
export type { McpGate } from './mcp/mcp-gate.js';
export { filterListAnswer, type MessageRewrite } from './mcp/filter-list-answer.js';
export { ABORTED, readBoundedBody } from './mcp/read-body.js';
// A router that chose the route itself (Fastify): the table's entries and the plan of a route.
export { matchEntries, planFor } from './access/access-table.js';
export type { AccessTable, MatchedEntry, Plan, TableEntry } from './access/access-table.js';
export { coversMethod, planWithParams, routePlanOf, unnamedKeysError } from './access/route-plans.js';
export type { RoutePlan } from './access/route-plans.js';
export { periodOf } from './rate-limit/period.js';
// Explain: the serving table's judgement of one request, never its decision.
export { explainRequest } from './policy/explain-request.js';
export type { ExplainInput } from './policy/explain-request.js';
// The SDK's AuthInfo fields on the request's context.
export { createAuthInfo } from './request/auth-info.js';
