import { describe, expect, it } from '@jest/globals';
import { AUTH_FAILURE_DESCRIPTION, type AuthFailure } from '../src/auth-error.js';
import { REALM, apiKeyChallenge, bearerChallenge, stepUpChallenge } from '../src/challenge.js';

const INVALID: [AuthFailure, string][] = [
  ['credentials_invalid', 'the credentials are not valid'],
  ['credentials_expired', 'the credentials have expired'],
  ['token_malformed', 'the token is malformed'],
  ['token_expired', 'the token has expired'],
  ['token_not_yet_valid', 'the token is not valid yet'],
  ['issuer_mismatch', 'the token issuer is not accepted'],
  ['audience_mismatch', 'the token audience is not accepted'],
  ['algorithm_not_allowed', 'the token algorithm is not allowed'],
  ['signature_invalid', 'the token signature is invalid'],
  ['key_unavailable', 'no key is available to verify the token'],
  ['claim_invalid', 'a required claim is missing'],
  ['token_type_mismatch', 'the token type is not accepted'],
  ['token_revoked', 'the token has been revoked'],
  ['dpop_invalid', 'the DPoP proof or the token binding is not valid'],
  ['certificate_mismatch', 'the token is not bound to the client certificate'],
];

describe('bearerChallenge', () => {
  it('names the realm "authlayer"', () => {
    expect(REALM).toBe('authlayer');
  });

  it('has no error attribute when no credentials were sent (RFC 6750 §3.1)', () => {
    expect(bearerChallenge('credentials_missing')).toBe('Bearer realm="authlayer"');
  });

  it('covers every reason but credentials_missing in the table below', () => {
    const listed = INVALID.map(([reason]) => reason);
    expect(
      Object.keys(AUTH_FAILURE_DESCRIPTION)
        // step_up_required has a challenge of its own (stepUpChallenge).
        .filter((reason) => reason !== 'credentials_missing' && reason !== 'step_up_required')
        .sort(),
    ).toEqual(listed.sort());
  });

  it.each(INVALID)('for %s says invalid_token with the description', (reason, description) => {
    expect(bearerChallenge(reason)).toBe(
      `Bearer realm="authlayer", error="invalid_token", error_description="${description}"`,
    );
  });
});

describe('apiKeyChallenge', () => {
  it.each([
    ['X-API-Key', false, 'credentials_missing', 'ApiKey realm="authlayer", header="X-API-Key"'],
    ['X-API-Key', false, 'credentials_invalid', 'ApiKey realm="authlayer", header="X-API-Key"'],
    [
      'X-API-Key',
      true,
      'credentials_missing',
      'ApiKey realm="authlayer", header="X-API-Key", Bearer realm="authlayer"',
    ],
    [
      'X-Custom-Key',
      true,
      'credentials_invalid',
      'ApiKey realm="authlayer", header="X-Custom-Key", Bearer realm="authlayer", error="invalid_token", ' +
        'error_description="the credentials are not valid"',
    ],
    [
      'X-API-Key',
      true,
      'credentials_expired',
      'ApiKey realm="authlayer", header="X-API-Key", Bearer realm="authlayer", error="invalid_token", ' +
        'error_description="the credentials have expired"',
    ],
  ] as const)('header %s, bearer %s, %s', (header, allowBearer, reason, expected) => {
    expect(apiKeyChallenge(header, allowBearer, reason)).toBe(expected);
  });
});

describe('stepUpChallenge (RFC 9470 §3)', () => {
  const base =
    'Bearer realm="authlayer", error="insufficient_user_authentication", ' +
    'error_description="a stronger or more recent authentication is required"';

  it.each([
    ['acr values only', ['urn:mfa', 'phr'], null, `${base}, acr_values="urn:mfa phr"`],
    ['max_age only', [], 300, `${base}, max_age=300`],
    ['both, acr_values first', ['urn:mfa'], 0, `${base}, acr_values="urn:mfa", max_age=0`],
  ] as const)('%s', (_name, acr, maxAge, expected) => {
    expect(stepUpChallenge(acr, maxAge)).toBe(expected);
  });
});
