import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { expectedContext } from '@authlayer/testkit';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

const OAUTH2 = { mode: 'oauth2', oauth2: { introspection_url: 'http://127.0.0.1:9/introspect', client_id: 'api' } };

describe.each([
  ['jwt', '@authlayer/jwt', undefined, {}],
  ['oauth2', '@authlayer/oauth2', JSON.stringify(OAUTH2), { OAUTH2_CLIENT_SECRET: 'a-secret' }],
])('%s mode without %s installed', (mode, pkg, authSection, extraEnv) => {
  let child: ChildProcess;
  let stderr = '';
  let ready: { port: number; method: string };

  beforeAll(async () => {
    child = spawn(process.execPath, ['--import', fixture('hide-packages.mjs'), fixture('jwt-mode-server.mjs')], {
      env: {
        ...process.env,
        ...extraEnv,
        AUTHLAYER_HIDE_PACKAGES: pkg,
        ...(authSection === undefined ? {} : { AUTHLAYER_TEST_AUTH: authSection }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    // The first line on stdout, or the app's exit (with what it said) if it dies first.
    const line = await Promise.race([
      once(createInterface({ input: child.stdout! }), 'line').then(([first]) => first as string),
      once(child, 'exit').then(([code]) => Promise.reject(new Error(`the app exited (${String(code)}): ${stderr}`))),
    ]);
    ready = JSON.parse(line) as { port: number; method: string };
  });

  afterAll(async () => {
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
  });

  it('falls back to the no-auth handler', () => {
    expect(ready.method).toBe('none');
  });

  it('warns loudly, naming the package and saying requests are NOT authenticated', () => {
    expect(stderr.trim().split('\n')).toEqual([
      `[authlayer] WARNING: auth.mode is "${mode}" but the package ${pkg} is not installed: falling back to the ` +
        `no-auth handler, requests are NOT authenticated. Install ${pkg} to authenticate requests.`,
    ]);
  });

  it('lets requests through unauthenticated, as documented', async () => {
    const res = await fetch(`http://127.0.0.1:${ready.port}/invoke`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(expectedContext({ method: 'none' }));
  });

  it('keeps a guarded route closed: the no-auth handler grants no permission (403)', async () => {
    const res = await fetch(`http://127.0.0.1:${ready.port}/guarded`, {
      method: 'POST',
      headers: { authorization: 'Bearer x.y.z' },
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: 'forbidden', message: 'the permission invoke is required' });
  });
});
