import { describe, expect, it } from '@jest/globals';
import { createAuthContext, verifiedClaims } from '@authlayer/core';
import { createAuthInfo } from '../src/request/auth-info.js';

// `req.auth` of a request let through: the shared context's JSON, plus the MCP SDK's AuthInfo
// fields worked out from the request (its token, the client, the expiry, the resource).

const handler = {
  credentialHeaders: ['authorization', 'x-api-key'],
  credentialExpiry: () => ({
    expiresAt: 1_900_000_000,
    refusedFrom: 1_900_000_000_000,
    reason: 'token_expired' as const,
  }),
};
const jwt = createAuthContext({
  method: 'jwt',
  userId: 'ada',
  scopes: ['read'],
  issuer: 'https://issuer.example',
  claims: { sub: 'ada', azp: 'the-app' },
});
const request = (headers: Record<string, string | string[]>) => ({ headers });

describe('createAuthInfo', () => {
  it("keeps the context's JSON and adds token, clientId, expiresAt and resource as getters", () => {
    const info = createAuthInfo(handler, 'https://api.example.com')(jwt, request({ authorization: 'Bearer t0k' }));
    expect(JSON.parse(JSON.stringify(info))).toEqual(JSON.parse(JSON.stringify(jwt)));
    expect(info.issuer).toBe('https://issuer.example');
    expect([info.token, info.clientId, info.expiresAt]).toEqual(['t0k', 'the-app', 1_900_000_000]);
    expect(info.resource?.href).toBe('https://api.example.com/');
    // A fresh URL each time: one shared by every request could be changed by one.
    expect(info.resource).not.toBe(info.resource);
    expect(verifiedClaims(info)).toEqual({ sub: 'ada', azp: 'the-app' });
    expect(Object.isFrozen(info)).toBe(true);
  });

  it('clientId: client_id first, then azp, then sub, then the userId', () => {
    const made = createAuthInfo({}, null);
    const of = (claims?: Record<string, unknown>) =>
      made(createAuthContext({ method: 'jwt', userId: 'u', ...(claims ? { claims } : {}) }), request({})).clientId;
    expect(of({ client_id: 'c', azp: 'a', sub: 's' })).toBe('c');
    expect(of({ client_id: '', azp: 'a', sub: 's' })).toBe('a');
    expect(of({ azp: 7, sub: 's' })).toBe('s');
    expect(of()).toBe('u');
  });

  it("the token is the Authorization header's credential, else the mode's own header", () => {
    const made = createAuthInfo(handler, null);
    const key = createAuthContext({ method: 'api_key', userId: 'SERVICE' });
    expect(made(key, request({ 'x-api-key': 'k3y' })).token).toBe('k3y');
    expect(made(key, request({ authorization: 'DPoP  tok ' })).token).toBe('tok');
    expect(made(key, request({ authorization: 'NoSpace', 'x-api-key': 'k3y' })).token).toBe('k3y');
    expect(made(key, request({ 'x-api-key': ['a', 'b'] })).token).toBe('');
    expect(made(key, request({})).token).toBe('');
  });

  it('an anonymous caller has no token and no client, whatever it sent; no resource or expiry unconfigured', () => {
    const info = createAuthInfo({}, null)(createAuthContext({ method: 'none' }), request({ 'x-api-key': 'k' }));
    expect([info.token, info.clientId, info.expiresAt, info.resource]).toEqual(['', '', undefined, undefined]);
  });
});
