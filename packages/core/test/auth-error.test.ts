import { describe, expect, it } from '@jest/globals';
import {
  AUTH_FAILURE_CAUSE,
  AUTH_FAILURE_DESCRIPTION,
  AuthError,
  isAuthError,
  isFailedGuess,
  type AuthFailure,
} from '../src/auth-error.js';

const REASONS: AuthFailure[] = [
  'credentials_missing',
  'credentials_invalid',
  'credentials_expired',
  'token_malformed',
  'token_expired',
  'token_not_yet_valid',
  'issuer_mismatch',
  'audience_mismatch',
  'algorithm_not_allowed',
  'signature_invalid',
  'key_unavailable',
  'claim_invalid',
  'token_type_mismatch',
  'token_revoked',
  'dpop_invalid',
  'certificate_mismatch',
  'step_up_required',
];

describe('AUTH_FAILURE_DESCRIPTION', () => {
  it('has exactly one description per reason', () => {
    expect(Object.keys(AUTH_FAILURE_DESCRIPTION).sort()).toEqual([...REASONS].sort());
    expect(Object.isFrozen(AUTH_FAILURE_DESCRIPTION)).toBe(true);
  });

  it.each(REASONS)('describes %s in printable ASCII without " or \\', (reason) => {
    const description = AUTH_FAILURE_DESCRIPTION[reason];
    expect(description).toMatch(/^[\x20-\x7e]+$/);
    expect(description).not.toMatch(/["\\]/);
  });

  it('gives distinct sentences', () => {
    expect(new Set(Object.values(AUTH_FAILURE_DESCRIPTION)).size).toBe(REASONS.length);
  });
});

it('says "the credentials have expired" for credentials_expired (the contract\'s sentence)', () => {
  expect(AUTH_FAILURE_DESCRIPTION.credentials_expired).toBe('the credentials have expired');
});

describe('AuthError', () => {
  const challenge = 'Bearer realm="authlayer", error="invalid_token", error_description="the token has expired"';

  it.each(REASONS)('for %s is a 401 "unauthorized" with the fixed description', (reason) => {
    const error = new AuthError(reason, challenge);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: 'AuthError', code: 'unauthorized', status: 401, reason, challenge });
    expect(error.message).toBe(AUTH_FAILURE_DESCRIPTION[reason]);
  });

  it('never puts the challenge into the message', () => {
    const error = new AuthError('credentials_invalid', 'ApiKey realm="authlayer", header="X-Secret-Header"');
    expect(error.message).toBe('the credentials are not valid');
  });
});

describe('isAuthError', () => {
  /** What another installed copy of core would throw: same shape, different class. */
  class ForeignAuthError extends Error {
    override readonly name = 'AuthError';
    readonly code = 'unauthorized';
    readonly status = 401;
    constructor(
      readonly reason: string,
      readonly challenge: string,
    ) {
      super('x');
    }
  }
  const named = (fields: Record<string, unknown>) => Object.assign(new Error('x'), { name: 'AuthError', ...fields });

  it.each([
    ['an AuthError', new AuthError('token_expired', 'Bearer realm="authlayer"'), true],
    ['one from another copy of core', new ForeignAuthError('token_expired', 'Bearer realm="a"'), true],
    ['a plain Error', new Error('unauthorized'), false],
    ['an Error named AuthError only', named({}), false],
    ['one without a challenge', named({ reason: 'token_expired', status: 401 }), false],
    ['one without a status', named({ reason: 'token_expired', challenge: 'Bearer' }), false],
    ['one with a numeric reason', named({ reason: 1, challenge: 'Bearer', status: 401 }), false],
    [
      'a look-alike plain object',
      { name: 'AuthError', reason: 'token_expired', challenge: 'Bearer', status: 401, message: 'x' },
      false,
    ],
    ['null', null, false],
    ['undefined', undefined, false],
  ])('is right for %s', (_name, value, expected) => {
    expect(isAuthError(value)).toBe(expected);
  });
});

describe('isFailedGuess (what a failed-authentication limit counts)', () => {
  it('says for every reason whose problem it is', () => {
    expect(Object.keys(AUTH_FAILURE_CAUSE).sort()).toEqual([...REASONS].sort());
    expect(Object.isFrozen(AUTH_FAILURE_CAUSE)).toBe(true);
  });

  it.each(REASONS.filter((r) => !['credentials_missing', 'key_unavailable', 'step_up_required'].includes(r)))(
    'counts %s: the client presented credentials that were refused',
    (reason) => expect(isFailedGuess(reason)).toBe(true),
  );

  it('does not count key_unavailable (the provider failed) nor credentials_missing (nothing was guessed)', () => {
    expect(isFailedGuess('key_unavailable')).toBe(false);
    expect(isFailedGuess('credentials_missing')).toBe(false);
  });

  it('does not count step_up_required: the token was valid, only its authentication too weak or old', () => {
    expect(AUTH_FAILURE_CAUSE.step_up_required).toBe('absent');
    expect(isFailedGuess('step_up_required')).toBe(false);
  });

  it("counts a reason it does not know (another version's), and never reads the prototype", () => {
    expect(isFailedGuess('some_future_reason')).toBe(true);
    expect(isFailedGuess('toString')).toBe(true);
  });
});
