import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createApp } from '../src/app.js';
import { captureLogLines, createCaptureLogger as captureLogger } from '@authlayer/testkit';
import { capturedServiceLog, expectCleanLog } from './service-log.js';

const KEY = 'Zq7-api-key-for-hostile-tests-0001';
const SAME_LENGTH = 'x'.repeat(KEY.length);
const LAST_CHAR = `${KEY.slice(0, -1)}2`;
const UNICODE_KEY = 'ключ-🔑-schlüssel';
const CHALLENGE_MISSING = 'ApiKey realm="authlayer", header="X-API-Key", Bearer realm="authlayer"';
const CHALLENGE_INVALID =
  'ApiKey realm="authlayer", header="X-API-Key", Bearer realm="authlayer", error="invalid_token", error_description="the credentials are not valid"';

const logger = captureLogger();
const env: Record<string, string> = { SERVICE_API_KEY: KEY, PROD_API_KEY: UNICODE_KEY, CUSTOM_KEY: KEY };
// Every line of the service's own pino logger, across every app of this file.
const logLines = captureLogLines();

async function appFor(apiKeys: object) {
  const config = { auth: { mode: 'api_key', api_keys: apiKeys } };
  return createApp(config, { env, logger, log: capturedServiceLog(config, logLines).log });
}

// The hostile cases hold with the spec's single key, with `keys` holding that key alone, and with
// `keys` holding it among 1 000 (the key in the middle, so neither first nor last).
const MANY = 1000;
for (let i = 0; i < MANY; i += 1) env[`CLIENT_${i}_API_KEY`] = `${KEY.slice(0, -4)}${String(i).padStart(4, '0')}-other`;
const manyKeys = (variable: string) =>
  Array.from({ length: MANY }, (_, i) => ({
    name: `client-${i}`,
    env_var: i === MANY / 2 ? variable : `CLIENT_${i}_API_KEY`,
  }));
/** The `api_keys` of each set-up, for the variable that holds the key under test. */
const SETUPS: [string, (variable: 'SERVICE_API_KEY' | 'PROD_API_KEY') => object][] = [
  ['the single key', (variable) => (variable === 'SERVICE_API_KEY' ? {} : { prefix: 'prod' })],
  ['keys with 1 key', (variable) => ({ keys: [{ name: 'one', env_var: variable }] })],
  ['keys with 1 000 keys', (variable) => ({ keys: manyKeys(variable) })],
];

type Headers = Record<string, string>;
const invoke = async (app: Awaited<ReturnType<typeof appFor>>, headers: Headers) =>
  request(app).post('/invoke').set(headers).send({ query: 'q' });

describe.each(SETUPS)('API key mode over HTTP, %s: hostile and edge cases', (_setup, apiKeysFor) => {
  let app: Awaited<ReturnType<typeof appFor>>;
  beforeAll(async () => {
    app = await appFor(apiKeysFor('SERVICE_API_KEY'));
  });

  it.each<[string, Headers, number, string | undefined]>([
    ['the right key', { 'X-API-Key': KEY }, 200, undefined],
    ['the header name in lower case', { 'x-api-key': KEY }, 200, undefined],
    ['the header name in upper case', { 'X-API-KEY': KEY }, 200, undefined],
    ['a wrong key of the same length', { 'X-API-Key': SAME_LENGTH }, 401, CHALLENGE_INVALID],
    ['a key differing in the last character', { 'X-API-Key': LAST_CHAR }, 401, CHALLENGE_INVALID],
    ['a prefix of the key', { 'X-API-Key': KEY.slice(0, -1) }, 401, CHALLENGE_INVALID],
    ['the key with one more character', { 'X-API-Key': `${KEY}x` }, 401, CHALLENGE_INVALID],
    ['the key in the wrong case', { 'X-API-Key': KEY.toUpperCase() }, 401, CHALLENGE_INVALID],
    ['no credentials', {}, 401, CHALLENGE_MISSING],
    ['an empty header', { 'X-API-Key': '' }, 401, CHALLENGE_MISSING],
    ['an empty header and the right Bearer key', { 'X-API-Key': '', Authorization: `Bearer ${KEY}` }, 200, undefined],
    [
      'a wrong header and the right Bearer key',
      { 'X-API-Key': 'wrong', Authorization: `Bearer ${KEY}` },
      401,
      CHALLENGE_INVALID,
    ],
    ['the right header and a wrong Bearer key', { 'X-API-Key': KEY, Authorization: 'Bearer wrong' }, 200, undefined],
    [
      'the key under Basic',
      { Authorization: `Basic ${Buffer.from(`u:${KEY}`).toString('base64')}` },
      401,
      CHALLENGE_MISSING,
    ],
    ['the Bearer scheme in lower case', { Authorization: `bearer ${KEY}` }, 200, undefined],
    ['Bearer without a token', { Authorization: 'Bearer' }, 401, CHALLENGE_INVALID],
    ['Bearer with two tokens', { Authorization: `Bearer ${KEY} ${KEY}` }, 401, CHALLENGE_INVALID],
    ['a huge key (8 KiB)', { 'X-API-Key': 'k'.repeat(8192) }, 401, CHALLENGE_INVALID],
    ['the key in another header', { 'X-Api-Token': KEY }, 401, CHALLENGE_MISSING],
  ])('%s → %i', async (_name, headers, status, challenge) => {
    const res = await invoke(app, headers);
    expect(res.status).toBe(status);
    expect(res.headers['www-authenticate']).toBe(challenge);
    if (status === 401) expect(res.body).toEqual({ error: 'unauthorized', message: expect.any(String) });
    expect(JSON.stringify(res.body)).not.toContain(KEY);
    expect(JSON.stringify(res.headers)).not.toContain(KEY);
  });

  it.each(['api_key', 'access_token'])('refuses the key in the query string (?%s=)', async (name) => {
    const res = await request(app)
      .post(`/invoke?${name}=${encodeURIComponent(KEY)}`)
      .send({ query: 'q' });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(CHALLENGE_MISSING);
  });

  it('never logged a line, and so no key', () => {
    expect(logger.text).toEqual([]);
  });
});

describe('API key mode over HTTP: settings', () => {
  it('with allow_bearer false, refuses the key as a Bearer token and offers only the header', async () => {
    const strict = await appFor({ allow_bearer: false });
    const res = await invoke(strict, { Authorization: `Bearer ${KEY}` }).then((r) => r);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('ApiKey realm="authlayer", header="X-API-Key"');
    await invoke(strict, { 'X-API-Key': KEY }).then((r) => expect(r.status).toBe(200));
  });

  it('reads a custom header, given in mixed case, and not the default one', async () => {
    const custom = await appFor({ header: 'X-Custom-Key', env_var: 'CUSTOM_KEY' });
    expect((await invoke(custom, { 'x-custom-key': KEY })).status).toBe(200);
    const res = await invoke(custom, { 'X-API-Key': KEY });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(
      'ApiKey realm="authlayer", header="X-Custom-Key", Bearer realm="authlayer"',
    );
  });

  it('reads <PREFIX>_API_KEY when a prefix is set, not env_var', async () => {
    const prod = await appFor({ prefix: 'prod' });
    const res = await invoke(prod, { 'X-API-Key': KEY });
    expect(res.status).toBe(401);
  });

  it('never logged a line, and so no key', () => {
    expect(logger.text).toEqual([]);
  });
});

describe('API key mode: the service log after every hostile key above', () => {
  it('is JSON lines, one audit line per decision, secret headers redacted, no key anywhere', () => {
    const basic = Buffer.from(`u:${KEY}`).toString('base64');
    expectCleanLog(logLines, [
      KEY,
      SAME_LENGTH,
      LAST_CHAR,
      KEY.slice(0, -1),
      KEY.toUpperCase(),
      UNICODE_KEY,
      basic,
      'k'.repeat(64),
    ]);
  });
});

describe.each(SETUPS)('API key mode over raw HTTP, %s: a UTF-8 key', (_setup, apiKeysFor) => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = http.createServer(await appFor(apiKeysFor('PROD_API_KEY'))).listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  /** Sends the key's UTF-8 bytes as they are, the way a client that does not check would. */
  const send = (key: string) =>
    new Promise<number>((resolve, reject) => {
      const req = http.request({ port, host: '127.0.0.1', method: 'POST', path: '/invoke' }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.setHeader('Content-Type', 'application/json');
      req.setHeader('X-API-Key', Buffer.from(key, 'utf8').toString('latin1'));
      // A Buffer body keeps Node from re-encoding the Latin-1 header string as UTF-8.
      req.end(Buffer.from('{"query":"q"}'));
    });

  it('matches the same bytes', async () => {
    expect(await send(UNICODE_KEY)).toBe(200);
  });

  it.each([
    ['one character different', 'ключ-🔑-schlüsseL'],
    ['another emoji', 'ключ-🔒-schlüssel'],
    ['NFD form', UNICODE_KEY.normalize('NFD')],
  ])('refuses a key %s', async (_name, key) => {
    expect(await send(key)).toBe(401);
  });
});
