import type { CreateHandler } from '@authlayer/core';
import { createOAuth2Handler } from './oauth2-handler.js';

export { createOAuth2Handler } from './oauth2-handler.js';
export type { OAuth2HandlerDeps } from './oauth2-handler.js';
export { ANSWER_CACHE_DEFAULTS } from './answer-cache.js';
export type { AnswerCacheOptions } from './answer-cache.js';
export { MAX_ANSWER_BYTES } from './answer-limit.js';
export { INTROSPECTION_LIMITS } from './introspection-limits.js';
export type { IntrospectionLimitsOptions } from './introspection-limits.js';

export { configSchema, section } from './config/oauth2-section.js';
export type { OAuth2Config } from './config/oauth2-section.js';

/**
 * The name `@authlayer/express` imports from every mode package; the same function as
 * {@link createOAuth2Handler}.
 */
export const createHandler: CreateHandler = createOAuth2Handler;
