/**
 * `@authlayer/engine/internal`: what the adapters of this repository build on (the mode loader,
 * the access table, rate limits, revocation, reload), outside the semver promise of the main
 * entry point while 0.x.
 */
export * from './index.js';
export { compileTable, matchEntries, planFor } from './access/access-table.js';
export type { AccessTable, MatchedEntry, Plan, TableEntry } from './access/access-table.js';
export { combineHandlers, summaryOf } from './combine-handlers.js';
export { loadModeHandler, modePackageName } from './load-mode.js';
export type { LoadedMode } from './load-mode.js';
export { loadRateLimits } from './load-rate-limits.js';
export { importWithPeers, isPackageMissing } from './optional-peers.js';
export { rateLimitHeaders } from './rate-limit/headers.js';
export type { RateLimits } from './rate-limit/verdicts.js';
export { periodOf } from './rate-limit/period.js';
export { createCarryPool } from './reload/carry-pool.js';
export { reloadFailure } from './reload/reload-state.js';
export { watchFiles } from './reload/watch-files.js';
export type { FileWatch } from './reload/watch-files.js';
export { createRevocationFlow, readinessWith, revocationApi } from './revocation/revocation-flow.js';
export type { RevocationFlow } from './revocation/revocation-flow.js';
export { createStoreConnector } from './shared-store/store-connector.js';
export { createEngine } from './engine.js';
export type { Engine, EngineOptions, EngineSetup } from './engine.js';
export type { AccessStep, Generation } from './generation.js';
export { decide } from './request/decide.js';
export { kindOf } from './request/kind-of.js';
export type { EngineRequest, Flow, Outcome } from './request/decide.js';
export { RequestScope, reportWhenAnswered } from './request/scope.js';
export type { EndHold, HoldRequest } from './held/holds.js';
export type { Answer } from './request/answer.js';
export { refusalAnswer } from './request/answer.js';
export { canonicalTargetProblem, nonCanonicalTargetAnswer } from './request/canonical-target.js';
export { carriesCredentials, credentialHeaders, isPreflight } from './access/credentials.js';
export { forbidden, holdsRefusal, missingNames, requirementRefusal, ruleRefusal } from './access/rules.js';
export type { Held, RuleRefusal } from './access/rules.js';
export { toRule } from './access/rule-input.js';
export type { AccessRuleInput } from './access/rule-input.js';
export { claimRefusal, stepUpRefusal } from './access/claim-checks.js';
export { BODY_TOO_LARGE, NOT_JSON, createMcpGate } from './mcp/mcp-gate.js';
export type { McpGate, McpVerdict } from './mcp/mcp-gate.js';
export { filterListAnswer, type MessageRewrite } from './mcp/filter-list-answer.js';
export { filterListResult } from './mcp/list-filter.js';
export { createAuthInfo } from './request/auth-info.js';
export type { AuthInfoFields } from './request/auth-info.js';
export { ABORTED, readBoundedBody } from './mcp/read-body.js';
export { explainRequest } from './policy/explain-request.js';
export type { ExplainInput } from './policy/explain-request.js';
