import { describe, expect, it } from '@jest/globals';
import { forgeToken } from '@authlayer/testkit';
import { createTokenRecognizer, isCompactJws } from '../src/recognize-token.js';

describe('isCompactJws', () => {
  it.each([
    ['a JWS', forgeToken({ alg: 'RS256' }, { sub: 'x' }, 'c2ln'), true],
    ['an unsigned alg:none token (empty signature)', forgeToken({ alg: 'none' }, { sub: 'x' }), true],
    ['three parts whose header is not JSON', 'prod.key.v1', false],
    ['a JSON header without alg', forgeToken({ typ: 'JWT' }, {}, 'c2ln'), false],
    ['a JSON header that is not an object', forgeToken('"alg"', {}, 'c2ln'), false],
    ['a header of 4n + 1 characters', 'abcde.eyJ9.c2ln', false],
    ['two parts', 'abc.def', false],
    ['over the size limit', forgeToken({ alg: 'RS256' }, { pad: 'x'.repeat(9000) }, 'c2ln'), false],
  ])('%s → %s', (_name, token, expected) => {
    expect(isCompactJws(token)).toBe(expected);
  });
});

describe('createTokenRecognizer', () => {
  const jws = forgeToken({ alg: 'RS256' }, { sub: 'x' }, 'c2ln');
  const withCookie = createTokenRecognizer('access_token');

  it.each([
    ['no credential', {}, undefined],
    ['another scheme', { authorization: 'Basic dTpw' }, undefined],
    ['a JWS as Bearer', { authorization: `Bearer ${jws}` }, 'certain'],
    ['an opaque Bearer value', { authorization: 'Bearer opaque-value' }, 'unlikely'],
    ['a malformed Bearer header', { authorization: 'Bearer a b' }, 'unlikely'],
  ])('without a cookie: %s → %s', (_name, headers, expected) => {
    expect(createTokenRecognizer(null)({ headers })).toBe(expected);
  });

  it.each([
    ['a JWS in the cookie', { cookie: `other=1; access_token=${jws}` }, 'likely'],
    ['another cookie only', { cookie: 'other=1' }, undefined],
    ['a cookie that is no JWS', { cookie: 'access_token=opaque' }, 'unlikely'],
    ['a JWS as Bearer beside the cookie', { authorization: `Bearer ${jws}`, cookie: 'access_token=x' }, 'certain'],
  ])('with jwt.cookie: %s → %s', (_name, headers, expected) => {
    expect(withCookie({ headers })).toBe(expected);
  });
});
