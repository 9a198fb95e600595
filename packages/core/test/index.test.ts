import { describe, expect, it } from '@jest/globals';
import * as core from '../src/index.js';

describe('@authlayer/core public API', () => {
  it('exports exactly the documented values', () => {
    expect(Object.keys(core).sort()).toEqual([
      'ACCESS_DEFAULTS',
      'ACCESS_WORDS',
      'AUTH_FAILURE_CAUSE',
      'AUTH_FAILURE_DESCRIPTION',
      'AUTH_MODES',
      'AuthError',
      'ConfigError',
      'DEFAULTS',
      'DPOP_ALGORITHMS',
      'EC_ALGORITHMS',
      'FALLBACKS',
      'ForbiddenError',
      'HMAC_ALGORITHMS',
      'JWT_ALGORITHMS',
      'OAUTH2_AUTH_METHODS',
      'OTHER_AUDIENCE',
      'REALM',
      'RECOGNITIONS',
      'RSA_ALGORITHMS',
      'RoutePatternError',
      'VARIABLE_REF',
      'apiKeyChallenge',
      'audienceRefusal',
      'bearerChallenge',
      'bearerError',
      'combineChallenges',
      'compileMcpName',
      'compileRouteKey',
      'configSchema',
      'createAuthContext',
      'createClaimsMapper',
      'createNoAuthHandler',
      'createPermissionResolver',
      'describeForbidden',
      'dpopChallenge',
      'fromAuthenticateNow',
      'grantedScopes',
      'headerValues',
      'insufficientScopeChallenge',
      'isAuthError',
      'isConfigError',
      'isFailedGuess',
      'isForbiddenError',
      'isKnownAuthMode',
      'isMcpKey',
      'isParsedAuthConfig',
      'isRequirableName',
      'loadConfig',
      'parseAccessTable',
      'parseAuthConfig',
      'parseMcpKey',
      'parseYaml',
      'readBearerToken',
      'readSecretFile',
      'redactUrl',
      'sameAudience',
      'scopeVariables',
      'soleHeaderValue',
      'stepUpChallenge',
      'verifiedClaims',
      'withAccessDefaults',
    ]);
  });

  it('lists the modes and keeps DEFAULTS frozen', () => {
    expect(core.AUTH_MODES).toEqual(['api_key', 'jwt', 'oauth2']);
    expect(core.OAUTH2_AUTH_METHODS).toEqual(['client_secret_basic', 'client_secret_post']);
    expect(Object.isFrozen(core.DEFAULTS)).toBe(true);
    expect(Object.isFrozen(core.DEFAULTS.claims)).toBe(true);
    // A mode package's section keeps its defaults in that package: core names no mode's section.
    for (const key of ['apiKeys', 'jwt', 'oauth2']) expect(core.DEFAULTS).not.toHaveProperty(key);
    expect(Object.isFrozen(core.DEFAULTS.senderConstraint.dpopAlgorithms)).toBe(true);
  });
});
