import { describe, expect, it } from '@jest/globals';
import { AuthError, bearerChallenge, type AuthFailure } from '@authlayer/core';
import { errors } from 'jose';
import { joseErrorCode, translateJoseError } from '../src/verify/translate-jose-error.js';
import { failure } from './fixtures.js';

const claim = (name: string, reason: string) =>
  new errors.JWTClaimValidationFailed('library text', { secret: 'claim' }, name, reason);
const cases: [string, unknown, AuthFailure][] = [
  ['expired', new errors.JWTExpired('library text', {}, 'exp', 'check_failed'), 'token_expired'],
  ['nbf in the future', claim('nbf', 'check_failed'), 'token_not_yet_valid'],
  ['iat in the future', claim('iat', 'check_failed'), 'token_not_yet_valid'],
  ['iss wrong', claim('iss', 'check_failed'), 'issuer_mismatch'],
  ['iss missing', claim('iss', 'missing'), 'issuer_mismatch'],
  ['aud wrong', claim('aud', 'check_failed'), 'audience_mismatch'],
  ['aud missing', claim('aud', 'missing'), 'audience_mismatch'],
  ['exp missing', claim('exp', 'missing'), 'token_malformed'],
  ['exp not a number', claim('exp', 'invalid'), 'token_malformed'],
  ['another claim', claim('sub', 'check_failed'), 'token_malformed'],
  ['alg not allowed', new errors.JOSEAlgNotAllowed('library text'), 'algorithm_not_allowed'],
  ['bad signature', new errors.JWSSignatureVerificationFailed(), 'signature_invalid'],
  ['no matching key', new errors.JWKSNoMatchingKey(), 'signature_invalid'],
  ['several matching keys', new errors.JWKSMultipleMatchingKeys(), 'signature_invalid'],
  ['key set timeout', new errors.JWKSTimeout(), 'key_unavailable'],
  ['key set invalid', new errors.JWKSInvalid(), 'key_unavailable'],
  ['JWS invalid', new errors.JWSInvalid('library text'), 'token_malformed'],
  ['JWT invalid', new errors.JWTInvalid('library text'), 'token_malformed'],
  ['unknown crit', new errors.JOSENotSupported('library text'), 'token_malformed'],
  ['a TypeError', new TypeError('library text'), 'token_malformed'],
  ['a string', 'boom', 'token_malformed'],
  ['null', null, 'token_malformed'],
  ['a numeric code', Object.assign(new Error('x'), { code: 42 }), 'token_malformed'],
];

describe('translateJoseError', () => {
  it.each(cases)('%s becomes %s', (_name, error, reason) => {
    const translated = translateJoseError(error);
    expect(translated).toMatchObject(failure(reason));
    expect(translated.message).not.toContain('library text');
    expect(translated.message).not.toContain('claim');
  });

  it('passes an AuthError through unchanged', () => {
    const error = new AuthError('key_unavailable', bearerChallenge('key_unavailable'));
    expect(translateJoseError(error)).toBe(error);
  });
});

describe('joseErrorCode', () => {
  it('reads a string code, and gives an empty string otherwise', () => {
    expect(joseErrorCode(new errors.JWTExpired('x', {}))).toBe('ERR_JWT_EXPIRED');
    expect(joseErrorCode(undefined)).toBe('');
    expect(joseErrorCode({ code: 1 })).toBe('');
  });
});
