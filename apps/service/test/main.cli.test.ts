import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request as httpRequest } from 'node:http';
import { generateKeyPairSync } from 'node:crypto';
import { openRawConnection } from '@authlayer/testkit';
import { expectOneLineFailure, runToExit, startService, writeConfig } from './cli.js';

const EC_PEM = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .publicKey.export({ type: 'spki', format: 'pem' })
  .toString();
const PEM_CONFIG = (algorithms: string) =>
  `auth:\n  mode: jwt\n  jwt:\n    public_key_env: JWT_PUBLIC_KEY\n    algorithms: [${algorithms}]\n`;

const KEY = 'cli-test-key-5f1c0e9a';
const API_KEY_CONFIG = 'auth:\n  mode: api_key\n';

describe('start-up failures of the CLI', () => {
  it.each([
    ['the config file is missing', null, {}, 'cannot read', ['--config', '/nonexistent/authlayer.yaml']],
    [
      'the YAML is broken (names the line)',
      'auth:\n\tmode: api_key\n',
      {},
      'line 2: not valid YAML (TAB_AS_INDENT)',
      [],
    ],
    [
      'a YAML key is repeated',
      'auth:\n  mode: api_key\n  mode: jwt\n',
      {},
      'line 3: not valid YAML (DUPLICATE_KEY)',
      [],
    ],
    ['auth.mode is unknown', 'auth:\n  mode: oauth9\n', {}, 'auth.mode: must be one of: api_key, jwt', []],
    ['the header is empty', 'auth:\n  api_keys:\n    header: ""\n', {}, 'auth.api_keys.header: must not be empty', []],
    [
      'the header is over 64 characters',
      `auth:\n  api_keys:\n    header: ${'X'.repeat(65)}\n`,
      {},
      'auth.api_keys.header: must be at most 64 characters',
      [],
    ],
    [
      'leeway_seconds is 301',
      'auth:\n  mode: jwt\n  jwt:\n    jwks_url: http://127.0.0.1:9/k\n    leeway_seconds: 301\n',
      {},
      'auth.jwt.leeway_seconds: must be 0 to 300',
      [],
    ],
    [
      'leeway_seconds is -1',
      'auth:\n  jwt:\n    leeway_seconds: -1\n',
      {},
      'auth.jwt.leeway_seconds: must be 0 to 300',
      [],
    ],
    [
      'an algorithm is not in the table',
      'auth:\n  jwt:\n    algorithms: [RS256, none]\n',
      {},
      'auth.jwt.algorithms[1]: must be one of',
      [],
    ],
    [
      'a field has the wrong type',
      'auth:\n  api_keys:\n    allow_bearer: "yes"\n',
      {},
      'auth.api_keys.allow_bearer: must be a boolean',
      [],
    ],
    ['a field is unknown', 'auth:\n  api_keys:\n    headers: X-Key\n', {}, 'auth.api_keys.headers: unknown field', []],
    ['the auth section is missing', 'roles: []\n', {}, 'auth: is required', []],
    [
      'jwt mode has no key source',
      'auth:\n  mode: jwt\n',
      {},
      'auth.jwt: jwt mode needs jwks_url, public_key_env, public_key_file, discovery or providers',
      [],
    ],
    [
      'public_key_env names an unset variable',
      PEM_CONFIG('ES256'),
      {},
      'auth.jwt.public_key_env: environment variable JWT_PUBLIC_KEY is unset or empty',
      [],
    ],
    [
      'public_key_env holds no key',
      PEM_CONFIG('ES256'),
      { JWT_PUBLIC_KEY: 'not a key' },
      'environment variable JWT_PUBLIC_KEY does not hold a PEM public key',
      [],
    ],
    [
      'an algorithm the key cannot serve',
      PEM_CONFIG('RS256'),
      { JWT_PUBLIC_KEY: EC_PEM },
      'auth.jwt.algorithms: RS256 cannot be used with',
      [],
    ],
    [
      'an HMAC algorithm with a PEM key',
      PEM_CONFIG('HS256'),
      { JWT_PUBLIC_KEY: EC_PEM },
      'HMAC algorithms (HS256) need a shared secret',
      [],
    ],
    ['the expected key is unset', API_KEY_CONFIG, {}, 'SERVICE_API_KEY is unset or empty', []],
    ['the expected key is empty', API_KEY_CONFIG, { SERVICE_API_KEY: '' }, 'SERVICE_API_KEY is unset or empty', []],
    [
      'the prefixed key is unset',
      'auth:\n  api_keys:\n    prefix: staging\n',
      { SERVICE_API_KEY: KEY },
      'STAGING_API_KEY is unset or empty',
      [],
    ],
    ['an option is unknown', API_KEY_CONFIG, { SERVICE_API_KEY: KEY }, "Unknown option '--nope'", ['--nope']],
    [
      'PORT is not a port',
      API_KEY_CONFIG,
      { SERVICE_API_KEY: KEY, PORT: '80a' },
      'PORT must be an integer from 0 to 65535',
      [],
    ],
  ])('%s', async (_name, yaml, env, mentions, args) => {
    const configArgs = yaml === null ? [] : ['--config', writeConfig(yaml)];
    const result = await runToExit([...configArgs, ...args], env as Record<string, string>);
    expectOneLineFailure(result, mentions);
    expect(result.stderr).not.toContain(KEY);
    expect(result.stderr).not.toContain('BEGIN PUBLIC KEY');
  });

  it('reports several broken rules on one line', async () => {
    const yaml = `auth:\n  api_keys:\n    header: ""\n    rotation_days: 0\n`;
    const result = await runToExit(['--config', writeConfig(yaml)]);
    expectOneLineFailure(
      result,
      'auth.api_keys.header: must not be empty; auth.api_keys.rotation_days: must be at least 1',
    );
  });

  // A mode's section is checked by its package once core's own fields hold (docs/configuration.md).
  it("reports core's broken rules first, then the mode section's", async () => {
    const yaml = `auth:\n  api_keys:\n    header: ""\n  jwt:\n    leeway_seconds: 999\n`;
    const result = await runToExit(['--config', writeConfig(yaml)]);
    expectOneLineFailure(result, 'auth.jwt.leeway_seconds: must be 0 to 300');
  });

  it('takes SERVICE_CONFIG when there is no --config, and --config over SERVICE_CONFIG', async () => {
    const bad = writeConfig('auth:\n  mode: nope\n');
    expectOneLineFailure(await runToExit([], { SERVICE_CONFIG: bad }), 'auth.mode');
    const good = writeConfig(API_KEY_CONFIG);
    const service = await startService(['--config', good], { SERVICE_CONFIG: bad, SERVICE_API_KEY: KEY });
    expect(await service.stop()).toBe(0);
  });
});

describe('the start-up line in JWT mode', () => {
  it('says the mode, the handler and the variable holding the key, never the key', async () => {
    const config = writeConfig(
      'auth:\n  mode: jwt\n  jwt:\n    public_key_env: JWT_PUBLIC_KEY\n    algorithms: [ES256]\n    issuer: https://idp.example.com\n    audience: invoke-api\n',
    );
    const service = await startService(['--config', config], { JWT_PUBLIC_KEY: EC_PEM });
    expect(await service.stop()).toBe(0);
    expect(JSON.parse(service.lines[0]!)).toMatchObject({
      level: 'info',
      msg: `config ${config}, auth.mode jwt, handler jwt, keys from environment variable JWT_PUBLIC_KEY`,
    });
    expect(service.lines.join('\n')).not.toContain('BEGIN PUBLIC KEY');
  });
});

describe('the running CLI', () => {
  let service: Awaited<ReturnType<typeof startService>>;
  beforeAll(async () => {
    service = await startService([], { SERVICE_API_KEY: KEY });
  });
  afterAll(async () => {
    await service.stop();
  });

  it('serves the default service.yaml (API key mode) on 127.0.0.1', async () => {
    expect(service.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const health = await fetch(`${service.url}/healthz`);
    expect(await health.json()).toEqual({
      status: 'ok',
      auth: { mode: 'api_key', handler: 'api_key' },
      config: { generation: 1, loaded_at: expect.any(String), last_reload_error: null },
    });
    const ok = await fetch(`${service.url}/invoke`, {
      method: 'POST',
      headers: { 'X-API-Key': KEY, 'Content-Type': 'application/json' },
      body: '{"query":"cli"}',
    });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { query: string }).query).toBe('cli');
    const refused = await fetch(`${service.url}/invoke`, { method: 'POST', headers: { 'X-API-Key': 'nope' } });
    expect(refused.status).toBe(401);
  });

  it('answers a header over 16 KiB with a JSON 431, not a bare socket close', async () => {
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        `${service.url}/invoke`,
        { method: 'POST', headers: { 'X-API-Key': 'k'.repeat(20_000) } },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(431);
    expect(JSON.parse(body)).toEqual({ error: 'invalid_request', message: 'the request headers are too large' });
  });

  it('Expect: 100-continue: 401 without credentials (no 100), 100 then 200 with them', async () => {
    const head = (key: string) =>
      `POST /invoke HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Type: application/json\r\n` +
      `Content-Length: 15\r\nX-API-Key: ${key}\r\n\r\n`;
    const refused = await openRawConnection(service.url);
    refused.write(head('nope'));
    expect((await refused.nextResponse()).status).toBe(401);
    await refused.closed;
    const accepted = await openRawConnection(service.url);
    accepted.write(head(KEY));
    expect((await accepted.nextResponse()).status).toBe(100);
    accepted.write('{"query":"100"}');
    expect(await accepted.nextResponse()).toMatchObject({ status: 200 });
    accepted.destroy();
  });

  it('logs JSON lines only: its config, mode, handler and key source, that it listens, then requests and decisions; no key, no stack', () => {
    const records = service.lines.map((line) => JSON.parse(line) as { level: string; msg: string });
    expect(records[0]).toMatchObject({
      level: 'info',
      msg: expect.stringMatching(
        /^config \/.*\/apps\/service\/service\.yaml, auth\.mode api_key, handler api_key, keys from environment variable SERVICE_API_KEY$/,
      ),
    });
    expect(records[1]).toMatchObject({
      level: 'info',
      msg: expect.stringMatching(/^listening on http:\/\/127\.0\.0\.1:\d+ \(auth\.mode api_key\)$/),
    });
    expect(records.filter((r) => r.msg === 'auth').length).toBeGreaterThanOrEqual(2);
    expect(service.lines.join('\n')).not.toContain(KEY);
    expect(service.lines.join('\n')).not.toMatch(/^\s*at /m);
  });
});
