export { createAuthContext, verifiedClaims } from './auth-context.js';
export type { AuthContext, AuthContextInit, AuthMethod } from './auth-context.js';
export { AUTH_FAILURE_CAUSE, AUTH_FAILURE_DESCRIPTION, AuthError, isAuthError, isFailedGuess } from './auth-error.js';
export type { AuthFailure } from './auth-error.js';
export {
  REALM,
  apiKeyChallenge,
  bearerChallenge,
  bearerError,
  combineChallenges,
  dpopChallenge,
  insufficientScopeChallenge,
  stepUpChallenge,
} from './challenge.js';
export { ForbiddenError, describeForbidden, isForbiddenError, isRequirableName } from './forbidden-error.js';
export type { ForbiddenReason } from './forbidden-error.js';
export { readBearerToken } from './bearer-token.js';
export { OTHER_AUDIENCE, audienceRefusal, sameAudience } from './audience.js';
export { grantedScopes } from './config/sections/scopes.js';
export type { BearerToken } from './bearer-token.js';
export { headerValues, soleHeaderValue } from './header-values.js';
export { redactUrl } from './redact-url.js';
export type {
  AuthHandler,
  AuthRequest,
  CreateHandler,
  HandlerDeps,
  HandlerDescription,
  ClientDecision,
  CredentialExpiry,
  ClientLimits,
  HandlerObserver,
  HandlerReadiness,
  KeyState,
  Logger,
  PeerSocket,
  Recognition,
  ReloadCarry,
  ReplayCache,
  RevocationCheck,
  SecuritySchemePart,
  SharedStore,
} from './handler.js';
export { RECOGNITIONS } from './handler.js';
export { createClaimsMapper } from './claims-mapper.js';
export type { ClaimsMapper, ClaimsMapperOptions } from './claims-mapper.js';
export { createNoAuthHandler } from './no-auth-handler.js';
export { fromAuthenticateNow } from './authenticate-now.js';
export type { MaybePromise } from './authenticate-now.js';
export { createPermissionResolver } from './role-permissions.js';
export type { PermissionResolver } from './role-permissions.js';
export type {
  AuthConfig,
  ClaimsConfig,
  ConstraintMode,
  RateLimitConfig,
  ReloadConfig,
  McpConfig,
  ResourceConfig,
  ScopesConfig,
  RedisSentinelStore,
  RevocationConfig,
  SenderConstraintConfig,
  TlsConfig,
  ForwardAuthConfig,
  IdentityField,
  RoleConfig,
} from './config/auth-config.js';
export {
  ACCESS_DEFAULTS,
  ACCESS_WORDS,
  FALLBACKS,
  RoutePatternError,
  compileRouteKey,
} from './config/access-schema.js';
export { parseAccessTable } from './config/parse-access-table.js';
export { isMcpKey, parseMcpKey } from './config/mcp-key.js';
export type { McpKey } from './config/mcp-key.js';
export { compileMcpName, type McpNamePattern } from './config/mcp-name.js';
export { scopeVariables, VARIABLE_REF, type ParamCondition, type ParamValue } from './config/mcp-rule.js';
export type {
  AccessDefault,
  AccessLog,
  AccessPolicy,
  AccessRequirement,
  AccessRule,
  AccessValue,
  AccessWord,
  ClaimValue,
  CompiledRoute,
  Fallback,
  RouteParams,
} from './config/access-schema.js';
export { ConfigError, isConfigError } from './config/config-error.js';
export type { ConfigIssue } from './config/config-error.js';
export { configSchema } from './config/config-schema.js';
export type { RawConfigInput } from './config/config-schema.js';
export {
  AUTH_MODES,
  DEFAULTS,
  DPOP_ALGORITHMS,
  EC_ALGORITHMS,
  HMAC_ALGORITHMS,
  JWT_ALGORITHMS,
  OAUTH2_AUTH_METHODS,
  RSA_ALGORITHMS,
} from './config/defaults.js';
export type { AuthMode, DpopAlgorithm, JwtAlgorithm, KnownAuthMode, OAuth2AuthMethod } from './config/defaults.js';
export { isKnownAuthMode } from './config/mode-name.js';
export { loadConfig, parseYaml } from './config/load-config-file.js';
export { readSecretFile } from './config/read-secret-file.js';
export { isParsedAuthConfig, parseAuthConfig, withAccessDefaults } from './config/parse-auth-config.js';
