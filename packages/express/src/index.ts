export { createAuthMiddleware } from './middleware.js';
export type { AuthMiddleware, AuthMiddlewareOptions } from './middleware.js';
export { errorHandler, httpError, notFound, sendError } from './error-handler.js';
export type { ErrorCode, HttpError } from './error-handler.js';
export { loadModeHandler, modePackageName } from './load-mode.js';
export type { ImportModule, LoadedMode } from './load-mode.js';
export { openApiSecurity } from './openapi-security.js';
export type { OpenApiSecurity } from './openapi-security.js';
export { consoleLogger } from './logger.js';
