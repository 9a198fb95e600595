import { expect } from '@jest/globals';
import { ConfigError, parseAuthConfig, type ConfigIssue } from '@authlayer/core';
import { apiKeysOf, type ApiKeysConfig } from '../src/config/api-keys-section.js';

/**
 * `auth.api_keys` of a raw config as the handler reads it when called without the engine: core
 * parses the config and keeps the section as written, this package checks and converts it.
 */
export function settingsOf(raw: unknown): ApiKeysConfig {
  return apiKeysOf(parseAuthConfig(raw), {});
}

/** The ConfigError that reading `auth.api_keys` of `raw` must throw. */
export function configErrorOf(raw: unknown): ConfigError {
  try {
    settingsOf(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('the section was accepted');
}

/** The issues of {@link configErrorOf}, each a path and a message. */
export const issuesOf = (raw: unknown): readonly ConfigIssue[] => configErrorOf(raw).issues;
