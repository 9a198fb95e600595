import { afterEach, describe, expect, it } from '@jest/globals';
import type { Engine } from '../src/engine.js';
import { API_KEYS, engineAt, judge, KEYS, requestTo } from './support/engine-at.js';

// A rule's `modes` on a real engine of two modes (API keys, JWT): a route limited to one mode
// answers another mode's credential as no credential, with only its own challenge; a route that
// lists every mode is judged by them all. The subset is made once and kept for the next request.

let open: Engine[] = [];
afterEach(async () => {
  await Promise.all(open.map((engine) => engine.close()));
  open = [];
});

async function twoModes() {
  const made = await engineAt({
    auth: {
      ...API_KEYS,
      mode: ['api_key', 'jwt'],
      jwt: { issuer: 'https://idp.example/', jwks_url: 'https://idp.example/jwks' },
    },
    access: {
      'GET /keys': { roles: ['admin'], modes: ['api_key'] },
      'GET /tokens': { roles: ['admin'], modes: ['jwt'] },
      'GET /either': { roles: ['admin'], modes: ['jwt', 'api_key'] },
    },
  });
  open.push(made.engine);
  const get = async (path: string, key: string) =>
    (await judge(made.engine.current(), requestTo('GET', path, { 'x-api-key': key }))).outcome;
  return get;
}

describe("a rule's modes", () => {
  it('a route of API keys: the key passes, again on the next request', async () => {
    const get = await twoModes();
    expect(await get('/keys', KEYS.admin)).toMatchObject({ pass: true, context: { method: 'api_key' } });
    expect(await get('/keys', KEYS.admin)).toMatchObject({ pass: true, context: { method: 'api_key' } });
    expect(await get('/keys', KEYS.plain)).toMatchObject({ pass: false, answer: { status: 403 } });
  });

  it('a route of JWTs: an API key is no credential there, and only the Bearer challenge is offered', async () => {
    const get = await twoModes();
    expect(await get('/tokens', KEYS.admin)).toMatchObject({
      pass: false,
      answer: { status: 401, headers: [['WWW-Authenticate', expect.stringMatching(/^Bearer /)]] },
    });
  });

  it('a route that lists every mode: the API key is judged as on a route without modes', async () => {
    const get = await twoModes();
    expect(await get('/either', KEYS.admin)).toMatchObject({ pass: true, context: { method: 'api_key' } });
  });
});
