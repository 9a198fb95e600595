import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createAuthContext, ForbiddenError, type AuthContext } from '@authlayer/core';
import { carriesCredentials } from '../src/access/credentials.js';
import { routePlanOf } from '../src/access/route-plans.js';
import { missingNames, neededScopes, ruleRefusal } from '../src/access/rules.js';
import { toRule } from '../src/access/rule-input.js';
import type { Engine } from '../src/engine.js';
import { engineAt } from './support/engine-at.js';

// The edges of the access checks an adapter meets: a header present without a value, a table
// without `default`, a `req.auth` that something else set, `scopes.implies`, and a guard's clock.

describe('carriesCredentials', () => {
  it('a credential header present with no value (undefined) carries nothing; any value does', () => {
    expect(carriesCredentials({ headers: { authorization: undefined } }, ['authorization'])).toBe(false);
    expect(carriesCredentials({ headers: { 'x-api-key': '' } }, ['authorization', 'x-api-key'])).toBe(true);
  });
});

describe('routePlanOf without access.default', () => {
  let engine: Engine;
  beforeAll(async () => {
    ({ engine } = await engineAt({ access: { 'GET /open': 'public' } }));
  });
  afterAll(() => engine.close());

  it('a request no key names asks for a caller (authenticated)', () => {
    const made = routePlanOf(engine.current(), '', () => []);
    expect(made.fallback).toBe('authenticated');
    expect(made.plan).toMatchObject({ authentication: 'required', denied: false, askedBy: 'default' });
  });
});

describe('missingNames', () => {
  it('a list that is not an array (a req.auth set by other code) holds nothing', () => {
    const forged = { roles: 'superadmin', scopes: 'a b' } as unknown as AuthContext;
    expect(missingNames(forged, 'roles', ['admin'])).toEqual(['admin']);
    expect(missingNames(forged, 'scopes', ['a'], { b: ['a'] })).toEqual(['a']);
  });

  it('with scopes.implies, a held scope grants the scopes it implies, and nothing else', () => {
    const context = createAuthContext({ method: 'jwt', userId: 'u', scopes: ['files:write'] });
    const implies = { 'files:write': ['files:read'] };
    expect(missingNames(context, 'scopes', ['files:read', 'files:write'], implies)).toEqual([]);
    expect(missingNames(context, 'scopes', ['files:read', 'files:delete'], implies)).toEqual(['files:delete']);
    // Without implies: only what is held.
    expect(missingNames(context, 'scopes', ['files:read'])).toEqual(['files:read']);
  });
});

describe('neededScopes', () => {
  it('a refusal made elsewhere (not for want of scopes) needs no scope', () => {
    expect(neededScopes(new ForbiddenError('role_missing', null, ['admin']))).toEqual([]);
  });
});

describe('ruleRefusal without a clock (a guard given no request scope)', () => {
  it('reads the real clock: an authentication of 1970 is older than any max_age', () => {
    const rule = toRule({ maxAge: 300 });
    const context = createAuthContext({ method: 'jwt', userId: 'u', claims: { auth_time: 1 } });
    expect(ruleRefusal(rule, context, { headers: {} })).toMatchObject({ reason: 'step_up_required' });
  });
});
