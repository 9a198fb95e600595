// What an attacker's probe of the reference service found: other methods, the files Swagger UI's
// package ships, and a bad Range, all answered with the contract's JSON 404 / error body.
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../src/app.js';
import { createCaptureLogger as captureLogger } from '@authlayer/testkit';

let app: Express;
beforeAll(async () => {
  app = await createApp(
    { auth: { mode: 'api_key' } },
    { env: { SERVICE_API_KEY: 'probe-key' }, logger: captureLogger() },
  );
});

const NOT_FOUND = { error: 'not_found', message: 'no such resource' };

describe('other methods', () => {
  it.each([
    ['OPTIONS', '/invoke'],
    ['OPTIONS', '/docs/'],
    ['OPTIONS', '/healthz'],
    ['PUT', '/invoke'],
    ['DELETE', '/docs/swagger-ui.css'],
  ])('%s %s → 404 JSON', async (method, path) => {
    const res = await request(app)
      [method.toLowerCase() as 'options'](path)
      .expect(404)
      .expect('Content-Type', /application\/json/);
    expect(res.body).toEqual(NOT_FOUND);
    expect(res.headers.allow).toBeUndefined();
  });
});

describe('/docs serves our page and its assets only', () => {
  it.each([
    '/docs/index.html',
    '/docs/package.json',
    '/docs/swagger-initializer.js',
    '/docs/swagger-ui.js.map',
    '/docs/oauth2-redirect.html',
    '/docs/nothing',
  ])('%s → 404 JSON', async (path) => {
    const res = await request(app)
      .get(path)
      .expect(404)
      .expect('Content-Type', /application\/json/);
    expect(res.body).toEqual(NOT_FOUND);
  });

  it('the page never points at the petstore or the public validator', async () => {
    const init = await request(app).get('/docs/swagger-ui-init.js').expect(200);
    expect(init.text).toContain('"validatorUrl": null');
    expect(init.text).not.toContain('petstore');
    const page = await request(app).get('/docs/').expect(200);
    expect(page.text).not.toContain('petstore');
  });

  it.each(['bytes=999999999-', 'bytes=abc', 'bytes=5-1'])(
    'ignores a Range header (%s): the whole file, never a 416 mislabelled text/css',
    async (range) => {
      const res = await request(app)
        .get('/docs/swagger-ui.css')
        .set('Range', range)
        .expect(200)
        .expect('Content-Type', /text\/css/);
      expect(res.headers['accept-ranges']).toBeUndefined();
      expect(res.text.length).toBeGreaterThan(1000);
    },
  );

  it('HEAD works for the assets', async () => {
    await request(app)
      .head('/docs/swagger-ui-bundle.js')
      .expect(200)
      .expect('Content-Type', /javascript/);
  });
});
