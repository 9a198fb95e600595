import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../src/app.js';
import { createCaptureLogger as captureLogger, expectedContext } from '@authlayer/testkit';

const KEY = 'reference-service-key-0123456789';
const AUTH = expectedContext({ method: 'api_key', userId: 'SERVICE_API_KEY' });

describe('the reference service, API key mode', () => {
  let app: Express;
  const logger = captureLogger();

  beforeAll(async () => {
    app = await createApp({ auth: { mode: 'api_key' } }, { env: { SERVICE_API_KEY: KEY }, logger });
  });

  it('GET /healthz answers 200 without authentication', async () => {
    const res = await request(app).get('/healthz').expect(200);
    expect(res.body).toEqual({
      status: 'ok',
      auth: { mode: 'api_key', handler: 'api_key' },
      config: { generation: 1, loaded_at: expect.any(String), last_reload_error: null },
    });
  });

  it('POST /invoke, authenticated, echoes the query with the AuthContext', async () => {
    const res = await request(app).post('/invoke').set('X-API-Key', KEY).send({ query: 'hello' }).expect(200);
    expect(res.body).toEqual({ query: 'hello', auth: AUTH });
  });

  it('accepts the key as a Bearer token too', async () => {
    const res = await request(app)
      .post('/invoke')
      .set('Authorization', `Bearer ${KEY}`)
      .send({ query: '' })
      .expect(200);
    expect(res.body).toEqual({ query: '', auth: AUTH });
  });

  it('accepts application/*+json and ignores other members of the body', async () => {
    const res = await request(app)
      .post('/invoke')
      .set('X-API-Key', KEY)
      .set('Content-Type', 'application/merge-patch+json')
      .send(JSON.stringify({ query: 'q', other: 1 }))
      .expect(200);
    expect(res.body.query).toBe('q');
  });

  it.each([
    ['not JSON', 'application/json', '{"query":', 'the request body is not valid JSON'],
    ['a JSON list', 'application/json', '["query"]', 'the request body must be a JSON object'],
    ['a JSON string', 'application/json', '"query"', 'the request body is not valid JSON'],
    ['null', 'application/json', 'null', 'the request body is not valid JSON'],
    ['without query', 'application/json', '{}', '"query" must be a string'],
    ['with a numeric query', 'application/json', '{"query":1}', '"query" must be a string'],
    ['with a null query', 'application/json', '{"query":null}', '"query" must be a string'],
    ['with an object query', 'application/json', '{"query":{"$ne":1}}', '"query" must be a string'],
  ])('answers 400 invalid_request to a body that is %s', async (_name, type, body, message) => {
    const res = await request(app)
      .post('/invoke')
      .set('X-API-Key', KEY)
      .set('Content-Type', type)
      .send(body)
      .expect(400);
    expect(res.body).toEqual({ error: 'invalid_request', message });
  });

  it('answers 400 to an authenticated POST without a body', async () => {
    const res = await request(app).post('/invoke').set('X-API-Key', KEY).expect(400);
    expect(res.body).toEqual({ error: 'invalid_request', message: 'the request body must be a JSON object' });
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx'])(
    'answers 415 to content type %s',
    async (type) => {
      const res = await request(app)
        .post('/invoke')
        .set('X-API-Key', KEY)
        .set('Content-Type', type)
        .send('query=x')
        .expect(415);
      expect(res.body).toEqual({
        error: 'unsupported_media_type',
        message: 'the content type must be application/json',
      });
    },
  );

  it('answers 413 to a body over 1 MiB, and takes one of exactly 1 MiB', async () => {
    const pad = (size: number) => JSON.stringify({ query: 'x'.repeat(size - '{"query":""}'.length) });
    const big = await request(app)
      .post('/invoke')
      .set('X-API-Key', KEY)
      .type('json')
      .send(pad(1024 * 1024 + 1))
      .expect(413);
    expect(big.body).toEqual({ error: 'payload_too_large', message: 'the request body is too large' });
    const exact = await request(app)
      .post('/invoke')
      .set('X-API-Key', KEY)
      .type('json')
      .send(pad(1024 * 1024))
      .expect(200);
    expect(exact.body.query).toHaveLength(1024 * 1024 - 12);
  });

  it('answers 401 before the body is read: a huge or broken body still gets 401, not 413 or 400', async () => {
    const huge = await request(app)
      .post('/invoke')
      .type('json')
      .send('x'.repeat(2 * 1024 * 1024))
      .expect(401);
    expect(huge.body.error).toBe('unauthorized');
    const broken = await request(app).post('/invoke').set('X-API-Key', 'nope').type('text/plain').send('{').expect(401);
    expect(broken.body.error).toBe('unauthorized');
  });

  it.each([
    ['GET', '/'],
    ['GET', '/invoke'],
    ['PUT', '/invoke'],
    ['POST', '/healthz'],
    ['GET', '/invoke/extra'],
    ['GET', '/%E0%A4%A'],
  ])('answers 404 not_found to %s %s', async (method, path) => {
    const res = await request(app)[method.toLowerCase() as 'get'](path).set('X-API-Key', KEY).expect(404);
    expect(res.body).toEqual({ error: 'not_found', message: 'no such resource' });
  });

  it('never logged anything, nor leaked the key', () => {
    expect(logger.text).toEqual([]);
  });
});
