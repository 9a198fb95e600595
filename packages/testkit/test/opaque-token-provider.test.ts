import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import {
  OIDC_RESOURCE,
  startOpaqueTokenProvider,
  type IntrospectionMode,
  type OpaqueTokenProvider,
} from '../src/index.js';

let provider: OpaqueTokenProvider;
beforeAll(async () => {
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  provider = await startOpaqueTokenProvider();
  warn.mockRestore();
});
afterAll(() => provider.close());

const introspect = (token: string) =>
  fetch(provider.introspectionEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      token,
      client_id: provider.clients.post.id,
      client_secret: provider.clients.post.secret,
    }),
  });

describe('startOpaqueTokenProvider', () => {
  it('issues opaque tokens that its introspection endpoint answers as active, until revoked', async () => {
    const token = await provider.obtainToken();
    expect(token.split('.')).toHaveLength(1);
    expect(await (await introspect(token)).json()).toMatchObject({
      active: true,
      client_id: 'reporting-job',
      iss: provider.issuer,
      aud: OIDC_RESOURCE,
      scope: 'invoke read',
      realm_access: { roles: ['reporter'] },
      org: { id: 'acme' },
    });
    await provider.revoke(token);
    expect(await (await introspect(token)).json()).toEqual({ active: false });
  });

  it('authenticates its basic client and counts introspections', async () => {
    const before = provider.introspections;
    const { id, secret } = provider.clients.basic;
    const response = await fetch(provider.introspectionEndpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ token: 'unknown' }),
    });
    expect(await response.json()).toEqual({ active: false });
    expect(provider.introspections).toBe(before + 1);
  });

  it.each([
    ['fail', 500, 'internal error'],
    ['garbage', 200, '{"active":tru'],
    ['html', 200, '<!doctype html><title>Sign in</title><p>Sign in'],
  ] as [IntrospectionMode, number, string][])('answers badly when told: %s', async (mode, status, body) => {
    provider.setMode(mode);
    try {
      const response = await introspect('x');
      expect([response.status, await response.text()]).toEqual([status, body]);
    } finally {
      provider.setMode('ok');
    }
  });

  it('hangs when told (the caller times out)', async () => {
    provider.setMode('hang');
    try {
      await expect(
        fetch(provider.introspectionEndpoint, { method: 'POST', signal: AbortSignal.timeout(100) }),
      ).rejects.toThrow();
    } finally {
      provider.setMode('ok');
    }
  });

  it('says so when it cannot revoke (an unknown client is refused)', async () => {
    await expect(provider.revoke('')).rejects.toThrow(/the provider did not revoke the token \(HTTP \d+\)/);
  });
});
