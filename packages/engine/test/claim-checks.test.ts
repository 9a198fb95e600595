import { describe, expect, it } from '@jest/globals';
import { createAuthContext, type AccessRequirement } from '@authlayer/core';
import { claimRefusal, stepUpRefusal } from '../src/access/claim-checks.js';
import { mayForbid } from '../src/access/rules.js';
import { toRule } from '../src/access/rule-input.js';

// The checks that read verified claims, on contexts made here: every shape a claim may have.

const NOW_SECONDS = 1_800_000_000;
const now = () => NOW_SECONDS * 1000 + 500;
const LEEWAY = 30;
// As a JWT provider maps its tokens: the issuer's leeway_seconds travels with the context.
const token = (claims: Record<string, unknown>, leewaySeconds = LEEWAY) =>
  createAuthContext({ method: 'jwt', userId: 'u', claims, leewaySeconds });
const requirement = (extra: Partial<AccessRequirement>): AccessRequirement => ({
  permissions: [],
  scopes: [],
  roles: [],
  ...extra,
});

describe('claimRefusal', () => {
  const rule = requirement({ claims: { 'org.tier': ['gold', 2, false] } });

  it.each([
    ['a string equal to one value', { org: { tier: 'gold' } }, true],
    ['a number equal to one value', { org: { tier: 2 } }, true],
    ['false equal to one value', { org: { tier: false } }, true],
    ['a list containing one value', { org: { tier: ['x', 'gold'] } }, true],
    ['a top-level claim named by the whole path', { 'org.tier': 'gold' }, true],
    ['another value', { org: { tier: 'silver' } }, false],
    ['the number as a string', { org: { tier: '2' } }, false],
    ['a list inside a list', { org: { tier: [['gold']] } }, false],
    ['an object', { org: { tier: { gold: true } } }, false],
    ['null', { org: { tier: null } }, false],
    ['no such claim', { org: {} }, false],
    ['an empty list', { org: { tier: [] } }, false],
  ])('%s: %j holds it: %s', (_name, claims, holds) => {
    const refusal = claimRefusal(rule, token(claims));
    if (holds) expect(refusal).toBeNull();
    else
      expect(refusal).toMatchObject({ status: 403, reason: 'claim_mismatch', challenge: null, missing: ['org.tier'] });
  });

  it('needs every claim listed, and refuses a context without claims (an API key)', () => {
    const two = requirement({ claims: { a: ['1'], b: ['2'] } });
    expect(claimRefusal(two, token({ a: '1', b: '2' }))).toBeNull();
    expect(claimRefusal(two, token({ a: '1', b: '3' }))?.missing).toEqual(['b']);
    expect(claimRefusal(two, createAuthContext({ method: 'api_key', userId: 'k' }))?.missing).toEqual(['a']);
  });
});

describe('stepUpRefusal', () => {
  const rule = requirement({ acr: ['urn:mfa'], maxAge: 60 });
  const challenge =
    'Bearer realm="authlayer", error="insufficient_user_authentication", error_description="a stronger or more ' +
    'recent authentication is required", acr_values="urn:mfa", max_age=60';

  it.each([
    ['auth_time exactly max_age old', { acr: 'urn:mfa', auth_time: NOW_SECONDS - 60 }, true],
    ['auth_time a little in the future (clock skew)', { acr: 'urn:mfa', auth_time: NOW_SECONDS + 5 }, true],
    ['auth_time one second too old', { acr: 'urn:mfa', auth_time: NOW_SECONDS - 61 }, false],
    ['another acr', { acr: 'urn:pwd', auth_time: NOW_SECONDS }, false],
    ['acr as a list', { acr: ['urn:mfa'], auth_time: NOW_SECONDS }, false],
    ['no acr', { auth_time: NOW_SECONDS }, false],
    ['no auth_time', { acr: 'urn:mfa' }, false],
    ['auth_time as a string', { acr: 'urn:mfa', auth_time: String(NOW_SECONDS) }, false],
    ['auth_time null', { acr: 'urn:mfa', auth_time: null }, false],
  ])('%s: holds it: %s', (_name, claims, holds) => {
    const refusal = stepUpRefusal(rule, token(claims), now);
    if (holds) expect(refusal).toBeNull();
    else expect(refusal).toMatchObject({ name: 'AuthError', status: 401, reason: 'step_up_required', challenge });
  });

  describe('max_age: an auth_time in the future', () => {
    const recent = requirement({ maxAge: 300 });
    it.each([
      ['now + leeway', NOW_SECONDS + LEEWAY, true],
      ['now + leeway + 1', NOW_SECONDS + LEEWAY + 1, false],
      ['now + 1 year', NOW_SECONDS + 365 * 86_400, false],
      ['1e308', 1e308, false],
      ['Infinity is no number a token holds, and fails too', Infinity, false],
    ])('%s (auth_time %s): holds it: %s', (_name, authTime, holds) => {
      const refusal = stepUpRefusal(recent, token({ auth_time: authTime }), now);
      if (holds) expect(refusal).toBeNull();
      else expect(refusal).toMatchObject({ status: 401, reason: 'step_up_required' });
    });

    it("takes the issuer's own leeway: none given is 0, so now + 1 fails and now passes", () => {
      expect(stepUpRefusal(recent, token({ auth_time: NOW_SECONDS }, 0), now)).toBeNull();
      expect(stepUpRefusal(recent, token({ auth_time: NOW_SECONDS + 1 }, 0), now)?.reason).toBe('step_up_required');
      const withoutLeeway = createAuthContext({ method: 'oauth2', claims: { auth_time: NOW_SECONDS + 1 } });
      expect(stepUpRefusal(recent, withoutLeeway, now)?.reason).toBe('step_up_required');
      expect(stepUpRefusal(recent, token({ auth_time: NOW_SECONDS + 300 }, 300), now)).toBeNull();
    });
  });

  it('asks nothing of a requirement without acr or maxAge, and refuses an API key one that has them', () => {
    expect(stepUpRefusal(requirement({ roles: ['x'] }), createAuthContext({ method: 'api_key' }), now)).toBeNull();
    expect(stepUpRefusal(requirement({ maxAge: 0 }), createAuthContext({ method: 'api_key' }), now)?.challenge).toMatch(
      /, max_age=0$/,
    );
  });
});

describe('mayForbid (OpenAPI: may this rule answer 403?)', () => {
  it.each([
    [{ acr: ['x'] }, false],
    [{ maxAge: 5 }, false],
    [{ acr: ['x'], roles: ['r'] }, true],
    [{ acr: ['x'], claims: { a: ['b'] } }, true],
    [{ acr: ['x'], any: [{ roles: ['r'] }] }, true],
    [{ roles: ['r'] }, true],
  ])('%j: %s', (rule, expected) => {
    expect(mayForbid(toRule(rule))).toBe(expected);
  });
});
