import { afterEach, describe, expect, it, jest } from '@jest/globals';
import express from 'express';
import request from 'supertest';
import { consoleLogger, createAuthMiddleware } from '../src/index.js';

describe('defaults', () => {
  afterEach(() => {
    delete process.env.AUTHLAYER_DEFAULTS_TEST_KEY;
    jest.restoreAllMocks();
  });

  it('reads key material from process.env when no env is given', async () => {
    process.env.AUTHLAYER_DEFAULTS_TEST_KEY = 'from-process-env';
    const auth = await createAuthMiddleware({ auth: { api_keys: { env_var: 'AUTHLAYER_DEFAULTS_TEST_KEY' } } });
    const app = express().get('/', auth, (req, res) => res.json(req.auth?.userId));
    await request(app).get('/').set('X-API-Key', 'from-process-env').expect(200, '"AUTHLAYER_DEFAULTS_TEST_KEY"');
  });

  it('logs to stderr through console.error, one prefixed line per message', async () => {
    const lines: unknown[] = [];
    jest.spyOn(console, 'error').mockImplementation((line: unknown) => void lines.push(line));
    consoleLogger.info('hello');
    consoleLogger.warn('careful');
    consoleLogger.error('broken');
    await createAuthMiddleware({ auth: { api_keys: { enabled: false } } });
    expect(lines).toEqual([
      '[authlayer] hello',
      '[authlayer] WARNING: careful',
      '[authlayer] ERROR: broken',
      '[authlayer] WARNING: auth.api_keys.enabled is false: API key mode is off and requests are NOT authenticated',
    ]);
  });
});
