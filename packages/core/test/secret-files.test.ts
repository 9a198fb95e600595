import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../src/config/config-error.js';
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

describe('config: the file fields and their rules', () => {
  it('converts public_key_file and client_secret_file once to camelCase', () => {
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
    [
      'an empty path',
      { auth: { mode: 'jwt', jwt: { public_key_file: '' } } },
      'auth.jwt.public_key_file',
      /must not be empty/,
    ],
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
  it('keyFilesOf lists every key file of the sections core owns once, as absolute paths', () => {
    const config = parseAuthConfig({
      auth: {
        mode: ['api_key', 'jwt', 'oauth2'],
        // A mode package's section: its handler names its files (AuthHandler.keyFiles), not core.
        api_keys: { keys_file: '/k.yaml', keys: [{ name: 'a', key_file: 'rel/a' }] },
        jwt: {
          providers: [
            { issuer: 'https://i.example', public_key_file: 'rel/p.pem' },
            { issuer: 'https://j.example', public_key_file: '/b' },
          ],
        },
        oauth2: { introspection_url: 'https://i.example/x', client_id: 'c', client_secret_file: '/b' },
      },
    });
    expect(keyFilesOf(config)).toEqual([join(process.cwd(), 'rel/p.pem'), '/b']);
    expect(keyFilesOf(parseAuthConfig({ auth: { api_keys: { key_file: '/one' } } }))).toEqual([]);
  });

  it('configSourceOf: the absolute path loadConfig read, kept by withAccessDefaults; null for an object', async () => {
    const path = file('service.yaml', 'auth:\n  mode: api_key\n');
    const loaded = await loadConfig(path);
    expect(configSourceOf(loaded)).toBe(path);
    expect(configSourceOf(withAccessDefaults(loaded, { 'GET /x': 'public' }))).toBe(path);
    expect(configSourceOf(withAccessDefaults(parseAuthConfig({ auth: {} }), {}))).toBeNull();
  });
});
