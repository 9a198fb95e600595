import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../src/config/config-error.js';
import { configSourceOf, parseAuthConfig, withAccessDefaults } from '../src/config/parse-auth-config.js';
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

// The file fields of auth.jwt and auth.oauth2 (public_key_file, client_secret_file), their rules and
// the key files their handlers name for reload.watch are their packages' (config-rules and
// config-section tests there).
describe('the file a config came from', () => {
  it('configSourceOf: the absolute path loadConfig read, kept by withAccessDefaults; null for an object', async () => {
    const path = file('service.yaml', 'auth:\n  mode: api_key\n');
    const loaded = await loadConfig(path);
    expect(configSourceOf(loaded)).toBe(path);
    expect(configSourceOf(withAccessDefaults(loaded, { 'GET /x': 'public' }))).toBe(path);
    expect(configSourceOf(withAccessDefaults(parseAuthConfig({ auth: {} }), {}))).toBeNull();
  });
});
