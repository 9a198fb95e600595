import { describe, expect, it } from '@jest/globals';
import { AuthError, ForbiddenError, bearerChallenge } from '@authlayer/core';
import express from 'express';
import request from 'supertest';
import { errorHandler, httpError, notFound } from '../src/error-handler.js';
import { createCaptureLogger as captureLogger } from '@authlayer/testkit';

/** An app whose one route throws what the test gives it, behind the JSON error handler. */
function appThrowing(error: unknown) {
  const logger = captureLogger();
  const app = express();
  app.post('/json', express.json({ limit: 64 }), (req, res) => res.json(req.body));
  app.get('/throw', () => {
    throw error;
  });
  app.use(notFound());
  app.use(errorHandler({ logger }));
  return { app, logger };
}

describe('errorHandler', () => {
  it('renders an AuthError as 401 with its challenge', async () => {
    const { app } = appThrowing(new AuthError('token_expired', bearerChallenge('token_expired')));
    const res = await request(app).get('/throw').expect(401);
    expect(res.body).toEqual({ error: 'unauthorized', message: 'the token has expired' });
    expect(res.headers['www-authenticate']).toBe(
      'Bearer realm="authlayer", error="invalid_token", error_description="the token has expired"',
    );
  });

  it.each([
    ['a body over the limit', '{"a":"' + 'x'.repeat(100) + '"}', 'application/json', 413, 'payload_too_large'],
    ['a body that is not JSON', '{bad', 'application/json', 400, 'invalid_request'],
    ['a JSON scalar (strict mode)', '"text"', 'application/json', 400, 'invalid_request'],
    ['an unsupported charset', '{}', 'application/json; charset=ebcdic', 415, 'unsupported_media_type'],
    ['a gzip body that is not gzip', '{}', 'application/json', 400, 'invalid_request', 'gzip'],
    ['a deflate body that is not deflate', '{}', 'application/json', 400, 'invalid_request', 'deflate'],
    ['a br body that is not brotli', '{"query":"q"}', 'application/json', 400, 'invalid_request', 'br'],
    ['an unknown content encoding', '{}', 'application/json', 415, 'unsupported_media_type', 'zstd-x'],
  ])('renders %s', async (_name, body, type, status, code, encoding = 'identity') => {
    const { app } = appThrowing(null);
    const res = await request(app).post('/json').set('Content-Type', type).set('Content-Encoding', encoding).send(body);
    // Only the contract's codes, never a library's own (zlib's Z_DATA_ERROR, brotli's ERR__...).
    expect([res.status, res.body]).toEqual([status, { error: code, message: expect.any(String) }]);
  });

  it('renders an unsupported Content-Encoding as 415', async () => {
    const { app } = appThrowing(null);
    const res = await request(app)
      .post('/json')
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'zstd-x')
      .send('{}');
    expect(res.status).toBe(415);
    expect(res.body.error).toBe('unsupported_media_type');
  });

  it('renders an httpError with its own status, code and message', async () => {
    const { app } = appThrowing(httpError(400, 'invalid_request', '"query" must be a string'));
    const res = await request(app).get('/throw').expect(400);
    expect(res.body).toEqual({ error: 'invalid_request', message: '"query" must be a string' });
  });

  it.each([
    [400, 'invalid_request'],
    [404, 'not_found'],
    [413, 'payload_too_large'],
    [415, 'unsupported_media_type'],
    [418, 'invalid_request'],
  ])('renders an exposed http-errors %i with a fixed message, never its own', async (status, code) => {
    const error = Object.assign(new Error('Failed to decode param %E0 secret-ish'), { status, expose: true });
    const { app } = appThrowing(error);
    const res = await request(app).get('/throw');
    expect(res.status).toBe(status === 418 ? 400 : status);
    expect(res.body.error).toBe(code);
    expect(res.body.message).not.toContain('secret-ish');
  });

  it.each([
    ['an Error', new Error('db password is hunter2'), 'Error'],
    ['a TypeError', new TypeError('x is hunter2'), 'TypeError'],
    ['a thrown string', 'hunter2', 'string'],
    ['a 5xx http error', Object.assign(new Error('hunter2'), { status: 503, expose: true }), 'Error'],
    ['an unexposed 4xx', Object.assign(new Error('hunter2'), { status: 400, expose: false }), 'Error'],
  ])('renders %s as 500 internal, logging no message', async (_name, error, kind) => {
    const { app, logger } = appThrowing(error);
    const res = await request(app).get('/throw').expect(500);
    expect(res.body).toEqual({ error: 'internal', message: 'internal error' });
    expect(logger.text).toEqual([`error: internal error (${kind}) on GET /throw`]);
    expect(JSON.stringify(res.body) + logger.text.join()).not.toContain('hunter2');
  });

  it('leaves an error after the headers were sent to Express', () => {
    const logger = captureLogger();
    const error = new Error('late');
    const passed: unknown[] = [];
    const res = { headersSent: true } as express.Response;
    errorHandler({ logger })(error, {} as express.Request, res, (e?: unknown) => passed.push(e));
    expect(passed).toEqual([error]);
    expect(logger.text).toEqual([]);
  });
});

describe('notFound', () => {
  it('answers 404 not_found in JSON', async () => {
    const { app } = appThrowing(null);
    const res = await request(app).get('/nope').expect(404);
    expect(res.body).toEqual({ error: 'not_found', message: 'no such resource' });
  });
});

describe('errorHandler and ForbiddenError', () => {
  it('renders a thrown ForbiddenError as 403 with its challenge, in the same place as a 401', async () => {
    const challenge =
      'Bearer realm="authlayer", error="insufficient_scope", error_description="the role admin is required"';
    const { app } = appThrowing(new ForbiddenError('role_missing', challenge, ['admin']));
    const res = await request(app).get('/throw').expect(403);
    expect(res.body).toEqual({ error: 'forbidden', message: 'the role admin is required' });
    expect(res.headers['www-authenticate']).toBe(challenge);
  });

  it('renders one without a challenge with no WWW-Authenticate', async () => {
    const { app } = appThrowing(new ForbiddenError('permission_missing', null, ['invoke']));
    const res = await request(app).get('/throw').expect(403);
    expect(res.headers['www-authenticate']).toBeUndefined();
  });
});

describe('errorHandler after a handler that began another response', () => {
  it('drops the headers of the body that was never sent (a static file failing a bad Range)', async () => {
    const app = express();
    app.get('/style.css', (_req, res, next) => {
      res.setHeader('Content-Type', 'text/css; charset=UTF-8');
      res.setHeader('Content-Range', 'bytes */100');
      res.setHeader('Accept-Ranges', 'bytes');
      res.setHeader('ETag', 'W/"abc"');
      next(Object.assign(new Error('Range Not Satisfiable'), { status: 416, expose: true }));
    });
    app.use(errorHandler({ logger: captureLogger() }));
    const res = await request(app).get('/style.css').expect(400);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-range']).toBeUndefined();
    expect(res.headers['accept-ranges']).toBeUndefined();
    expect(res.headers.etag).not.toBe('W/"abc"');
    expect(res.body).toEqual({ error: 'invalid_request', message: 'the request is not valid' });
  });
});
