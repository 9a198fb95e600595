import { describe, expect, it } from '@jest/globals';
import { createCaptureLogger } from '@authlayer/testkit';
import { FetchFailure } from '@authlayer/core/internal';
import { createProviderHealth } from '../src/provider-health.js';

describe('createProviderHealth', () => {
  it('warns once per outage, with a short cause and never the error message, and tells the recovery', () => {
    const logger = createCaptureLogger();
    const health = createProviderHealth(logger);
    expect(health.state()).toBe('not_fetched');
    health.failed(new Error('secret-bearing library message'));
    health.failed(new FetchFailure('timed out'));
    expect(health.state()).toBe('unavailable');
    health.succeeded();
    health.succeeded();
    expect(health.state()).toBe('fresh');
    expect(logger.text).toEqual([
      'warn: auth.oauth2: the introspection endpoint cannot be used (an unexpected error); tokens are refused until it can',
      'info: auth.oauth2: the introspection endpoint answers again',
    ]);
  });
});
