import { describe, expect, it } from '@jest/globals';
import { apiKeyChallenge, bearerChallenge, combineChallenges, splitChallenges } from '../src/challenge.js';

const apiKeyMissing = apiKeyChallenge('X-API-Key', true, 'credentials_missing');
const expired = bearerChallenge('token_expired');

describe('splitChallenges', () => {
  it('splits at each scheme, not at the auth-params of one challenge', () => {
    expect(splitChallenges(apiKeyChallenge('X-API-Key', true, 'credentials_invalid'))).toEqual([
      'ApiKey realm="authlayer", header="X-API-Key"',
      'Bearer realm="authlayer", error="invalid_token", error_description="the credentials are not valid"',
    ]);
  });

  it('never splits inside a quoted string (commas and escaped quotes included)', () => {
    const value = 'Bearer realm="a, Basic b=c", error_description="x \\", Basic y"';
    expect(splitChallenges(value)).toEqual([value]);
  });

  it('keeps one challenge whole and drops empty parts', () => {
    expect(splitChallenges('Bearer realm="authlayer"')).toEqual(['Bearer realm="authlayer"']);
    expect(splitChallenges('')).toEqual([]);
  });
});

describe('combineChallenges', () => {
  it('lists every scheme once, the first mode speaking for its own', () => {
    expect(combineChallenges(expired, apiKeyMissing)).toBe(`${expired}, ApiKey realm="authlayer", header="X-API-Key"`);
  });

  it('gives every challenge of a request without credentials', () => {
    expect(combineChallenges(apiKeyMissing, bearerChallenge('credentials_missing'))).toBe(
      'ApiKey realm="authlayer", header="X-API-Key", Bearer realm="authlayer"',
    );
  });

  it('compares schemes case-insensitively', () => {
    expect(combineChallenges('Bearer realm="a"', 'bearer realm="b"', 'ApiKey realm="c"')).toBe(
      'Bearer realm="a", ApiKey realm="c"',
    );
  });
});
