// /docs in a real browser: Debian's headless Chromium, driven by playwright-core, against the
// built reference service (the CLI a user starts), listening on port 0.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { chromium, type BrowserContext } from 'playwright-core';
import { hasJwtPackage, REPO_ROOT } from '../scripts/pack.mjs';
import { baseEnv, startServer, type RunningServer } from './support/start-server.js';
import { tryInvoke } from './support/swagger-page.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const MAIN = join(REPO_ROOT, 'apps', 'service', 'dist', 'main.js');
const LISTENING = /listening on http:\/\/127\.0\.0\.1:(\d+)/;
const API_KEY = 'browser-test-key-9b1e';
// Chosen at collection time: the JWT case joins as soon as packages/jwt is in the workspace.
const WITH_JWT = hasJwtPackage();

let work: string;
let browser: BrowserContext;
const servers: RunningServer[] = [];

async function startService(env: Record<string, string>, configPath?: string): Promise<RunningServer> {
  const args = configPath === undefined ? [MAIN] : [MAIN, '--config', configPath];
  const server = await startServer(args, {
    cwd: REPO_ROOT,
    env: { ...baseEnv(), PORT: '0', ...env },
    listening: LISTENING,
    stream: 'stderr',
  });
  servers.push(server);
  return server;
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}: run .ci/install-chromium (apt-get install chromium) first`,
    );
  }
  work = mkdtempSync(join(tmpdir(), 'authlayer-browser-'));
  browser = await chromium.launchPersistentContext(join(work, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  // Chromium's start: seconds alone, far more on a loaded 2-core machine. A safety net only.
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all(servers.map((server) => server.stop()));
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('/docs in API key mode', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startService({ SERVICE_API_KEY: API_KEY });
  });

  it('authorizes with the API key, runs "Try it out" on /invoke and shows 200 with the AuthContext', async () => {
    const page = await browser.newPage();
    const shown = await tryInvoke(page, `${server.url}/docs/`, 'APIKeyHeader', API_KEY);
    await page.close();
    expect(shown).toEqual({
      status: 200,
      body: { query: 'hello', auth: expect.objectContaining({ method: 'api_key' }) },
    });
  });

  it('shows 401 with the error body for a wrong key', async () => {
    const page = await browser.newPage();
    const shown = await tryInvoke(page, `${server.url}/docs/`, 'APIKeyHeader', 'a-wrong-key');
    await page.close();
    expect(shown).toEqual({ status: 401, body: { error: 'unauthorized', message: expect.any(String) } });
  });

  it('never logs the key', () => {
    expect(server.stderr()).not.toContain(API_KEY);
    expect(server.stdout()).not.toContain(API_KEY);
  });
});

if (WITH_JWT) {
  describe('/docs in JWT mode', () => {
    let server: RunningServer;
    let token: string;
    beforeAll(async () => {
      const keys = await generateKeyPair('RS256', { extractable: true });
      token = await new SignJWT({ email: 'ada@example.com' })
        .setProtectedHeader({ alg: 'RS256' })
        .setSubject('browser-user')
        .setIssuer('https://issuer.example')
        .setAudience('authlayer-service')
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(keys.privateKey);
      const config = join(work, 'jwt.yaml');
      writeFileSync(
        config,
        'auth:\n  mode: jwt\n  jwt:\n    public_key_env: JWT_PUBLIC_KEY\n    issuer: https://issuer.example\n    audience: authlayer-service\n',
      );
      server = await startService({ JWT_PUBLIC_KEY: await exportSPKI(keys.publicKey) }, config);
      const health = (await (await fetch(`${server.url}/healthz`)).json()) as { auth: { handler: string } };
      expect(health.auth.handler).toBe('jwt');
    });

    it('authorizes with a Bearer token and shows 200 with the token identity', async () => {
      const page = await browser.newPage();
      const shown = await tryInvoke(page, `${server.url}/docs/`, 'BearerAuth', token);
      await page.close();
      expect(shown).toEqual({
        status: 200,
        body: { query: 'hello', auth: expect.objectContaining({ method: 'jwt', userId: 'browser-user' }) },
      });
    });

    it('shows 401 for a token that is not one', async () => {
      const page = await browser.newPage();
      const shown = await tryInvoke(page, `${server.url}/docs/`, 'BearerAuth', 'not.a.token');
      await page.close();
      expect(shown).toEqual({ status: 401, body: { error: 'unauthorized', message: expect.any(String) } });
    });
  });
}
