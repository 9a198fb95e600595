// The fixture mode package (fixtures/authlayer-hmac), installed beside the reference service,
// loads by the name `auth.mode` gives it: the service checks its section, shows it in --check,
// the start-up line and /openapi.json, authenticates with it, and never logs its credential.
// No file of the service, the engine or core names it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from '../scripts/pack.mjs';
import { baseEnv, startServer, type RunningServer } from './support/start-server.js';

const MAIN = join(REPO_ROOT, 'apps', 'service', 'dist', 'main.js');
const INSTALL = fileURLToPath(new URL('../fixtures/install-hmac.mjs', import.meta.url));
const SECRET = 'hmac-fixture-secret-7d1e';
const CONFIG = `auth:\n  mode: hmac\n  hmac:\n    secret_env: HMAC_SECRET\n`;
const sign = (method: string, path: string) => createHmac('sha256', SECRET).update(`${method}${path}`).digest('hex');

let work: string;
let config: string;
let server: RunningServer;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'authlayer-hmac-'));
  config = join(work, 'service.yaml');
  writeFileSync(config, CONFIG);
  server = await startServer(['--import', INSTALL, MAIN, '--config', config], {
    cwd: work,
    env: { ...baseEnv(), PORT: '0', HMAC_SECRET: SECRET },
    listening: /listening on http:\/\/127\.0\.0\.1:(\d+)/,
    stream: 'stderr',
  });
});
afterAll(async () => {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

const check = (yaml: string) => {
  writeFileSync(config, yaml);
  const result = spawnSync(process.execPath, ['--import', INSTALL, MAIN, '--check', '--config', config], {
    env: { ...baseEnv(), HMAC_SECRET: SECRET },
    encoding: 'utf8',
  });
  writeFileSync(config, CONFIG);
  return result;
};

describe('a mode package from outside the monorepo, in the reference service', () => {
  it('--check: its section checked, its description shown, never the secret', () => {
    const good = check(CONFIG);
    expect(good.status).toBe(0);
    const report = JSON.parse(good.stdout);
    expect(report).toMatchObject({ handler: 'hmac', key_material: { HMAC_SECRET: 'set' } });
    expect(good.stdout + good.stderr).not.toContain(SECRET);
    const bad = check(`auth:\n  mode: hmac\n  hmac:\n    secret_env: HMAC_SECRET\n    colour: blue\n`);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('auth.hmac.colour: unknown field');
  });

  it('the start-up line names it and its key material, by variable', () => {
    expect(server.stderr()).toMatch(/hmac.*environment variable HMAC_SECRET \(HMAC-SHA256 signatures in x-signature\)/);
  });

  it('authenticates with its own credential; 401 with its challenge without one', async () => {
    const signed = await fetch(`${server.url}/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-signature': sign('POST', '/invoke') },
      body: JSON.stringify({ query: 'q' }),
    });
    expect(signed.status).toBe(200);
    expect(await signed.json()).toMatchObject({ auth: { method: 'hmac', userId: 'signed-client' } });
    const unsigned = await fetch(`${server.url}/invoke`, { method: 'POST', body: '{}' });
    expect(unsigned.status).toBe(401);
    expect(unsigned.headers.get('www-authenticate')).toBe('Signature realm="authlayer", headers="x-signature"');
  });

  it('/openapi.json has its security scheme', async () => {
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(document.components.securitySchemes.HmacSignature).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'x-signature',
    });
  });

  it('never logs its credential header', async () => {
    const signature = sign('POST', '/invoke');
    await fetch(`${server.url}/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-signature': signature },
      body: JSON.stringify({ query: 'q' }),
    });
    const logged = server.stdout() + server.stderr();
    expect(logged).toContain('"method":"hmac"');
    // Named as a secret header by the handler itself (credentialHeaders), so it shows, redacted.
    expect(logged).toContain('"x-signature":"[redacted]"');
    expect(logged).not.toContain(signature);
    expect(logged).not.toContain(SECRET);
  });
});
