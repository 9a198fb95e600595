import { describe, expect, it } from '@jest/globals';
import * as apiKey from '../src/index.js';
import { createApiKeyHandler } from '../src/api-key-handler.js';

describe('@authlayer/api-key public API', () => {
  it('exports createHandler, the name @authlayer/express loads, as the API key handler', () => {
    expect(apiKey.createHandler).toBe(createApiKeyHandler);
    expect(Object.keys(apiKey).sort()).toEqual([
      'KEY_PREFIX',
      'apiKeyVariable',
      'checksumOf',
      'configSchema',
      'createApiKeyHandler',
      'createHandler',
      'expectedKeyVariable',
      'isChecksummedKey',
      'newChecksummedKey',
      'readApiKeysFile',
      'readPresentedKey',
      'scannerPattern',
      'section',
    ]);
  });
});
