import {
  AuthError,
  ConfigError,
  apiKeyChallenge,
  apiKeyVariable,
  createAuthContext,
  createNoAuthHandler,
  type AuthConfig,
  type AuthHandler,
  type CreateHandler,
  type HandlerDeps,
} from '@authlayer/core';
import { createKeyComparer, presentedBytes } from './key-comparer.js';
import { readPresentedKey } from './read-presented-key.js';

/**
 * The name of the variable holding the expected key: `env_var`, or `<PREFIX>_API_KEY` when
 * `prefix` is set (prefix `prod` reads `PROD_API_KEY`).
 */
export function expectedKeyVariable(config: AuthConfig): string {
  return apiKeyVariable(config);
}

/**
 * Creates the API key handler. Reads the expected key from the environment once, at start-up.
 * With `enabled: false` it returns the no-auth handler and warns that requests are NOT
 * authenticated.
 *
 * @throws ConfigError when the expected key's variable is unset or empty, or the key starts or
 *   ends with white space (HTTP strips it from header values, so such a key could never match).
 * @example
 * const handler = await createApiKeyHandler(parseAuthConfig({ auth: { mode: 'api_key' } }),
 *   { env: process.env, logger: console });
 */
export const createApiKeyHandler: CreateHandler = async (config, deps) => {
  if (!config.apiKeys.enabled) {
    deps.logger.warn(
      'auth.api_keys.enabled is false: API key mode is off and requests are NOT authenticated',
    );
    return createNoAuthHandler();
  }
  const variable = expectedKeyVariable(config);
  const matches = createKeyComparer(readExpectedKey(variable, config, deps));
  const { header, allowBearer } = config.apiKeys;
  const challenge = {
    credentials_missing: apiKeyChallenge(header, allowBearer, 'credentials_missing'),
    credentials_invalid: apiKeyChallenge(header, allowBearer, 'credentials_invalid'),
  };
  const fail = (reason: keyof typeof challenge) => Promise.reject(new AuthError(reason, challenge[reason]));
  const identity = createAuthContext({ method: 'api_key', userId: variable });

  const handler: AuthHandler = {
    method: 'api_key',
    authenticate(request) {
      const presented = readPresentedKey(request, header, allowBearer);
      if (presented.kind === 'absent') return fail('credentials_missing');
      if (presented.kind === 'malformed' || !matches(presentedBytes(presented.key))) return fail('credentials_invalid');
      return Promise.resolve(identity);
    },
  };
  return Object.freeze(handler);
};

function readExpectedKey(variable: string, config: AuthConfig, deps: HandlerDeps): Buffer {
  const path = config.apiKeys.prefix === null ? 'auth.api_keys.env_var' : 'auth.api_keys.prefix';
  const value = deps.env[variable];
  if (value === undefined || value === '') {
    throw new ConfigError({ path, message: `environment variable ${variable} is unset or empty` });
  }
  if (value.trim() !== value) {
    throw new ConfigError({ path, message: `environment variable ${variable} starts or ends with white space` });
  }
  // RFC 9110 §5.5: a field value holds no control character but HTAB, so such a key could never arrive.
  if (/[\x00-\x08\x0a-\x1f\x7f]/.test(value)) {
    throw new ConfigError({ path, message: `environment variable ${variable} holds a control character` });
  }
  return Buffer.from(value, 'utf8');
}
