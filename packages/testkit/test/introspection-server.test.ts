import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startIntrospectionServer, type IntrospectionMode, type IntrospectionServer } from '../src/index.js';

const clock = { now: 1_800_000_000_000 };
let server: IntrospectionServer;
beforeAll(async () => {
  server = await startIntrospectionServer({ clientId: 'api:x', clientSecret: 's&cret', now: () => clock.now });
});
afterAll(() => server.close());

const post = (form: Record<string, string>, authorization?: string) =>
  fetch(server.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(authorization === undefined ? {} : { authorization }),
    },
    body: new URLSearchParams(form),
  });
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

describe('startIntrospectionServer', () => {
  it('answers active with the claims for a token it issued, until exp or revocation', async () => {
    const token = server.issueToken({ sub: 'u-1', scope: 'a b' }, { expiresIn: 60 });
    const credentials = { client_id: 'api:x', client_secret: 's&cret' };
    expect(await (await post({ token, ...credentials })).json()).toEqual({
      active: true,
      iss: server.issuer,
      client_id: 'api:x',
      iat: 1_800_000_000,
      exp: 1_800_000_060,
      sub: 'u-1',
      scope: 'a b',
    });
    clock.now += 60_000;
    expect(await (await post({ token, ...credentials })).json()).toEqual({ active: false });
    clock.now -= 60_000;
    server.revoke(token);
    expect(await (await post({ token, ...credentials })).json()).toEqual({ active: false });
    expect(await (await post({ token: 'never', ...credentials })).json()).toEqual({ active: false });
    expect(await (await post({ ...credentials })).json()).toEqual({ active: false });
    expect((await post({ token, client_id: 'api:x' })).status).toBe(401);
  });

  it('takes client_secret_basic with form-encoded credentials, and refuses a wrong client', async () => {
    const token = server.issueToken();
    expect((await (await post({ token }, basic('api%3Ax', 's%26cret'))).json()) as object).toMatchObject({
      active: true,
    });
    const noColon = `Basic ${Buffer.from('api%3Ax').toString('base64')}`;
    for (const authorization of [basic('api%3Ax', 'wrong'), basic('api%3Ax', '%E0%A4%A'), noColon, undefined]) {
      const response = await post({ token }, authorization);
      expect([response.status, await response.json()]).toEqual([401, { error: 'invalid_client' }]);
    }
  });

  it('serves discovery metadata naming itself, and uses its own origin as the default issuer', async () => {
    const metadata = await (await fetch(`${new URL(server.url).origin}/.well-known/openid-configuration`)).json();
    expect(metadata).toEqual({ issuer: server.issuer, introspection_endpoint: server.url });
    expect(server.issuer).toBe(new URL(server.url).origin);
    expect(server.clientSecret).toBe('s&cret');
  });

  it.each([
    ['fail', 500, 'internal error'],
    ['garbage', 200, '{"active":tru'],
    ['html', 200, '<!doctype html><p>Sign in'],
  ] as [IntrospectionMode, number, string][])(
    'answers badly when told: %s, and counts every request',
    async (mode, status, text) => {
      const before = server.requests;
      server.setMode(mode);
      try {
        const response = await post({ token: 'x' });
        expect([response.status, await response.text()]).toEqual([status, text]);
      } finally {
        server.setMode('ok');
      }
      expect(server.requests).toBe(before + 1);
    },
  );

  it('hangs when told', async () => {
    server.setMode('hang');
    try {
      await expect(
        fetch(server.url, { method: 'POST', body: 'token=x', signal: AbortSignal.timeout(100) }),
      ).rejects.toThrow();
    } finally {
      server.setMode('ok');
    }
  });

  it('makes up a client and a random secret by default', async () => {
    const other = await startIntrospectionServer();
    try {
      expect(other.clientId).toBe('test-api');
      expect(other.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(other.issueToken()).not.toBe(other.issueToken());
    } finally {
      await other.close();
    }
  });
});
