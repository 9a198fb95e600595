import { describe, expect, it } from '@jest/globals';
import { checkAnswer } from '../src/check-answer.js';

const NOW = 1_800_000_000_000;
const SECONDS = NOW / 1000;
const NONE = { issuer: null, audience: null };
const refusal = (reason: string) => ({ name: 'AuthError', status: 401, reason });

describe('checkAnswer', () => {
  it('accepts an active answer and returns exp in milliseconds, or null without exp', () => {
    expect(checkAnswer({ active: true, exp: SECONDS + 1 }, NONE, NOW)).toBe(NOW + 1000);
    expect(checkAnswer({ active: true }, NONE, NOW)).toBeNull();
    expect(checkAnswer({ active: true, exp: null, nbf: null }, NONE, NOW)).toBeNull();
  });

  it.each([{}, { active: false }, { active: 'true' }, { active: 1 }])('refuses %p as credentials_invalid', (answer) => {
    expect(() => checkAnswer(answer, NONE, NOW)).toThrow(expect.objectContaining(refusal('credentials_invalid')));
  });

  it('refuses exp at or before now, and nbf after now (both sides of each boundary)', () => {
    expect(() => checkAnswer({ active: true, exp: SECONDS }, NONE, NOW)).toThrow(
      expect.objectContaining(refusal('token_expired')),
    );
    expect(() => checkAnswer({ active: true, nbf: SECONDS + 0.001 }, NONE, NOW)).toThrow(
      expect.objectContaining(refusal('token_not_yet_valid')),
    );
    expect(checkAnswer({ active: true, nbf: SECONDS, exp: SECONDS + 0.001 }, NONE, NOW)).toBe(NOW + 1);
  });

  it.each([{ exp: '1800000000' }, { exp: Infinity }, { nbf: {} }])('calls %p a garbled answer', (fields) => {
    expect(() => checkAnswer({ active: true, ...fields }, NONE, NOW)).toThrow(
      expect.objectContaining({ name: 'FetchFailure', kind: 'a garbled answer' }),
    );
  });

  it('checks iss exactly and aud as a string or a list', () => {
    const expected = { issuer: 'https://idp', audience: 'api' };
    expect(checkAnswer({ active: true, iss: 'https://idp', aud: 'api' }, expected, NOW)).toBeNull();
    expect(checkAnswer({ active: true, iss: 'https://idp', aud: ['x', 'api'] }, expected, NOW)).toBeNull();
    for (const iss of ['https://idp/', undefined, ['https://idp']]) {
      expect(() => checkAnswer({ active: true, iss, aud: 'api' }, expected, NOW)).toThrow(
        expect.objectContaining(refusal('issuer_mismatch')),
      );
    }
    for (const aud of ['API', undefined, ['x'], { api: true }]) {
      expect(() => checkAnswer({ active: true, iss: 'https://idp', aud }, expected, NOW)).toThrow(
        expect.objectContaining(refusal('audience_mismatch')),
      );
    }
  });
});
