import { beforeAll, describe, expect, it } from '@jest/globals';
import { createSigningKey, mintToken, type SigningKey } from '@authlayer/testkit';
import { bearer, failure, staticHandler, validClaims } from './fixtures.js';

let key: SigningKey;
beforeAll(async () => {
  key = await createSigningKey('ES256');
});

describe('token_type (RFC 9068 §4: typ at+jwt, the application/ prefix allowed)', () => {
  const typed = (typ: string | undefined) => mintToken(key, validClaims(), { typ });

  it.each([
    ['at+jwt', 'at+jwt', true],
    ['at+jwt', 'application/at+jwt', true],
    ['at+jwt', 'AT+JWT', true],
    ['application/at+jwt', 'at+jwt', true],
    ['application/at+jwt', 'Application/AT+JWT', true],
    ['at+jwt', 'JWT', false],
    ['at+jwt', undefined, false],
    ['at+jwt', 'application/jwt', false],
    ['at+jwt', 'text/at+jwt', false],
    ['JWT', 'JWT', true],
    ['JWT', 'at+jwt', false],
  ] as const)('token_type %s, typ %s: accepted %s', async (tokenType, typ, accepted) => {
    const { handler } = await staticHandler(key, { token_type: tokenType });
    const answer = handler.authenticate(bearer(await typed(typ)));
    if (accepted) await expect(answer).resolves.toMatchObject({ userId: 'user-1' });
    else await expect(answer).rejects.toMatchObject(failure('token_type_mismatch'));
  });

  it('accepts any typ, or none, when token_type is not set', async () => {
    const { handler } = await staticHandler(key);
    for (const typ of ['at+jwt', 'JWT', undefined, 'anything']) {
      await expect(handler.authenticate(bearer(await typed(typ)))).resolves.toMatchObject({ userId: 'user-1' });
    }
  });

  it('checks typ after the signature: a forged token is signature_invalid whatever its typ', async () => {
    const { handler } = await staticHandler(key, { token_type: 'at+jwt' });
    const token = await typed('JWT');
    const forged = `${token.slice(0, token.lastIndexOf('.'))}.${'A'.repeat(86)}`;
    await expect(handler.authenticate(bearer(forged))).rejects.toMatchObject(failure('signature_invalid'));
  });
});

describe('a handler with a static key', () => {
  it('is always ready, and names its key variable without its value', async () => {
    const { handler } = await staticHandler(key);
    expect(handler.readiness?.()).toEqual({ ready: true });
    expect(handler.describe?.()).toEqual({
      key_material: { JWT_KEY: 'set' },
      issuers: [{ config: 'auth.jwt', issuer: null, key_source: 'public_key_env', keys: 'static', trust_roles: true }],
    });
    expect(JSON.stringify(handler.describe?.())).not.toContain(key.envValue.slice(30, 60));
  });
});

describe('required_claims', () => {
  it('accepts a token holding each claim, dot paths included', async () => {
    const { handler, token } = await staticHandler(key, { required_claims: ['sub', 'realm_access.roles', 'org'] });
    const sent = await token({ realm_access: { roles: [] }, org: 'acme' });
    await expect(handler.authenticate(bearer(sent))).resolves.toMatchObject({ userId: 'user-1' });
  });

  it.each([
    ['a missing claim', { org: undefined }],
    ['a null claim', { org: null }],
    ['a missing nested claim', { realm_access: {} }],
    ['a nested claim under a non-object', { realm_access: 'admin' }],
  ])('refuses %s with claim_invalid', async (_name, extra) => {
    const { handler, token } = await staticHandler(key, { required_claims: ['realm_access.roles', 'org'] });
    const sent = await token({ realm_access: { roles: ['a'] }, org: 'acme', ...extra } as Record<string, unknown>);
    await expect(handler.authenticate(bearer(sent))).rejects.toMatchObject(failure('claim_invalid'));
  });
});
