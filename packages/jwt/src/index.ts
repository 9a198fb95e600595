import type { CreateHandler } from '@authlayer/core';
import { createJwtHandler } from './jwt-handler.js';

export { createJwtHandler } from './jwt-handler.js';
export type { JwtHandlerDeps } from './jwt-handler.js';
export { JWKS_DEFAULTS } from './keys/remote-key-set.js';
export type { JwksOptions } from './keys/remote-key-set.js';
export { MAX_TOKEN_BYTES } from './verify/verify-token.js';
export { TOKEN_CACHE_DEFAULTS } from './token-cache.js';
export type { TokenCacheOptions } from './token-cache.js';

export { configSchema, section } from './config/jwt-section.js';
export type { JwtConfig, JwtProviderConfig } from './config/jwt-section.js';

/**
 * The name `@authlayer/express` imports from every mode package; the same function as
 * {@link createJwtHandler}.
 */
export const createHandler: CreateHandler = createJwtHandler;
