// @authlayer/engine: the decisions, framework-free. An adapter (Express, Fastify) turns its
// request into what these take and their answers into its response; nothing here imports a web
// framework.
export type { AuthDecision, DecisionListener, DecisionOutcome } from './decision.js';
export type { EngineOptions } from './engine.js';
export { consoleLogger, secretHeaders } from './logger.js';
export type { SecretHeaderSource } from './logger.js';
export { openApiSecurity } from './openapi-security.js';
export type { OpenApiSecurity } from './openapi-security.js';
export type { ImportModule } from './load-mode.js';
export type { AuthInfoFields, RequestAuth } from './request/auth-info.js';
export { clientAddress } from './rate-limit/client-address.js';
export type { ReloadEvent, ReloadState } from './reload/reload-state.js';
export type { AuthReadiness } from './revocation/revocation-flow.js';
export type { Revocation, RevokeOptions } from './revocation/revocation-entry.js';
export { REVOCATION_TTL, checkRevocationEntry, checkRevocationTtl } from './revocation/revocation-entry.js';
export { connectRevocations } from './revocation/connect-revocations.js';
export type { RevocationAdmin } from './revocation/connect-revocations.js';
export type { RevocationState } from './revocation/revocation-store.js';
export { createPolicyEvaluator } from './policy/policy-evaluator.js';
export type { PolicyEvaluator, PolicyVerdict } from './policy/policy-evaluator.js';
export type { TraceEntry } from './policy/policy-trace.js';
export type { PolicyMcpMessage, PolicyRequest } from './policy/policy-request.js';
export { RequestError } from './policy/policy-request.js';
export { CallerError } from './policy/verified-callers.js';
export type { VerifiedCaller } from './policy/verified-callers.js';
export { PolicyTestFileError, readPolicyTestFile } from './policy/policy-test-file.js';
export type { PolicyCase, PolicyTestFile } from './policy/policy-test-file.js';
export { runPolicyTests } from './policy/run-policy-tests.js';
export type { PolicyCaseFailure, PolicyTestReport } from './policy/run-policy-tests.js';
export type { PolicyDiff } from './policy/candidate-judge.js';
