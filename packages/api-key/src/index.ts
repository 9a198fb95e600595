import { createApiKeyHandler } from './api-key-handler.js';

export { createApiKeyHandler } from './api-key-handler.js';
export { expectedKeyVariable } from './expected-keys.js';
export { apiKeyVariable, configSchema, section } from './config/api-keys-section.js';
export type { ApiKeyEntryConfig, ApiKeyQuota, ApiKeysConfig } from './config/api-keys-section.js';
export { readApiKeysFile } from './config/keys-file.js';
export type { ApiKeyFileEntry } from './config/keys-file.js';
export { readPresentedKey } from './read-presented-key.js';
export type { PresentedKey } from './read-presented-key.js';

/** The name `@authlayer/express` imports from every mode package. */
export const createHandler = createApiKeyHandler;
export { KEY_PREFIX, checksumOf, isChecksummedKey, newChecksummedKey, scannerPattern } from './checksummed-key.js';
