import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger } from '@authlayer/testkit';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp, type ServiceApp } from '../src/app.js';
import { CONFIG, env, KEYS } from './forward-auth-config.js';
import { freePort, startNginx, type RunningNginx } from './nginx.js';

// Debian's real nginx, with the auth_request block of docs/forward-auth.md as it is written (only
// its ports changed), in front of an application that is not Node.js: a second nginx server that
// echoes what it received. The service runs in this process on a free port.

const DOC = readFileSync(new URL('../../../docs/forward-auth.md', import.meta.url), 'utf8');
const SERVER_BLOCK =
  /<!-- apps\/service\/test\/forward-auth\.nginx\.test\.ts runs this block[^\n]*\n```nginx\n([\s\S]*?)```/.exec(
    DOC,
  )?.[1];

let service: ServiceApp;
let listening: Server;
let nginx: RunningNginx;
let base: string;

beforeAll(async () => {
  expect(SERVER_BLOCK).toBeDefined();
  service = await createApp(CONFIG, {
    env,
    logger: createCaptureLogger(),
  });
  listening = service.listen(0, '127.0.0.1');
  await once(listening, 'listening');
  const servicePort = (listening.address() as AddressInfo).port;
  const [port, upstream] = [await freePort(), await freePort()];
  const block = SERVER_BLOCK!
    .replace('listen 8000;', `listen 127.0.0.1:${port};`)
    .replace('127.0.0.1:9000', `127.0.0.1:${upstream}`)
    .replace('127.0.0.1:9091', `127.0.0.1:${servicePort}`);
  nginx = await startNginx(() =>
    [
      // The application: nginx itself, echoing the method, URI and identity headers it received.
      'server {',
      `  listen 127.0.0.1:${upstream};`,
      '  location / {',
      '    default_type text/plain;',
      '    return 200 "$request_method $request_uri user=[$http_x_auth_user_id] roles=[$http_x_auth_roles] tenant=[$http_x_auth_tenant]";',
      '  }',
      '}',
      block,
    ].join('\n'),
  );
  base = `http://127.0.0.1:${port}`;
  // A safety net for a hung nginx, not a speed bound.
}, 300_000);

afterAll(async () => {
  await nginx?.stop();
  listening?.close();
  await service?.shutdown();
});

const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
  fetch(`${base}${path}`, { method, headers });

describe('the service behind Debian nginx (auth_request), in front of an application that is not Node.js', () => {
  it('no credential: 401 with the service challenge passed through; the application never sees it', async () => {
    const res = await get('/reports/7');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      'ApiKey realm="authlayer", header="X-API-Key", Bearer realm="authlayer"',
    );
    expect(await res.text()).not.toContain('user=');
  });

  it('a valid key: the application sees the request and X-Auth-User-Id, roles and tenant', async () => {
    const res = await get('/reports/7?format=csv', { 'X-API-Key': KEYS.reader });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('GET /reports/7?format=csv user=[reader] roles=[reader] tenant=[acme]');
  });

  it('a client-forged X-Auth-User-Id never reaches the application', async () => {
    const forged = { 'X-Auth-User-Id': 'admin', 'X-Auth-Roles': 'admin', 'X-Auth-Tenant': 'globex' };
    const allowed = await get('/reports/7', { ...forged, 'X-API-Key': KEYS.reader });
    expect(await allowed.text()).toBe('GET /reports/7 user=[reader] roles=[reader] tenant=[acme]');
    const open = await get('/public/logo.png', forged);
    expect(open.status).toBe(200);
    expect(await open.text()).toBe('GET /public/logo.png user=[] roles=[] tenant=[]');
  });

  it("a rule's 403 passes through, for every spelling of the guarded path, and deny for everyone", async () => {
    for (const path of ['/reports/7', '/REPORTS/7/', '/Reports/7?x=1']) {
      expect((await get(path, { 'X-API-Key': KEYS.plain })).status).toBe(403);
    }
    expect((await get('/REPORTS/7/', { 'X-API-Key': KEYS.reader })).status).toBe(200);
    expect((await get('/admin/users', { 'X-API-Key': KEYS.reader }, 'POST')).status).toBe(403);
  });

  it('a 429 with Retry-After passes through once the failed-auth limit is reached, whatever X-Forwarded-For a client sends', async () => {
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 5; i += 1) {
      // trust_proxy: 1 counts the address nginx saw, not one the client chose.
      const res = await get('/reports/7', { 'X-API-Key': `wrong-key-${i}`, 'X-Forwarded-For': `203.0.113.${i}` });
      statuses.push(res.status);
      if (res.status === 429) retryAfter = res.headers.get('retry-after');
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  });
});
