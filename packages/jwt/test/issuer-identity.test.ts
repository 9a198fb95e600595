import { beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger, createSigningKey, expectedContext, mintToken, type SigningKey } from '@authlayer/testkit';
import { createJwtHandler } from '../src/index.js';
import { bearer, jwtConfig, now, validClaims } from './fixtures.js';

// Issue: with providers, issuer A's alice and issuer B's `sub: "alice"` gave byte-identical
// AuthContexts, permissions from the top-level roles included.
const A = 'https://sso.example.com';
const B = 'https://partner.example.com';
const ROLES = [{ name: 'admin', permissions: ['invoke', 'export'] }];
let keyA: SigningKey;
let keyB: SigningKey;
const env = () => ({ A_KEY: keyA.envValue, B_KEY: keyB.envValue });

beforeAll(async () => {
  [keyA, keyB] = await Promise.all([createSigningKey('HS256'), createSigningKey('HS256')]);
});

async function handlerFor(partner: Record<string, unknown> = {}) {
  const config = jwtConfig(
    {
      algorithms: ['HS256'],
      providers: [
        { issuer: A, public_key_env: 'A_KEY' },
        { issuer: B, public_key_env: 'B_KEY', ...partner },
      ],
    },
    ROLES,
  );
  return createJwtHandler(config, { env: env(), logger: createCaptureLogger(), now });
}

const aliceOf = async (key: SigningKey, iss: string) =>
  bearer(await mintToken(key, validClaims({ iss, sub: 'alice', roles: ['admin'] })));

describe('several issuers: the context says which issuer vouched', () => {
  it("issuer A's alice and issuer B's alice are different identities (issuer set)", async () => {
    const handler = await handlerFor();
    const fromA = await handler.authenticate(await aliceOf(keyA, A));
    const fromB = await handler.authenticate(await aliceOf(keyB, B));
    const alice = (issuer: string) =>
      expectedContext({ method: 'jwt', userId: 'alice', roles: ['admin'], permissions: ['invoke', 'export'], issuer });
    expect(fromA).toEqual(alice(A));
    expect(fromB).toEqual(alice(B));
    expect(JSON.stringify(fromA)).not.toBe(JSON.stringify(fromB));
  });

  it("trust_roles: false → B's roles are listed but the roles section gives them no permission", async () => {
    const handler = await handlerFor({ trust_roles: false });
    const fromB = await handler.authenticate(
      bearer(await mintToken(keyB, validClaims({ iss: B, sub: 'alice', roles: ['admin'], permissions: ['read'] }))),
    );
    expect(fromB).toEqual(
      expectedContext({ method: 'jwt', userId: 'alice', roles: ['admin'], permissions: ['read'], issuer: B }),
    );
    await expect(handler.authenticate(await aliceOf(keyA, A))).resolves.toMatchObject({
      permissions: ['invoke', 'export'],
    });
    expect(handler.describe?.()).toMatchObject({
      issuers: [
        { issuer: A, trust_roles: true },
        { issuer: B, trust_roles: false },
      ],
    });
  });

  it('one issuer (no providers): the context has no issuer field, as the contract shapes it', async () => {
    const config = jwtConfig({ issuer: A, algorithms: ['HS256'], public_key_env: 'A_KEY' }, ROLES);
    const handler = await createJwtHandler(config, { env: env(), logger: createCaptureLogger(), now });
    const context = await handler.authenticate(await aliceOf(keyA, A));
    expect(Object.keys(context)).not.toContain('issuer');
    expect(context.permissions).toEqual(['invoke', 'export']);
  });

  it('trust_roles: false on auth.jwt alone: the one issuer’s roles give no permission', async () => {
    const config = jwtConfig({ algorithms: ['HS256'], public_key_env: 'A_KEY', trust_roles: false }, ROLES);
    const handler = await createJwtHandler(config, { env: env(), logger: createCaptureLogger(), now });
    await expect(handler.authenticate(await aliceOf(keyA, A))).resolves.toMatchObject({
      roles: ['admin'],
      permissions: [],
    });
  });
});
