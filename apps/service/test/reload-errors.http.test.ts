import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '@authlayer/core';
import { createCaptureLogger, type CaptureLogger } from '@authlayer/testkit';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createApp, type ServiceApp } from '../src/app.js';

// A reload that fails changes nothing: the old config keeps answering, the error names the
// field, /healthz and the metric show it, and the next good reload clears it (SIGHUP's path).
const KEY = 'reload-errors-key-0123456789';
const NEXT = 'reload-errors-next-0123456789';
let dir: string;
let path: string;
let app: ServiceApp;
let logger: CaptureLogger;

const configText = (keyFile: string, extra = '') =>
  `auth:\n  api_keys:\n    key_file: ${keyFile}\n${extra}metrics: true\n`;
const health = async () => (await request(app).get('/healthz').expect(200)).body.config as Record<string, unknown>;
const invoke = (key: string) => request(app).post('/invoke').set('X-API-Key', key).send({ query: 'q' });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'authlayer-reload-errors-'));
  writeFileSync(join(dir, 'key'), KEY);
  path = join(dir, 'service.yaml');
  writeFileSync(path, configText(join(dir, 'key')));
  logger = createCaptureLogger();
  app = await createApp(await loadConfig(path), { env: {}, logger });
});
afterAll(async () => {
  await app.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

describe('failed reloads', () => {
  it('a missing key file: the old key still answers; /healthz names the field and the path', async () => {
    unlinkSync(join(dir, 'key'));
    await expect(app.reload()).rejects.toThrow(/auth\.api_keys\.key_file/);
    await invoke(KEY).expect(200);
    const line = `config reload failed: auth.api_keys.key_file: file ${join(dir, 'key')} does not exist; generation 1 keeps serving`;
    expect(await health()).toEqual({ generation: 1, loaded_at: expect.any(String), last_reload_error: line });
    expect(logger.lines).toContainEqual({ level: 'error', message: line });
  });

  it('broken YAML, then a broken rule: each named, the old config still answers', async () => {
    writeFileSync(path, 'auth:\n  api_keys: [\n');
    await expect(app.reload()).rejects.toThrow(/line \d+: not valid YAML/);
    expect((await health()).last_reload_error).toMatch(
      /^config reload failed: config: .+service\.yaml, line \d+: not valid YAML/,
    );
    writeFileSync(path, `auth:\n  api_keys:\n    header: ''\n`);
    await expect(app.reload()).rejects.toThrow(/auth\.api_keys\.header/);
    expect((await health()).last_reload_error).toMatch(/auth\.api_keys\.header: must not be empty/);
    await invoke(KEY).expect(200);
  });

  it('the next good reload clears the error and serves the new key; the metric counts both results', async () => {
    writeFileSync(join(dir, 'next'), NEXT);
    writeFileSync(path, configText(join(dir, 'next')));
    const before = (await health()).loaded_at as string;
    await expect(app.reload()).resolves.toMatchObject({ generation: 2 });
    const after = await health();
    expect(after).toMatchObject({ generation: 2, last_reload_error: null });
    expect(Date.parse(after.loaded_at as string)).toBeGreaterThanOrEqual(Date.parse(before));
    await invoke(NEXT).expect(200);
    await invoke(KEY).expect(401);
    const metrics = (await request(app).get('/metrics').expect(200)).text;
    expect(metrics).toContain('authlayer_config_reloads_total{result="failed"} 3');
    expect(metrics).toContain('authlayer_config_reloads_total{result="ok"} 1');
    expect(logger.lines).toContainEqual({ level: 'info', message: 'config reloaded: generation 2 serves' });
  });

  it('keeps what decides the routes (metrics), with a warning; never logs a key', async () => {
    writeFileSync(path, `auth:\n  api_keys:\n    key_file: ${join(dir, 'next')}\nmetrics: false\n`);
    await app.reload();
    expect(logger.lines).toContainEqual({
      level: 'warn',
      message: 'config reload: metrics changed; kept as at start until a restart',
    });
    await request(app).get('/metrics').expect(200);
    for (const line of logger.text) for (const secret of [KEY, NEXT]) expect(line).not.toContain(secret);
  });

  it('an access key that matches none of its routes (a typo) is refused naming it; with forward_auth it is not', async () => {
    const generation = (await health()).generation as number;
    writeFileSync(path, configText(join(dir, 'next'), 'access:\n  "POST /invokee": { roles: [ops] }\n'));
    await expect(app.reload()).rejects.toThrow(
      /^access\.POST \/invokee: the app has no route that POST \/invokee matches/,
    );
    expect(await health()).toMatchObject({ generation, last_reload_error: expect.stringContaining('POST /invokee') });
    await invoke(NEXT).expect(200);
    // With forward_auth the table describes the application behind the proxy, not the service.
    writeFileSync(
      path,
      configText(join(dir, 'next'), 'access:\n  "POST /invokee": { roles: [ops] }\nforward_auth: { enabled: true }\n'),
    );
    await expect(app.reload()).resolves.toMatchObject({ generation: generation + 1 });
  });
});
