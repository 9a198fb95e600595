import { expect } from '@jest/globals';
import { ConfigError, parseAuthConfig, type ConfigIssue } from '@authlayer/core';
import { sectionPathOf } from '@authlayer/core/internal';
import { configSchema, jwtOf, section, type JwtConfig } from '../src/config/jwt-section.js';

// `auth.jwt` read the two ways it is: by the handler called without the engine (`jwtOf`: core
// parses the config and keeps the section as written, this package checks it, with the rules that
// hold when jwt authenticates), and by the engine's loader beside any mode (`configSchema`).

/** `auth.jwt` of a raw config as the handler reads it without the engine. */
export function settingsOf(raw: unknown): JwtConfig {
  return jwtOf(parseAuthConfig(raw), {});
}

/** The ConfigError that reading `auth.jwt` of `raw` must throw. */
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

/** The section as `configSchema` takes it (what the engine's loader does): the value, or a throw. */
export function checkedSection(written: unknown): JwtConfig {
  const result = configSchema['~standard'].validate(written);
  if (result.issues !== undefined) throw new Error(`refused: ${JSON.stringify(result.issues)}`);
  return result.value;
}

/** The issues `configSchema` names for the section as written, each at its config path. */
export function sectionIssuesOf(written: unknown): ConfigIssue[] {
  const result = configSchema['~standard'].validate(written);
  if (result.issues === undefined) throw new Error('the section was accepted');
  return result.issues.map(({ path, message }) => ({ path: sectionPathOf(section, path), message }));
}
