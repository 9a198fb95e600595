import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { runToExit, startService, writeConfig } from './cli.js';

// `auth.api_keys.keys` through the built CLI: start-up failures (one line, naming the field path
// and the variable, never a value), start-up warnings, and `--check`.
const A = 'cli-many-keys-A-9f2c1d';
const B = 'cli-many-keys-B-7e4a0b';
const sha256 = (key: string) => createHash('sha256').update(key).digest('hex');
const config = (keys: string, apiKeys = '') => `auth:\n  mode: api_key\n  api_keys:\n${apiKeys}    keys:\n${keys}`;
const entry = (fields: string) => `      - ${fields.split('; ').join('\n        ')}\n`;

function expectOneLineFailure(result: { code: number | null; stderr: string; stdout: string }, line: string) {
  expect(result.code).toBe(1);
  expect(result.stderr).toBe(`${line}\n`);
  for (const secret of [A, B, sha256(A), sha256(B)]) expect(`${result.stdout}${result.stderr}`).not.toContain(secret);
}

describe('start-up failures of keys', () => {
  it.each<[string, string, Record<string, string>, string]>([
    [
      'keys beside env_var and prefix (naming both)',
      config(entry('name: a; env_var: A_KEY'), '    env_var: SERVICE_API_KEY\n    prefix: prod\n'),
      { A_KEY: A },
      'auth.api_keys.keys: excludes auth.api_keys.env_var and auth.api_keys.prefix (each key names its own variable or file)',
    ],
    [
      'an entry with env_var and hash_env',
      config(entry('name: a; env_var: A_KEY; hash_env: A_SHA')),
      { A_KEY: A },
      'auth.api_keys.keys[0]: needs exactly one of env_var, hash_env, key_file and hash_file',
    ],
    [
      'unset variables, each by name',
      config(entry('name: a; env_var: A_KEY') + entry('name: b; hash_env: B_SHA')),
      {},
      'auth.api_keys.keys[0].env_var: environment variable A_KEY is unset or empty; auth.api_keys.keys[1].hash_env: environment variable B_SHA is unset or empty',
    ],
    [
      'a hash_env that is not 64 hex digits',
      config(entry('name: a; hash_env: A_SHA')),
      { A_SHA: `${sha256(A)}  -` },
      'auth.api_keys.keys[0].hash_env: environment variable A_SHA must hold 64 hex digits (the SHA-256 of the key)',
    ],
    [
      'one key under two names (naming both)',
      config(entry('name: billing; env_var: A_KEY') + entry('name: reports; hash_env: B_SHA')),
      { A_KEY: A, B_SHA: sha256(A) },
      'auth.api_keys.keys[1]: holds the same key as auth.api_keys.keys[0] ("billing" and "reports"); every key must be distinct',
    ],
    [
      'an expiry that is no date',
      config(entry('name: a; env_var: A_KEY; expires: 2027-02-30')),
      { A_KEY: A },
      'auth.api_keys.keys[0].expires: must be a date written YYYY-MM-DD',
    ],
  ])('%s', async (_name, yaml, env, message) => {
    expectOneLineFailure(await runToExit(['--config', writeConfig(yaml)], env), `authlayer: config error: ${message}`);
  });
});

describe('a running service with keys', () => {
  it('warns at start-up about an old or expired key by name only, then serves', async () => {
    const yaml = config(
      entry('name: billing; env_var: A_KEY; created: 2020-01-01') +
        entry('name: ops; hash_env: B_SHA; expires: 2020-01-01'),
    );
    const service = await startService(['--config', writeConfig(yaml)], { A_KEY: A, B_SHA: sha256(B) });
    const ok = await fetch(`${service.url}/invoke`, {
      method: 'POST',
      headers: { 'X-API-Key': A, 'Content-Type': 'application/json' },
      body: '{"query":"q"}',
    });
    expect(ok.status).toBe(200);
    expect(await service.stop()).toBe(0);
    // Every line the service wrote (pino JSON lines), from start-up to shutdown.
    const logged = service.lines.map((line) => JSON.parse(line) as { level: string; msg: string });
    expect(logged.filter((line) => line.level === 'warn').map((line) => line.msg)).toEqual([
      'API key "billing" (auth.api_keys.keys[0]) was created on 2020-01-01, more than rotation_days (30) ago: rotate it',
      'API key "ops" (auth.api_keys.keys[1]) expired on 2020-01-01 and is refused',
    ]);
    expect(logged.length).toBeGreaterThan(3);
    for (const secret of [A, B, sha256(A), sha256(B)]) expect(service.lines.join('\n')).not.toContain(secret);
  });
});

describe('--check with keys', () => {
  it('shows the clients, their variables, expiry dates and rotation warnings, never a value', async () => {
    const yaml = config(
      entry('name: billing; env_var: A_KEY; roles: [user]; tenant_id: acme; expires: 2999-01-31; created: 2020-01-01') +
        entry('name: billing; hash_env: B_SHA'),
    );
    const result = await runToExit(
      ['--check', '--config', writeConfig(`${yaml}roles:\n  - name: user\n    permissions: [invoke]\n`)],
      { A_KEY: A, B_SHA: sha256(B) },
    );
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(report.key_material).toEqual({ A_KEY: 'set', B_SHA: 'set' });
    expect(report.handler_details).toEqual({
      clients: [
        {
          name: 'billing',
          roles: ['user'],
          permissions: ['invoke'],
          tenant_id: 'acme',
          keys: [
            {
              entry: 'auth.api_keys.keys[0]',
              env_var: 'A_KEY',
              expires: '2999-01-31',
              expired: false,
              created: '2020-01-01',
              rotation_due: true,
            },
            {
              entry: 'auth.api_keys.keys[1]',
              hash_env: 'B_SHA',
              expires: null,
              expired: false,
              created: null,
              rotation_due: false,
            },
          ],
        },
      ],
      warnings: [
        'API key "billing" (auth.api_keys.keys[0]) was created on 2020-01-01, more than rotation_days (30) ago: rotate it',
      ],
    });
    const warnings = result.stderr
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: string; msg: string });
    expect(warnings).toEqual([
      expect.objectContaining({
        level: 'warn',
        msg: 'API key "billing" (auth.api_keys.keys[0]) was created on 2020-01-01, more than rotation_days (30) ago: rotate it',
      }),
    ]);
    for (const secret of [A, B, sha256(A), sha256(B)]) expect(`${result.stdout}${result.stderr}`).not.toContain(secret);
  });
});
