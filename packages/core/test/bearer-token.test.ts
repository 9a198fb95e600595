import { describe, expect, it } from '@jest/globals';
import { isToken68, readBearerToken, readSchemeCandidate, readSchemeToken } from '../src/bearer-token.js';

type Authorization = string | string[] | undefined;
const read = (authorization: Authorization, extra: Record<string, string> = {}) =>
  readBearerToken({ headers: { ...extra, authorization } });

describe('readBearerToken', () => {
  it.each<[string, Authorization]>([
    ['no header', undefined],
    ['an empty header', ''],
    ['the Basic scheme', 'Basic dXNlcjpwYXNz'],
    ['the Digest scheme', 'Digest username="a"'],
    ['a scheme that starts with Bearer', 'Bearerabc'],
    ['a scheme shorter than Bearer', 'Bear abc'],
    ['a scheme with Bearer inside', 'xBearer abc'],
    ['a scheme whose lower case is longer (U+0130)', 'Bear\u0130r abc'],
    ['a tab-separated other scheme', 'Basic\tabc'],
  ])('is absent for %s', (_name, authorization) => {
    expect(read(authorization)).toEqual({ kind: 'absent' });
  });

  it('is absent when only another header holds a token', () => {
    expect(readBearerToken({ headers: { 'x-api-key': 'Bearer abc' } })).toEqual({ kind: 'absent' });
  });

  it.each<[string, Authorization, string]>([
    ['Bearer', 'Bearer abc.def-ghi_jkl~mno+pqr/stu', 'abc.def-ghi_jkl~mno+pqr/stu'],
    ['bearer in lower case', 'bearer abc', 'abc'],
    ['BEARER in upper case', 'BEARER abc', 'abc'],
    ['mixed case', 'bEaReR abc', 'abc'],
    ['extra spaces around the token', 'Bearer    abc  ', 'abc'],
    ['trailing = padding', 'Bearer abc==', 'abc=='],
    ['a JWT', 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig', 'eyJhbGciOiJIUzI1NiJ9.e30.sig'],
  ])('reads the token with %s', (_name, authorization, token) => {
    expect(read(authorization)).toEqual({ kind: 'token', token });
  });

  it.each<[string, Authorization]>([
    ['the scheme alone', 'Bearer'],
    ['an empty token', 'Bearer '],
    ['only spaces', 'Bearer    '],
    ['two tokens', 'Bearer abc def'],
    ['a quote', 'Bearer ab"c'],
    ['a comma', 'Bearer abc,def'],
    ['padding in the middle', 'Bearer ab=c'],
    ['padding only', 'Bearer ='],
    ['non-ASCII', 'Bearer ключ'],
    ['a control character', 'Bearer abc\u0000'],
    ['an array of headers', ['Bearer abc', 'Bearer def']],
    ['a tab instead of a space', 'Bearer\tabc'],
    ['a tab after the space', 'Bearer \tabc'.replace(' \t', '\t ')],
  ])('is malformed for %s', (_name, authorization) => {
    expect(read(authorization)).toEqual({ kind: 'malformed' });
  });

  it.each<[string, string[]]>([
    ['a valid token then garbage', ['Authorization', 'Bearer abc', 'Authorization', 'Bearer garbage!']],
    ['garbage then a valid token', ['authorization', 'Bearer garbage!', 'AUTHORIZATION', 'Bearer abc']],
    ['two valid tokens', ['Authorization', 'Bearer abc', 'Authorization', 'Bearer abc']],
    ['Basic then Bearer', ['Authorization', 'Basic YTpi', 'Authorization', 'Bearer abc']],
  ])('is malformed for several Authorization headers in rawHeaders: %s', (_name, rawHeaders) => {
    // Node's `headers` keeps the first Authorization header only; rawHeaders has them all.
    const headers = { authorization: rawHeaders[1] };
    expect(readBearerToken({ headers, rawHeaders })).toEqual({ kind: 'malformed' });
  });

  it('reads rawHeaders rather than headers when both are there', () => {
    const rawHeaders = ['Host', 'x', 'Authorization', '', 'Authorization', 'Bearer abc'];
    expect(readBearerToken({ headers: {}, rawHeaders })).toEqual({ kind: 'token', token: 'abc' });
    expect(readBearerToken({ headers: { authorization: 'Bearer abc' }, rawHeaders: [] })).toEqual({ kind: 'absent' });
  });

  it('returns frozen shared results for absent and malformed', () => {
    expect(Object.isFrozen(read(undefined))).toBe(true);
    expect(read('Bearer')).toBe(read('bearer a b'));
  });
});

describe('readSchemeCandidate', () => {
  const values = [
    '',
    'Basic dXNlcjpwYXNz',
    'Bearerabc',
    'Bear\u0130r abc',
    'Basic\tabc',
    'Bearer abc.def-ghi_jkl~mno+pqr/stu',
    'bEaReR abc',
    'Bearer    abc  ',
    'Bearer abc==',
    'Bearer',
    'Bearer ',
    'Bearer abc def',
    'Bearer ab"c',
    'Bearer ab=c',
    'Bearer ключ',
    'Bearer\tabc',
    'Bearer\t abc',
    'DPoP abc',
  ];

  it.each(values)('is readSchemeToken without the token68 check of the token: %j', (authorization) => {
    for (const scheme of ['bearer', 'dpop']) {
      const request = { headers: { authorization } };
      const candidate = readSchemeCandidate(request, scheme);
      const checked = candidate.kind === 'token' && !isToken68(candidate.token) ? { kind: 'malformed' } : candidate;
      expect(checked).toEqual(readSchemeToken(request, scheme));
    }
  });

  it('hands over a token it did not check', () => {
    expect(readSchemeCandidate({ headers: { authorization: 'Bearer ab"c' } }, 'bearer')).toEqual({
      kind: 'token',
      token: 'ab"c',
    });
    expect([isToken68('ab"c'), isToken68(''), isToken68('abc==')]).toEqual([false, false, true]);
  });
});
