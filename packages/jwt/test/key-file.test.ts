import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger, createSigningKey, mintToken } from '@authlayer/testkit';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createJwtHandler } from '../src/jwt-handler.js';
import { bearer, jwtConfig, now, validClaims } from './fixtures.js';

// `public_key_file`: the file twin of `public_key_env` (contract, "Live changes without a restart").
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'authlayer-jwt-file-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe('public_key_file', () => {
  it.each(['RS256', 'HS256'] as const)('verifies %s tokens with the key read from the file', async (alg) => {
    const key = await createSigningKey(alg);
    const path = file(`${alg}.key`, `${key.envValue}\n`);
    const config = jwtConfig({ public_key_file: path, algorithms: [alg] });
    const handler = await createJwtHandler(config, { env: {}, logger: createCaptureLogger(), now });
    const context = await handler.authenticate(bearer(await mintToken(key, validClaims())));
    expect(context.userId).toBe('user-1');
    expect(handler.summary?.()).toBe(`file ${path}`);
    expect(handler.describe?.()).toMatchObject({
      key_material: { [path]: 'set' },
      issuers: [{ key_source: 'public_key_file' }],
    });
  });

  it("names a provider's own field and the path when the file is missing; never the content", async () => {
    const missing = join(dir, 'absent.pem');
    const config = jwtConfig({ providers: [{ issuer: 'https://a.example', public_key_file: missing }] });
    await expect(createJwtHandler(config, { env: {}, logger: createCaptureLogger() })).rejects.toMatchObject({
      name: 'ConfigError',
      message: `auth.jwt.providers[0].public_key_file: file ${missing} does not exist`,
    });
  });

  it('names the file when it holds no usable key, without its content', async () => {
    const path = file('garbage.pem', 'not-a-key-at-all-0123456789');
    const config = jwtConfig({ public_key_file: path });
    const failure = createJwtHandler(config, { env: {}, logger: createCaptureLogger() });
    await expect(failure).rejects.toMatchObject({
      message: `auth.jwt.public_key_file: file ${path} does not hold a PEM public key`,
    });
  });

  it('says the file is empty when it holds white space only', async () => {
    const path = file('blank.pem', '  \n\n');
    const failure = createJwtHandler(jwtConfig({ public_key_file: path }), { env: {}, logger: createCaptureLogger() });
    await expect(failure).rejects.toMatchObject({
      message: `auth.jwt.public_key_file: file ${path} is unset or empty`,
    });
  });
});
