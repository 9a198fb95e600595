import { describe, expect, it } from '@jest/globals';
import { createCaptureLogger } from '@authlayer/testkit';
import { createJwtHandler } from '../src/index.js';
import { jwtConfig, now } from './fixtures.js';

// Without issuer or audience, any token the key signed is accepted: one warning line at start-up
// says what is missing and what that means (express-oauth2-jwt-bearer even requires an audience).
const SECRET = 'a-shared-secret-of-at-least-thirty-two-bytes!';

async function warningsFor(jwt: Record<string, unknown>): Promise<string[]> {
  const logger = createCaptureLogger();
  await createJwtHandler(jwtConfig({ public_key_env: 'JWT_KEY', algorithms: ['HS256'], ...jwt }), {
    env: { JWT_KEY: SECRET },
    logger,
    now,
  });
  return logger.lines.filter((line) => line.level === 'warn').map((line) => line.message);
}

describe('JWT mode without issuer or audience', () => {
  it('warns once, naming both, when neither is set', async () => {
    expect(await warningsFor({})).toEqual([
      'auth.jwt has no issuer and no audience: tokens from any issuer and for any API signed by its key are accepted; set issuer and audience',
    ]);
  });

  it('names the issuer alone', async () => {
    expect(await warningsFor({ audience: 'invoke-api' })).toEqual([
      'auth.jwt has no issuer: tokens from any issuer signed by its key are accepted; set issuer',
    ]);
  });

  it('names the audience alone', async () => {
    expect(await warningsFor({ issuer: 'https://idp.example.com' })).toEqual([
      'auth.jwt has no audience: tokens for any API signed by its key are accepted; set audience',
    ]);
  });

  it('says nothing when both are set', async () => {
    expect(await warningsFor({ issuer: 'https://idp.example.com', audience: 'invoke-api' })).toEqual([]);
  });

  it('with providers: one line naming each entry without an audience (an entry always has an issuer)', async () => {
    const providers = [
      { issuer: 'https://a.example.com', public_key_env: 'JWT_KEY', algorithms: ['HS256'] },
      { issuer: 'https://b.example.com', public_key_env: 'JWT_KEY', algorithms: ['HS256'], audience: 'invoke-api' },
      { issuer: 'https://c.example.com', public_key_env: 'JWT_KEY', algorithms: ['HS256'] },
    ];
    expect(await warningsFor({ public_key_env: null, providers })).toEqual([
      'auth.jwt.providers[0] and auth.jwt.providers[2] have no audience: tokens for any API signed by their keys are accepted; set audience',
    ]);
  });

  it('with providers: one entry without an audience is named alone; none, nothing is said', async () => {
    const entry = (issuer: string, audience?: string) => ({
      issuer,
      public_key_env: 'JWT_KEY',
      algorithms: ['HS256'],
      ...(audience === undefined ? {} : { audience }),
    });
    expect(
      await warningsFor({
        public_key_env: null,
        providers: [entry('https://a.example.com', 'api'), entry('https://b.example.com')],
      }),
    ).toEqual([
      'auth.jwt.providers[1] has no audience: tokens for any API signed by its key are accepted; set audience',
    ]);
    expect(
      await warningsFor({
        public_key_env: null,
        providers: [entry('https://a.example.com', 'api'), entry('https://b.example.com', 'api')],
      }),
    ).toEqual([]);
  });
});
