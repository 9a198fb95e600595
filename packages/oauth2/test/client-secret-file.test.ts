import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger, type OpaqueTokenProvider } from '@authlayer/testkit';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOAuth2Handler } from '../src/oauth2-handler.js';
import { oauth2Config, startProvider } from './provider.js';

// `client_secret_file`: the client secret read from a file, in place of client_secret_env.
let provider: OpaqueTokenProvider;
let dir: string;
beforeAll(async () => {
  provider = await startProvider();
  dir = mkdtempSync(join(tmpdir(), 'authlayer-oauth2-file-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await provider.close();
});

describe('client_secret_file', () => {
  it('introspects with the secret read from the file (one trailing newline dropped); says the file', async () => {
    const path = join(dir, 'secret');
    writeFileSync(path, `${provider.clients.basic.secret}\n`);
    const handler = await createOAuth2Handler(oauth2Config(provider, { client_secret_file: path }), {
      env: {},
      logger: createCaptureLogger(),
    });
    const context = await handler.authenticate({
      headers: { authorization: `Bearer ${await provider.obtainToken()}` },
    });
    expect(context.userId).toBe('reporting-job');
    expect(handler.summary?.()).toMatch(new RegExp(`client secret from file ${path}$`));
    expect(handler.describe?.()).toMatchObject({ key_material: { [path]: 'set' } });
    expect(JSON.stringify(handler.describe?.())).not.toContain(provider.clients.basic.secret);
  });

  it('refuses a missing file at start-up, naming the field and the path', async () => {
    const missing = join(dir, 'absent');
    const failure = createOAuth2Handler(oauth2Config(provider, { client_secret_file: missing }), {
      env: { OAUTH2_CLIENT_SECRET: 'not-used' },
      logger: createCaptureLogger(),
    });
    await expect(failure).rejects.toMatchObject({
      name: 'ConfigError',
      message: `auth.oauth2.client_secret_file: file ${missing} does not exist`,
    });
  });
});

describe('deps.carry (reload)', () => {
  it('keeps the DPoP replay cache, so a proof seen before a reload is a replay after it', async () => {
    const asked: string[] = [];
    const carry = {
      keep: <T extends object>(key: string, make: () => T): T => {
        asked.push(key);
        return make();
      },
    };
    const config = oauth2Config(provider, { dpop: 'allowed' });
    await createOAuth2Handler(config, { env: { OAUTH2_CLIENT_SECRET: 's' }, logger: createCaptureLogger(), carry });
    expect(asked).toContain('oauth2.dpop-replay-cache');
  });
});
