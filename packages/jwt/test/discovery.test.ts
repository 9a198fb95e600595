import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createCaptureLogger,
  createSigningKey,
  mintToken,
  startJwksServer,
  startLoopbackServer,
  type JwksServer,
  type SigningKey,
} from '@authlayer/testkit';
import { createJwtHandler } from '../src/index.js';
import { discoveryUrl } from '@authlayer/core/internal';
import { bearer, createClock, failure, forgetStartUpLines, jwtConfig, NOW, validClaims } from './fixtures.js';

const WELL_KNOWN = '/.well-known/openid-configuration';
let key: SigningKey;
const servers: { close(): Promise<void> }[] = [];
beforeAll(async () => {
  key = await createSigningKey('ES256');
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function serve(options: { discoveryIssuer?: string } = {}): Promise<JwksServer> {
  const server = await startJwksServer([key.publicJwk], options);
  servers.push(server);
  return server;
}

async function discoveringHandler(issuer: string, jwt: Record<string, unknown> = {}, clock = createClock()) {
  const logger = createCaptureLogger();
  const config = jwtConfig({ issuer, discovery: true, algorithms: ['ES256'], ...jwt });
  const handler = await createJwtHandler(config, { env: {}, logger, now: clock.now, jwks: { timeoutMs: 2000 } });
  forgetStartUpLines(logger);
  return { handler, logger, clock, token: (iss = issuer) => mintToken(key, validClaims({ iss, exp: NOW + 86_400 })) };
}

describe('discovery: true', () => {
  it('takes jwks_uri from <issuer>/.well-known/openid-configuration, and refetches both with the key set', async () => {
    const idp = await serve();
    const { handler, clock, token } = await discoveringHandler(idp.issuer);
    expect(idp.hits).toBe(0);
    expect(await handler.authenticate(bearer(await token()))).toMatchObject({ userId: 'user-1' });
    expect(await handler.authenticate(bearer(await token()))).toMatchObject({ userId: 'user-1' });
    expect(idp.paths).toEqual([WELL_KNOWN, '/jwks']);
    clock.advance(600);
    expect(await handler.authenticate(bearer(await token()))).toMatchObject({ userId: 'user-1' });
    expect(idp.paths).toEqual([WELL_KNOWN, '/jwks', WELL_KNOWN, '/jwks']);
  });

  it('never trusts a document that names another issuer: key_unavailable, an error logged, its key set never fetched', async () => {
    const impostor = await serve({ discoveryIssuer: 'https://sso.example.com' });
    const { handler, logger, token } = await discoveringHandler(impostor.issuer);
    const sent = await token();
    await expect(handler.authenticate(bearer(sent))).rejects.toMatchObject(failure('key_unavailable'));
    expect(impostor.paths).toEqual([WELL_KNOWN]);
    expect(logger.lines).toEqual([
      {
        level: 'error',
        message:
          'auth.jwt.discovery: the key set cannot be read (the discovery document names another issuer); tokens are refused until it can',
      },
    ]);
    expect(JSON.stringify(logger.lines)).not.toContain(sent.slice(-20));
    expect(handler.readiness?.()).toEqual({ ready: false, keys: 'unavailable' });
  });

  it('compares the issuer exactly (OpenID Connect Discovery §4.3): a trailing slash is another issuer', async () => {
    const idp = await serve();
    const { handler, logger, token } = await discoveringHandler(`${idp.issuer}/`);
    await expect(handler.authenticate(bearer(await token()))).rejects.toMatchObject(failure('key_unavailable'));
    expect(idp.paths).toEqual([WELL_KNOWN]);
    expect(logger.lines[0]?.level).toBe('error');
  });

  it.each([
    ['a list', [], 'not a JSON object'],
    ['null', null, 'not a JSON object'],
    ['no jwks_uri', {}, 'the discovery document has no usable jwks_uri'],
    ['a file: jwks_uri', { jwks_uri: 'file:///etc/passwd' }, 'the discovery document has no usable jwks_uri'],
    ['a broken jwks_uri', { jwks_uri: 'http://[::1' }, 'the discovery document has no usable jwks_uri'],
  ])('refuses a document that is %s', async (_name, body, cause) => {
    let issuer = '';
    const server = await startLoopbackServer((_request, response) => {
      const document = body !== null && !Array.isArray(body) ? { issuer, ...body } : body;
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
    });
    servers.push(server);
    issuer = server.origin;
    const { handler, logger, token } = await discoveringHandler(issuer);
    await expect(handler.authenticate(bearer(await token()))).rejects.toMatchObject(failure('key_unavailable'));
    expect(logger.lines).toEqual([{ level: 'warn', message: expect.stringContaining(`(${cause})`) }]);
  });

  it('refuses a key set over 1 MiB without reading it whole', async () => {
    const server = await startLoopbackServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(`{"keys":[${'{},'.repeat(400_000)}{}]}`);
    });
    servers.push(server);
    const logger = createCaptureLogger();
    const config = jwtConfig({ jwks_url: `${server.origin}/jwks`, algorithms: ['ES256'] });
    const handler = await createJwtHandler(config, { env: {}, logger, now: createClock().now });
    forgetStartUpLines(logger);
    await expect(handler.authenticate(bearer(await mintToken(key, validClaims())))).rejects.toMatchObject(
      failure('key_unavailable'),
    );
    expect(logger.lines[0]?.message).toContain('(too large)');
  });

  it.each([
    ['a 204 without a body', (response: ServerResponse) => void response.writeHead(204).end()],
    ['a body that stops half-way', (response: ServerResponse) => void response.writeHead(200).write('{"keys":[')],
  ])('refuses %s, or times out on it', async (_name, answer) => {
    const server = await startLoopbackServer((_request, response) => answer(response));
    servers.push(server);
    const logger = createCaptureLogger();
    const config = jwtConfig({ jwks_url: `${server.origin}/jwks`, algorithms: ['ES256'] });
    const handler = await createJwtHandler(config, {
      env: {},
      logger,
      now: createClock().now,
      jwks: { timeoutMs: 300 },
    });
    forgetStartUpLines(logger);
    await expect(handler.authenticate(bearer(await mintToken(key, validClaims())))).rejects.toMatchObject(
      failure('key_unavailable'),
    );
    expect(logger.lines[0]?.message).toMatch(/\((not a 200|timed out)\)/);
  });

  it('builds the document URL as §4 says: the issuer without its trailing slash, then the well-known path', () => {
    expect(discoveryUrl('https://sso.example.com/realms/acme')).toBe(
      `https://sso.example.com/realms/acme${WELL_KNOWN}`,
    );
    expect(discoveryUrl('https://sso.example.com/realms/acme/')).toBe(
      `https://sso.example.com/realms/acme${WELL_KNOWN}`,
    );
  });
});
