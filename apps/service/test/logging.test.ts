import { describe, expect, it } from '@jest/globals';
import { AuthError, createAuthContext, parseAuthConfig } from '@authlayer/core';
import { captureLogLines } from '@authlayer/testkit';
import type { CreateHandler } from '@authlayer/core';
import request from 'supertest';
import { createApp } from '../src/app.js';
import { capturedServiceLog } from './service-log.js';
import { createServiceLog, headersToLog, toLogger, urlToLog } from '../src/logging.js';

const config = parseAuthConfig({ auth: { mode: 'api_key', api_keys: { header: 'X-Partner-Key' } } });

describe('createServiceLog', () => {
  it('writes JSON lines with level (as a name), time and msg; LOG_LEVEL drops what is below it', () => {
    const capture = captureLogLines();
    const logger = toLogger(createServiceLog(config, { level: 'warn', format: 'json' }, capture.destination));
    logger.info('not shown');
    logger.warn('careful');
    logger.error('broken');
    expect(capture.records()).toEqual([
      expect.objectContaining({ level: 'warn', time: expect.any(Number), msg: 'careful' }),
      expect.objectContaining({ level: 'error', time: expect.any(Number), msg: 'broken' }),
    ]);
  });

  it('redacts the secret headers wherever a request is logged, even through another serializer', () => {
    const capture = captureLogLines();
    const log = createServiceLog(config, { level: 'info', format: 'json' }, capture.destination);
    const headers = {
      authorization: 'Bearer s3cret',
      cookie: 'sid=s3cret',
      'x-partner-key': 's3cret',
      'x-api-key': 's3cret',
      host: 'h',
    };
    log.info({ req: { headers } }, 'request');
    expect(capture.records()[0]).toMatchObject({
      req: {
        headers: {
          authorization: '[redacted]',
          cookie: '[redacted]',
          'x-partner-key': '[redacted]',
          'x-api-key': '[redacted]',
          host: 'h',
        },
      },
    });
    expect(capture.lines.join('')).not.toContain('s3cret');
  });
});

describe('headersToLog', () => {
  it('shows plain headers, redacts secret ones and leaves every other out', () => {
    const shown = headersToLog(
      { host: 'h', 'user-agent': 'curl', authorization: 'Bearer t', 'x-api-token': 'key-in-the-wrong-header' },
      ['authorization'],
    );
    expect(shown).toEqual({ host: 'h', 'user-agent': 'curl', authorization: '[redacted]' });
  });

  it('shows Referer without its query values and fragment (an OAuth callback ?code=...)', () => {
    const shown = headersToLog({ referer: 'https://app.example/cb?code=s3cret&state=x#t=s3cret' }, []);
    expect(shown).toEqual({ referer: 'https://app.example/cb?code=redacted&state=redacted#redacted' });
  });
});

describe('urlToLog', () => {
  it.each([
    ['/invoke', '/invoke'],
    ['/invoke?access_token=eyJhbGciOi&x=1', '/invoke?access_token=redacted&x=redacted'],
    ['/invoke?flag&api_key=k3y', '/invoke?redacted&api_key=redacted'],
    ['/invoke?', '/invoke?'],
    ['*', '*'],
    // Past the redaction in the 2026-11-24 probe: a fragment, a bare flag, user info.
    ['/invoke?#access_token=s3cret', '/invoke?#redacted'],
    ['/invoke?a=1#access_token=s3cret', '/invoke?a=redacted#redacted'],
    ['/invoke#access_token=s3cret', '/invoke#redacted'],
    ['/invoke?s3cret', '/invoke?redacted'],
    ['http://user:s3cret@127.0.0.1/invoke?x=s3cret', 'http://redacted@127.0.0.1/invoke?x=redacted'],
  ])('%s → %s', (url, logged) => {
    expect(urlToLog(url)).toBe(logged);
    expect(urlToLog(url)).not.toContain('s3cret');
  });
});

describe('the service log of a 500', () => {
  it('has an error line and an audit line, with no stack trace and no message of the error', async () => {
    const createHandler: CreateHandler = async () => ({
      method: 'api_key',
      authenticate: () => Promise.reject(new Error('secret detail s3cret')),
    });
    const raw = { auth: { mode: 'api_key' } };
    const { log, capture } = capturedServiceLog(raw);
    const app = await createApp(raw, { log, importModule: async () => ({ createHandler }) });
    await request(app).post('/invoke').set('Authorization', 'Bearer t0ken-value').expect(500);
    const records = capture.records();
    expect(records.map((r) => [r.level, r.msg])).toEqual([
      ['error', 'auth'],
      ['error', 'the POST /invoke handler failed (Error)'],
      ['error', 'request errored'],
    ]);
    expect(records[2]?.err).toEqual({ type: 'Error' });
    expect(capture.lines.join('\n')).not.toMatch(/\bat |s3cret|t0ken-value/);
  });
});

describe('the audit line names the key that decided (rule)', () => {
  it("a 403 and a 401 name the access key; an allowed request's rule is null", async () => {
    const createHandler: CreateHandler = async () => ({
      method: 'api_key',
      authenticate: (req) =>
        req.headers.authorization === undefined
          ? Promise.reject(new AuthError('credentials_missing', 'Bearer realm="authlayer"'))
          : Promise.resolve(createAuthContext({ method: 'api_key', userId: 'k-1' })),
    });
    const raw = { auth: { mode: 'api_key' }, access: { 'POST /invoke': { permissions: ['invoke'] } } };
    const { log, capture } = capturedServiceLog(raw);
    const app = await createApp(raw, { log, importModule: async () => ({ createHandler }) });
    await request(app).post('/invoke').set('Authorization', 'Bearer t0ken-value').expect(403);
    await request(app).post('/invoke').expect(401);
    await request(app).get('/healthz').set('Authorization', 'Bearer t0ken-value').expect(200);
    const audits = capture.records().filter((r) => r.msg === 'auth');
    expect(audits.map(({ outcome, reason, rule }) => [outcome, reason, rule])).toEqual([
      ['forbidden', 'permission_missing', 'POST /invoke'],
      ['refused', 'credentials_missing', 'POST /invoke'],
    ]);
    expect(capture.lines.join('\n')).not.toMatch(/t0ken-value/);
  });
});

describe('the service log of a readiness probe that fails', () => {
  it('logs the 503 of /readyz at info: a probe polls it, and the handler warns once per outage itself', async () => {
    const createHandler: CreateHandler = async () => ({
      method: 'jwt',
      authenticate: () => Promise.reject(new Error('unused')),
      readiness: () => ({ ready: false, keys: 'unavailable' }),
    });
    const raw = { auth: { mode: 'jwt', jwt: { jwks_url: 'http://127.0.0.1:9/jwks' } } };
    const { log, capture } = capturedServiceLog(raw);
    const app = await createApp(raw, { log, importModule: async () => ({ createHandler }) });
    for (let i = 0; i < 3; i++) await request(app).get('/readyz').expect(503);
    expect(capture.records().map((r) => [r.level, r.msg, r.err])).toEqual(
      Array(3).fill(['info', 'request completed', undefined]),
    );
  });
});
