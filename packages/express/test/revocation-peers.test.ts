import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

// ioredis is an optional peer: a process without it imports the middleware, and only a config
// that asks for Redis (revocation.store, auth.oauth2.cache_store) fails, naming the package.
const hide = fileURLToPath(new URL('./fixtures/hide-packages.mjs', import.meta.url));
const index = new URL('../dist/index.js', import.meta.url).href;

async function withoutIoredis(config: object, env: Record<string, string>) {
  const script = `
    const { createAuthMiddleware, connectRevocations } = await import(${JSON.stringify(index)});
    const said = (error) => ({ name: error.name, message: error.message });
    const out = [];
    await createAuthMiddleware(${JSON.stringify(config)}, { env: ${JSON.stringify(env)}, logger: { info() {}, warn() {}, error() {} } })
      .then((auth) => (out.push('started'), auth.close()), (error) => out.push(said(error)));
    await connectRevocations({ store: 'redis://127.0.0.1:9/0' }).then(() => out.push('connected'), (error) => out.push(said(error)));
    console.log(JSON.stringify(out));`;
  const child = spawn(process.execPath, ['--import', hide, '--input-type=module', '-e', script], {
    env: { ...process.env, AUTHLAYER_HIDE_PACKAGES: 'ioredis' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  await once(child, 'close');
  return JSON.parse(stdout) as unknown[];
}

const NEEDS = (path: string) => ({
  name: 'ConfigError',
  message: `${path}: needs the package ioredis, which is not installed: install ioredis in the app (optional peers of @authlayer/engine, which every adapter uses)`,
});

describe('revocation.store and cache_store without ioredis installed', () => {
  it('revocation.store: a ConfigError naming ioredis; without it, the middleware starts', async () => {
    const store = 'redis://127.0.0.1:9/0';
    expect(
      await withoutIoredis({ auth: { mode: 'api_key' }, revocation: { store } }, { SERVICE_API_KEY: 'k'.repeat(20) }),
    ).toEqual([NEEDS('revocation.store'), NEEDS('revocation.store')]);
    expect((await withoutIoredis({ auth: { mode: 'api_key' } }, { SERVICE_API_KEY: 'k'.repeat(20) }))[0]).toBe(
      'started',
    );
  });

  it('auth.oauth2.cache_store: a ConfigError naming ioredis', async () => {
    const oauth2 = {
      introspection_url: 'http://127.0.0.1:9/introspect',
      client_id: 'api',
      cache_store: 'redis://127.0.0.1:9/0',
    };
    const [answer] = await withoutIoredis({ auth: { mode: 'oauth2', oauth2 } }, { OAUTH2_CLIENT_SECRET: 's' });
    expect(answer).toEqual(NEEDS('auth.oauth2.cache_store'));
  });
});
