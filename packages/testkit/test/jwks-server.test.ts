import { afterEach, describe, expect, it } from '@jest/globals';
import { createSigningKey, startJwksServer, type JwksServer } from '../src/index.js';

let server: JwksServer | undefined;
afterEach(async () => server?.close());

describe('startJwksServer', () => {
  it('serves the key set on 127.0.0.1 and counts hits', async () => {
    const key = await createSigningKey('ES256', { kid: 'a' });
    server = await startJwksServer([key.publicJwk]);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/jwks$/);
    const answer = await fetch(server.url);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ keys: [key.publicJwk] });
    expect(server.hits).toBe(1);
  });

  it('answers late when told to (a slow provider)', async () => {
    const key = await createSigningKey('ES256');
    server = await startJwksServer([key.publicJwk]);
    server.setDelay(200);
    const started = performance.now();
    expect((await fetch(server.url)).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('rotates keys and answers 500, garbage or a non key set when told', async () => {
    const [a, b] = [await createSigningKey('RS256'), await createSigningKey('RS256')];
    server = await startJwksServer([a.publicJwk]);
    server.setKeys([b.publicJwk]);
    expect(((await (await fetch(server.url)).json()) as { keys: { kid: string }[] }).keys[0]?.kid).toBe(b.kid);
    server.setMode('fail');
    expect((await fetch(server.url)).status).toBe(500);
    server.setMode('garbage');
    expect(await (await fetch(server.url)).text()).toBe('<html>not json');
    server.setMode('not-a-key-set');
    expect(await (await fetch(server.url)).json()).toEqual({ keys: 'nope' });
    expect(server.hits).toBe(4);
  });

  it('refuses something that is not a JWK (a SigningKey passes the type check)', async () => {
    const key = await createSigningKey('ES256');
    await expect(startJwksServer([key as never])).rejects.toThrow(TypeError);
    server = await startJwksServer([key.publicJwk]);
    expect(() => server?.setKeys([key as never])).toThrow('pass JWKs (key.publicJwk), not SigningKeys');
  });

  it('hangs without answering, and close() still ends the pending request', async () => {
    server = await startJwksServer([]);
    server.setMode('hang');
    const pending = fetch(server.url).then(
      () => 'answered',
      () => 'aborted',
    );
    while (server.hits === 0) await new Promise((resolve) => setImmediate(resolve));
    await server.close();
    server = undefined;
    expect(await pending).toBe('aborted');
  });
});

describe('startJwksServer: discovery and outages', () => {
  it('serves a discovery document naming its key set, or another issuer when told', async () => {
    server = await startJwksServer([]);
    const own = await (await fetch(`${server.issuer}/.well-known/openid-configuration`)).json();
    expect(own).toEqual({ issuer: server.issuer, jwks_uri: server.url });
    await server.close();
    server = await startJwksServer([], { discoveryIssuer: 'https://elsewhere.example' });
    const other = await (await fetch(`${server.issuer}/.well-known/openid-configuration`)).json();
    expect(other).toEqual({ issuer: 'https://elsewhere.example', jwks_uri: server.url });
    expect(server.paths).toEqual(['/.well-known/openid-configuration']);
  });

  it('refuses connections between stop() and start(), on the same port', async () => {
    server = await startJwksServer([]);
    await server.stop();
    await expect(fetch(server.url)).rejects.toThrow();
    await server.start();
    expect((await fetch(server.url)).status).toBe(200);
    expect(server.hits).toBe(1);
  });
});
