import { describe, expect, it } from '@jest/globals';
import { isConfigError, parseAuthConfig } from '@authlayer/core';
import { createCaptureLogger } from '@authlayer/testkit';
import { createAuthMiddleware } from '../src/index.js';

// loadConfig checks a key's shape only (a Fastify app names `GET /files/*`); the Express adapter
// refuses a pattern Express 5 cannot parse, at createAuthMiddleware and at a reload.

const env = { SERVICE_API_KEY: 'k3y-for-the-pattern-tests' };
const options = { env, logger: createCaptureLogger() };

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => new Error('accepted'),
    (reason: unknown) => reason,
  );
  if (!isConfigError(error)) throw error;
  return error.issues;
}

describe('a key whose pattern Express cannot parse', () => {
  it.each([
    ['GET /a/:', 'Express cannot parse the pattern: Missing parameter name at index 4: /a/:'],
    ['GET /files/*', 'Express cannot parse the pattern: Missing parameter name at index 8: /files/*'],
    ['GET /a/(x)', 'Express cannot parse the pattern: Unexpected ( at index 3: /a/(x)'],
  ])('%s fails createAuthMiddleware, naming the key', async (key, message) => {
    const config = parseAuthConfig({ auth: { mode: 'api_key' }, access: { [key]: 'deny' } });
    expect(await refusal(createAuthMiddleware(config, options))).toEqual([{ path: `access.${key}`, message }]);
  });

  it('is refused at a reload: the old table keeps serving', async () => {
    const auth = await createAuthMiddleware(
      { auth: { mode: 'api_key' }, access: { 'GET /files/*rest': 'deny' } },
      options,
    );
    const issues = await refusal(auth.reload({ auth: { mode: 'api_key' }, access: { 'GET /files/*': 'deny' } }));
    expect(issues.map((issue) => issue.path)).toEqual(['access.GET /files/*']);
    expect(Object.keys(auth.config.access)).toEqual(['GET /files/*rest']);
    await auth.close();
  });
});
