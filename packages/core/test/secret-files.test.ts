import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../src/config/config-error.js';
import { readApiKeysFile } from '../src/config/api-keys-file.js';
import { configSourceOf, parseAuthConfig, withAccessDefaults } from '../src/config/parse-auth-config.js';
import { keyFilesOf } from '../src/config/key-files.js';
import { loadConfig } from '../src/config/load-config-file.js';
import { readSecretFile } from '../src/config/read-secret-file.js';

// Contract, "Live changes without a restart": the file twin of every secret-bearing field.
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'authlayer-files-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SECRET = 's3cret-value-never-shown';
function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}
function issuesOf(run: () => unknown) {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues;
  }
  throw new Error('accepted');
}
const HEX = 'ab'.repeat(32);

describe('readSecretFile', () => {
  it('reads the file whole and drops one trailing newline (\\n or \\r\\n), no more', () => {
    expect(readSecretFile(file('a', `${SECRET}\n`), 'f')).toBe(SECRET);
    expect(readSecretFile(file('b', `${SECRET}\r\n`), 'f')).toBe(SECRET);
    expect(readSecretFile(file('c', `${SECRET}\n\n`), 'f')).toBe(`${SECRET}\n`);
    expect(readSecretFile(file('d', `line 1\nline 2`), 'f')).toBe('line 1\nline 2');
  });

  it.each([
    ['missing', () => join(dir, 'absent'), /^file \/.+\/absent does not exist$/],
    ['empty', () => file('empty', ''), /^file \/.+\/empty is empty$/],
    ['a newline alone', () => file('newline', '\n'), /is empty$/],
    ['a directory', () => dir, /cannot be read \(EISDIR\)$/],
  ])('refuses a file that is %s, naming the field and the path', (_name, path, message) => {
    const [issue] = issuesOf(() => readSecretFile(path(), 'auth.jwt.public_key_file'));
    expect(issue?.path).toBe('auth.jwt.public_key_file');
    expect(issue?.message).toMatch(message);
  });

  it('refuses an unreadable file (EACCES) when the process is not root', () => {
    const path = file('locked', SECRET);
    chmodSync(path, 0);
    const root = process.getuid?.() === 0;
    if (root) expect(readSecretFile(path, 'f')).toBe(SECRET);
    else expect(issuesOf(() => readSecretFile(path, 'f'))[0]?.message).toMatch(/cannot be read \(EACCES\)/);
  });

  it('refuses a file past the size bound, without its content', () => {
    const [issue] = issuesOf(() => readSecretFile(file('big', SECRET.repeat(10)), 'f', 16));
    expect(issue?.message).toMatch(/is larger than 16 bytes$/);
    expect(JSON.stringify(issue)).not.toContain(SECRET);
  });
});

describe('readApiKeysFile', () => {
  it('reads every entry, the digest as its 32 bytes, fields left out as unset', () => {
    const path = file(
      'keys.yaml',
      `- name: billing\n  sha256: ${HEX}\n  roles: [user]\n  tenant_id: acme\n  expires: 2027-01-01\n  created: 2026-01-01\n` +
        `- name: reports\n  sha256: ${'CD'.repeat(32)}\n`,
    );
    expect(readApiKeysFile(path)).toEqual([
      {
        name: 'billing',
        sha256: Buffer.from(HEX, 'hex'),
        roles: ['user'],
        tenantId: 'acme',
        expires: '2027-01-01',
        created: '2026-01-01',
      },
      {
        name: 'reports',
        sha256: Buffer.from('cd'.repeat(32), 'hex'),
        roles: undefined,
        tenantId: undefined,
        expires: null,
        created: null,
      },
    ]);
  });

  // YAML 1.1 would read `yes`/`no`/`on`/`off` as booleans and a date as a Date: pinned for any
  // change of parser (docs/design/live-reload.md).
  it('reads YAML 1.2 core: yes, no, on and off stay strings, and so does a date', () => {
    const path = file(
      'yes.yaml',
      `- name: yes\n  sha256: ${HEX}\n  tenant_id: no\n  roles: [on, off]\n  created: 2026-01-01\n`,
    );
    expect(readApiKeysFile(path)).toEqual([
      expect.objectContaining({ name: 'yes', tenantId: 'no', roles: ['on', 'off'], created: '2026-01-01' }),
    ]);
  });

  it('takes an empty list: no key', () => {
    expect(readApiKeysFile(file('none.yaml', '[]\n'))).toEqual([]);
  });

  it.each([
    ['not YAML', 'a: [', /^auth\.api_keys\.keys_file$/, /: not valid YAML$/],
    ['not a list', 'name: x\n', /^auth\.api_keys\.keys_file$/, /must be a list \(in \//],
    ['a short digest', `- name: x\n  sha256: abc\n`, /keys_file\[0\]\.sha256$/, /64 hex digits/],
    ['no digest', `- name: x\n`, /keys_file\[0\]\.sha256$/, /^is required/],
    ['a digest of digits only', `- name: x\n  sha256: ${'1'.repeat(64)}\n`, /sha256$/, /in quotes \(YAML read/],
    ['an env_var', `- name: x\n  sha256: ${HEX}\n  env_var: K\n`, /keys_file\[0\]$/, /unknown field env_var/],
    ['a bad date', `- name: x\n  sha256: ${HEX}\n  expires: soon\n`, /keys_file\[0\]\.expires$/, /YYYY-MM-DD/],
    ['a custom tag', `- !custom x\n`, /^auth\.api_keys\.keys_file$/, /line 1: not valid YAML/],
    ['a repeated key', `- name: x\n  name: y\n`, /^auth\.api_keys\.keys_file$/, /line 2: not valid YAML/],
    ['an empty file', '', /^auth\.api_keys\.keys_file$/, /is empty/],
  ])('refuses a file with %s, naming the entry and field', (_name, content, path, message) => {
    const [issue] = issuesOf(() => readApiKeysFile(file('bad.yaml', content)));
    expect(issue?.path).toMatch(path);
    expect(issue?.message).toMatch(message);
  });

  it('reports at most ten broken entries, never a digest', () => {
    const content = Array.from({ length: 30 }, (_, i) => `- name: c${i}\n  sha256: ${HEX.slice(1)}\n`).join('');
    const issues = issuesOf(() => readApiKeysFile(file('many-bad.yaml', content)));
    expect(issues).toHaveLength(10);
    expect(JSON.stringify(issues)).not.toContain(HEX.slice(1));
  });

  // How long it takes is the bench's (`pnpm --filter @authlayer/bench reload`), never a test's.
  it('reads 10 000 entries', () => {
    const content = Array.from(
      { length: 10_000 },
      (_, i) =>
        `- name: client-${i}\n  sha256: "${createHash('sha256').update(String(i)).digest('hex')}"\n  roles: [user]\n  created: 2026-11-01\n`,
    ).join('');
    const path = file('10k.yaml', content);
    const entries = readApiKeysFile(path);
    expect(entries).toHaveLength(10_000);
    expect(entries[9_999]).toMatchObject({ name: 'client-9999' });
  });
});

describe('config: the file fields and their rules', () => {
  const api = (apiKeys: Record<string, unknown>) => ({ auth: { mode: 'api_key', api_keys: apiKeys } });

  it('converts key_file, keys_file and each entry twin once to camelCase', () => {
    const config = parseAuthConfig(
      api({
        keys_file: '/k.yaml',
        keys: [
          { name: 'a', key_file: '/a' },
          { name: 'b', hash_file: '/b' },
        ],
      }),
    );
    expect(config.apiKeys.keysFile).toBe('/k.yaml');
    expect(config.apiKeys.keys?.map(({ keyFile, hashFile }) => [keyFile, hashFile])).toEqual([
      ['/a', null],
      [null, '/b'],
    ]);
    expect(parseAuthConfig(api({ keys_file: '/k.yaml' })).apiKeys.keys).toEqual([]);
    expect(parseAuthConfig(api({ key_file: '/k' })).apiKeys).toMatchObject({ keyFile: '/k', keys: null });
    const jwt = parseAuthConfig({ auth: { mode: 'jwt', jwt: { public_key_file: '/p.pem' } } }).jwt;
    expect(jwt.publicKeyFile).toBe('/p.pem');
    const oauth2 = parseAuthConfig({
      auth: {
        mode: 'oauth2',
        oauth2: { introspection_url: 'https://i.example/x', client_id: 'c', client_secret_file: '/s' },
      },
    }).oauth2;
    expect(oauth2.clientSecretFile).toBe('/s');
  });

  it.each([
    ['key_file with env_var', api({ key_file: '/k', env_var: 'K' }), 'auth.api_keys.key_file', /not both/],
    ['keys_file with env_var', api({ keys_file: '/k', env_var: 'K' }), 'auth.api_keys.keys_file', /excludes/],
    ['keys_file with key_file', api({ keys_file: '/k', key_file: '/j' }), 'auth.api_keys.keys_file', /key_file/],
    [
      'an entry with key_file and hash_file',
      api({ keys: [{ name: 'a', key_file: '/a', hash_file: '/b' }] }),
      'auth.api_keys.keys[0]',
      /exactly one of env_var, hash_env, key_file and hash_file/,
    ],
    ['an empty path', api({ key_file: '' }), 'auth.api_keys.key_file', /must not be empty/],
    [
      'public_key_file with public_key_env',
      { auth: { mode: 'jwt', jwt: { public_key_file: '/p', public_key_env: 'P' } } },
      'auth.jwt',
      /not public_key_env and public_key_file/,
    ],
    [
      'public_key_file beside providers',
      { auth: { mode: 'jwt', jwt: { public_key_file: '/p', providers: [{ issuer: 'i', public_key_file: '/q' }] } } },
      'auth.jwt.public_key_file',
      /in each entry of providers/,
    ],
  ])('refuses %s, naming the field', (_name, raw, path, message) => {
    const issue = issuesOf(() => parseAuthConfig(raw)).find((candidate) => candidate.path === path);
    expect(issue?.message).toMatch(message);
  });

  it('takes HMAC algorithms with public_key_file (a shared secret in a file)', () => {
    const config = parseAuthConfig({ auth: { mode: 'jwt', jwt: { public_key_file: '/s', algorithms: ['HS256'] } } });
    expect(config.jwt.algorithms).toEqual(['HS256']);
  });
});

describe('the files a config names, and the file it came from', () => {
  it('keyFilesOf lists every key file once, as absolute paths', () => {
    const config = parseAuthConfig({
      auth: {
        mode: ['api_key', 'jwt', 'oauth2'],
        api_keys: {
          keys_file: '/k.yaml',
          keys: [
            { name: 'a', key_file: 'rel/a' },
            { name: 'b', hash_file: '/b' },
            { name: 'c', env_var: 'C' },
          ],
        },
        jwt: { providers: [{ issuer: 'https://i.example', public_key_file: '/p.pem' }] },
        oauth2: { introspection_url: 'https://i.example/x', client_id: 'c', client_secret_file: '/b' },
      },
    });
    expect(keyFilesOf(config)).toEqual(['/k.yaml', join(process.cwd(), 'rel/a'), '/b', '/p.pem']);
    expect(keyFilesOf(parseAuthConfig({ auth: { api_keys: { key_file: '/one' } } }))).toEqual(['/one']);
  });

  it('configSourceOf: the absolute path loadConfig read, kept by withAccessDefaults; null for an object', async () => {
    const path = file('service.yaml', 'auth:\n  mode: api_key\n');
    const loaded = await loadConfig(path);
    expect(configSourceOf(loaded)).toBe(path);
    expect(configSourceOf(withAccessDefaults(loaded, { 'GET /x': 'public' }))).toBe(path);
    expect(configSourceOf(withAccessDefaults(parseAuthConfig({ auth: {} }), {}))).toBeNull();
  });
});
