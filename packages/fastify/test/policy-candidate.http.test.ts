import { afterEach, describe, expect, it } from '@jest/globals';
import { loadConfig } from '@authlayer/core';
import { createCaptureLogger } from '@authlayer/testkit';
import Fastify, { type FastifyInstance } from 'fastify';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call } from './support/call.js';
import authlayer, { type PolicyDiff } from '../src/index.js';

// access.candidate on Fastify: the candidate table is judged beside the route's live rule for every
// request, over real HTTP with a real API key, and never answers.
const KEY = 'k3y-for-the-candidate-tests';
const env = { READER_API_KEY: KEY };
const opened: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((app) => app.close()));
});

async function appWithCandidate(candidate: string) {
  const dir = await mkdtemp(join(tmpdir(), 'fastify-candidate-'));
  await writeFile(join(dir, 'candidate.yaml'), candidate);
  await writeFile(
    join(dir, 'config.yaml'),
    [
      'auth:',
      '  mode: api_key',
      '  api_keys:',
      '    keys: [{ name: reader, env_var: READER_API_KEY, roles: [reader] }]',
      'access:',
      '  candidate: candidate.yaml',
      '  "GET /reports/:id": { roles: [reader] }',
      '  "GET /status": public',
      '',
    ].join('\n'),
  );
  const diffs: PolicyDiff[] = [];
  const logger = createCaptureLogger();
  const app = Fastify();
  opened.push(app);
  await app.register(authlayer, {
    config: await loadConfig(join(dir, 'config.yaml')),
    env,
    logger,
    onPolicyDiff: (diff) => void diffs.push(diff),
  });
  app.get('/reports/:id', async (request) => ({ by: request.auth?.userId }));
  app.get('/status', async () => ({ ok: true }));
  return { app, diffs, logger };
}

describe('access.candidate on Fastify', () => {
  it('judges every request beside the live rule: a disagreement is counted and logged, the live answer stands', async () => {
    const { app, diffs, logger } = await appWithCandidate(
      '"GET /reports/:id": { roles: [admin] }\n"GET /status": { roles: [reader] }\n',
    );
    const read = await call(app, { method: 'GET', url: '/reports/7?full=1', headers: { 'x-api-key': KEY } });
    expect(read.statusCode).toBe(200);
    expect((await call(app, { method: 'GET', url: '/status' })).statusCode).toBe(200);
    expect(diffs).toEqual([
      { key: 'GET /reports/:id', live: 'allowed', candidate: 'role_missing' },
      { key: 'GET /status', live: 'allowed', candidate: 'credentials_missing' },
    ]);
    expect(logger.lines.filter((line) => line.message.startsWith('access.candidate'))).toHaveLength(2);
  });

  it('a candidate that agrees counts nothing', async () => {
    const { app, diffs } = await appWithCandidate('"GET /reports/:id": { roles: [reader] }\n"GET /status": public\n');
    expect((await call(app, { method: 'GET', url: '/reports/7', headers: { 'x-api-key': KEY } })).statusCode).toBe(200);
    expect((await call(app, { method: 'GET', url: '/reports/7' })).statusCode).toBe(401);
    expect((await call(app, { method: 'GET', url: '/status' })).statusCode).toBe(200);
    expect(diffs).toEqual([]);
  });
});
