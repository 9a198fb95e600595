// `node apps/service/dist/main.js --check` (root: `pnpm start --check`), spawned as a user runs it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pnpmCommand, REPO_ROOT } from '../scripts/pack.mjs';
import { baseEnv } from './support/start-server.js';

const MAIN = join(REPO_ROOT, 'apps', 'service', 'dist', 'main.js');
const SERVICE_YAML = join(REPO_ROOT, 'apps', 'service', 'service.yaml');
const SECRET = 'check-secret-value-51d2';
let work: string;

function check(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [MAIN, '--check', ...args], {
    env: { ...baseEnv(), ...env },
    encoding: 'utf8',
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function writeConfig(name: string, yaml: string): string {
  const path = join(work, name);
  writeFileSync(path, yaml);
  return path;
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'authlayer-check-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('--check with a valid config and its key material', () => {
  it('exits 0 and prints the resolved settings with every default filled in', () => {
    const result = check(['--config', SERVICE_YAML], { SERVICE_API_KEY: SECRET });
    expect(result.status).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({
      config: SERVICE_YAML,
      handler: 'api_key',
      key_material: { SERVICE_API_KEY: 'set' },
      auth: {
        mode: 'api_key',
        api_keys: {
          env_var: 'SERVICE_API_KEY',
          prefix: null,
          header: 'X-API-Key',
          allow_bearer: true,
          enabled: true,
          rotation_days: 30,
        },
      },
      roles: [
        { name: 'admin', permissions: ['invoke', 'admin'] },
        { name: 'user', permissions: ['invoke'] },
      ],
    });
    // A section is its mode package's: one of a mode neither listed nor written is not shown.
    expect(Object.keys(report.auth)).toEqual(['mode', 'fallback', 'api_keys']);
  });

  it('never prints the key, and says nothing on stderr', () => {
    const result = check(['--config', SERVICE_YAML], { SERVICE_API_KEY: SECRET });
    expect(`${result.stdout}${result.stderr}`).not.toContain(SECRET);
    expect(result.stderr).toBe('');
  });

  it('reads <PREFIX>_API_KEY when a prefix is set, and hides query values of jwks_url', () => {
    const prefixed = writeConfig('prefix.yaml', 'auth:\n  mode: api_key\n  api_keys:\n    prefix: prod\n');
    expect(JSON.parse(check(['--config', prefixed], { PROD_API_KEY: SECRET }).stdout).key_material).toEqual({
      PROD_API_KEY: 'set',
    });
    const jwks = writeConfig(
      'jwks.yaml',
      'auth:\n  mode: jwt\n  jwt:\n    jwks_url: https://idp.example/jwks?access_token=hunter2\n',
    );
    const result = check(['--config', jwks]);
    expect(result.stdout).not.toContain('hunter2');
    expect(JSON.parse(result.stdout).auth.jwt.jwks_url).toBe('https://idp.example/jwks?access_token=redacted');
  });

  it('refuses a jwks_url with a user and password at start-up, without repeating them', () => {
    const jwks = writeConfig(
      'userinfo.yaml',
      'auth:\n  mode: jwt\n  jwt:\n    jwks_url: https://user:hunter2@idp.example/jwks\n',
    );
    const result = check(['--config', jwks]);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      'authlayer: config error: auth.jwt.jwks_url: must not hold a user name or password (fetch refuses such URLs)\n',
    );
  });
});

describe('--check shows the operations settings', () => {
  it('prints rate_limit (a Redis password hidden) and metrics; rate_limit is null when absent', () => {
    const plain = JSON.parse(check(['--config', SERVICE_YAML], { SERVICE_API_KEY: SECRET }).stdout);
    expect(plain).toMatchObject({ rate_limit: null, metrics: false });
    // Port 9 (discard) refuses: Redis down at start is not a failure, the limits fall back to memory.
    const yaml =
      'auth:\n  mode: api_key\nmetrics: true\nrate_limit:\n  failed_auth_per_minute: 20\n  store: redis://:hunter2@127.0.0.1:9/0\n';
    const result = check(['--config', writeConfig('limits.yaml', yaml)], { SERVICE_API_KEY: SECRET });
    expect(result.status).toBe(0);
    expect(result.stdout).not.toContain('hunter2');
    expect(JSON.parse(result.stdout)).toMatchObject({
      metrics: true,
      rate_limit: {
        requests_per_minute: null,
        failed_auth_per_minute: 20,
        store: 'redis://redacted@127.0.0.1:9/0',
        trust_proxy: false,
      },
    });
  });
});

describe('--check with several modes and access', () => {
  it('shows mode and handler as lists, auth.fallback, the access section and both key variables', () => {
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const example = join(REPO_ROOT, 'apps', 'service', 'examples', 'several-modes.yaml');
    const result = check(['--config', example], { SERVICE_API_KEY: SECRET, JWT_PUBLIC_KEY: pem });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toMatchObject({
      handler: ['api_key', 'jwt'],
      key_material: { SERVICE_API_KEY: 'set', JWT_PUBLIC_KEY: 'set' },
      auth: { mode: ['api_key', 'jwt'], fallback: 'refuse' },
      access: { 'POST /invoke': { permissions: ['invoke'], scopes: [], roles: [] } },
    });
  });
});

describe('--check with a broken config or missing key material', () => {
  // yaml null: the service's own config; undefined: a file that does not exist.
  const broken: { name: string; yaml: string | null | undefined; env: Record<string, string>; says: string }[] = [
    { name: 'the key variable is unset', yaml: null, env: {}, says: 'SERVICE_API_KEY' },
    {
      name: 'a header over 64 characters',
      yaml: `auth:\n  api_keys:\n    header: ${'x'.repeat(65)}\n`,
      env: { SERVICE_API_KEY: SECRET },
      says: 'auth.api_keys.header',
    },
    {
      name: 'an unknown field',
      yaml: 'auth:\n  mode: api_key\n  colour: blue\n',
      env: { SERVICE_API_KEY: SECRET },
      says: 'auth.colour',
    },
    { name: 'a missing file', yaml: undefined, env: {}, says: 'cannot read' },
  ];
  it.each(broken)('exits 1 with one line naming the problem when $name', ({ name, yaml, env, says }) => {
    const path =
      yaml === null
        ? SERVICE_YAML
        : yaml === undefined
          ? join(work, 'missing.yaml')
          : writeConfig(`${name}.yaml`, yaml);
    const result = check(['--config', path], env);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(says);
    expect(lines[0]).not.toContain(SECRET);
  });
});

describe('the root `pnpm --silent start --check`, piped', () => {
  it('prints only the JSON report on stdout (turbo and pnpm lines go elsewhere)', () => {
    const [command, args] = pnpmCommand();
    const result = spawnSync(command, [...args, '--silent', 'start', '--check'], {
      cwd: REPO_ROOT,
      env: { ...baseEnv(), SERVICE_API_KEY: SECRET },
      encoding: 'utf8',
    });
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ handler: 'api_key' });
    expect(result.stdout).not.toContain(SECRET);
  });
});
