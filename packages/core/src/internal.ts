/**
 * `@authlayer/core/internal`: what the authlayer packages share with each other and a mode
 * package of your own may use, outside the semver promise of the main entry point while 0.x.
 */
export { discoverEndpoint, discoveryUrl, MAX_DOCUMENT_BYTES } from './remote/discovery.js';
export { FetchFailure, fetchJsonObject } from './remote/fetch-json.js';
export type { FetchJsonOptions } from './remote/fetch-json.js';
export { authenticateNowOf, isPromiseLike } from './authenticate-now.js';
export type { MaybePromise } from './authenticate-now.js';
export { splitChallenges } from './challenge.js';
export { readClaim } from './claims-mapper.js';
export { resourceMetadataUrl } from './config/sections/resource.js';
export { withResourceMetadata } from './challenge.js';
export { isToken68, readSchemeCandidate, readSchemeToken } from './bearer-token.js';
export { configSourceOf } from './config/parse-auth-config.js';
export { shownInError } from './config/config-error.js';
export { inSpan, startDecisionSpan, withSpan } from './tracing.js';
export { defaultSectionKey, isExternalModeName } from './config/mode-name.js';
export { knownFields, suggestField } from './config/suggest-field.js';
export {
  assertSectionRules,
  modeSectionOf,
  sectionJsonSchema,
  sectionPathOf,
  sectionSchema,
} from './config/section-schema.js';
export {
  claimPath,
  envVarName,
  filePath,
  intRange,
  keySetUrl,
  NAME_MAX_LENGTH,
  redisUrl,
  text,
} from './config/fields.js';
export type { SectionIssue } from './config/fields.js';
export { claimsSchema, toClaimsConfig } from './config/sections/claims.js';
export { senderConstraintFields, toSenderConstraintConfig } from './config/sections/sender-constraint.js';
export { withResourceAudience } from './config/resource-audience.js';
export type { SectionSchema, SectionSchemaIssue } from './config/section-schema.js';
export { clockLeewayOf } from './auth-context.js';
