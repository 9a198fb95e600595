export { createAuthMiddleware } from './middleware.js';
export type { AuthMiddleware, AuthMiddlewareOptions, RouteAccess, RouteMiddleware } from './middleware.js';
export type { UpgradeListener, UpgradeRequest } from './upgrade.js';
export { continueAfterAuthentication } from './expect-continue.js';
export { describeStartup } from './describe-startup.js';
export { errorHandler, httpError, notFound, sendError } from './error-handler.js';
export { requireAccess, requirePermissions, requireRoles, requireScopes } from './guards.js';
export type { AccessRuleInput } from './guards.js';
export type { ErrorCode, HttpError } from './error-handler.js';
export { REQUEST_ID_HEADER, requestId, requestIdOf } from './request-id.js';
export { authenticated } from './authenticated.js';
export type { AuthenticatedRequest } from './authenticated.js';
// The engine's, as they always were this package's: an Express app needs no second import.
export {
  REVOCATION_TTL,
  checkRevocationEntry,
  checkRevocationTtl,
  clientAddress,
  connectRevocations,
  consoleLogger,
  openApiSecurity,
  secretHeaders,
  createPolicyEvaluator,
  runPolicyTests,
  readPolicyTestFile,
  PolicyTestFileError,
  CallerError,
  RequestError,
} from '@authlayer/engine';
export type {
  AuthDecision,
  AuthInfoFields,
  AuthReadiness,
  DecisionListener,
  DecisionOutcome,
  ImportModule,
  OpenApiSecurity,
  ReloadEvent,
  ReloadState,
  RequestAuth,
  Revocation,
  RevocationAdmin,
  RevocationState,
  RevokeOptions,
  SecretHeaderSource,
  PolicyCase,
  PolicyCaseFailure,
  PolicyEvaluator,
  PolicyRequest,
  PolicyTestReport,
  PolicyVerdict,
  TraceEntry,
  VerifiedCaller,
} from '@authlayer/engine';
