import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../src/config/config-error.js';
import { loadConfig, parseYaml } from '../src/config/load-config-file.js';
import { isParsedAuthConfig, parseAuthConfig } from '../src/config/parse-auth-config.js';

let dir: string;
let count = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'authlayer-load-config-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes `text` to a fresh file in the temp folder and returns its path. */
async function fileWith(text: string): Promise<string> {
  count += 1;
  const path = join(dir, `config-${count}.yaml`);
  await writeFile(path, text, 'utf8');
  return path;
}

/** Awaits `promise` and returns the ConfigError it must reject with. */
async function configErrorOf(promise: Promise<unknown>): Promise<ConfigError> {
  const error: unknown = await promise.then(
    () => new Error('expected a ConfigError'),
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

// Sixteen levels of nine aliases: 9^16 (about 1.9e15) strings once expanded. yaml shares an
// alias's node instead of copying it, so what explodes is any later walk of the result (a deep
// copy, JSON.stringify, a check of every value), and no clock would see it in the load itself.
// The refusal by alias count, named in the message, is what keeps every such walk small.
const LEVELS = 'abcdefghijklmnop';
const BILLION_LAUGHS = [
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ...LEVELS.slice(1)
    .split('')
    .map((name, index) => `${name}: &${name} [${Array(9).fill(`*${LEVELS[index]}`).join(',')}]`),
  'auth: {mode: api_key}',
].join('\n');

describe('loadConfig', () => {
  it('reads a valid YAML file into a parsed config', async () => {
    const path = await fileWith(
      [
        'auth:',
        '  mode: [api_key, jwt]',
        '  api_keys:',
        '    env_var: MY_SERVICE_KEY',
        '    header: X-Service-Key',
        '    allow_bearer: false',
        '  jwt:',
        '    public_key_env: JWT_PEM',
        '    leeway_seconds: 5',
        'roles:',
        '  - name: admin',
        '    permissions: [invoke, read]',
        '',
      ].join('\n'),
    );
    const config = await loadConfig(path);
    expect(isParsedAuthConfig(config)).toBe(true);
    expect(config.modes).toEqual(['api_key', 'jwt']);
    // Mode packages' sections, as YAML 1.2 read them: checked by each package when the engine loads it.
    expect(config.modeSections).toEqual({
      api_keys: { env_var: 'MY_SERVICE_KEY', header: 'X-Service-Key', allow_bearer: false },
      jwt: { public_key_env: 'JWT_PEM', leeway_seconds: 5 },
    });
    expect(config.roles).toEqual([{ name: 'admin', permissions: ['invoke', 'read'] }]);
  });

  it('names the file and the code when the file is missing', async () => {
    const path = join(dir, 'missing.yaml');
    const error = await configErrorOf(loadConfig(path));
    expect(error.issues).toEqual([{ path: 'config', message: `cannot read ${path} (ENOENT)` }]);
    expect(error.message).toBe(`config: cannot read ${path} (ENOENT)`);
  });

  it('names the code when the path is a folder', async () => {
    const error = await configErrorOf(loadConfig(dir));
    expect(error.message).toBe(`config: cannot read ${dir} (EISDIR)`);
  });

  it('names the file and the line of a YAML syntax error', async () => {
    const path = await fileWith('auth:\n  mode: api_key\n  api_keys:\n    header: a: b\n');
    const error = await configErrorOf(loadConfig(path));
    expect(error.message).toBe(`config: ${path}, line 4: not valid YAML (BLOCK_AS_IMPLICIT_KEY)`);
  });

  it('refuses duplicate keys, naming the line of the second one', async () => {
    const path = await fileWith('auth:\n  mode: jwt\n  mode: api_key\n');
    const error = await configErrorOf(loadConfig(path));
    expect(error.message).toBe(`config: ${path}, line 3: not valid YAML (DUPLICATE_KEY)`);
  });

  it('refuses an empty file, naming it', async () => {
    const path = await fileWith('');
    const error = await configErrorOf(loadConfig(path));
    expect(error.issues).toEqual([{ path: 'config', message: `${path} is empty` }]);
  });

  it('refuses a YAML alias bomb before expanding it, as a ConfigError', async () => {
    const path = await fileWith(BILLION_LAUGHS);
    const error = await configErrorOf(loadConfig(path));
    expect(error.message).toBe(`config: ${path}: not valid YAML (too many aliases)`);
  });

  it('applies the config rules to the file content', async () => {
    const path = await fileWith('auth:\n  mode: api_key\nresource:\n  identifier: https://a.example\n  name: ""\n');
    const error = await configErrorOf(loadConfig(path));
    expect(error.issues).toEqual([{ path: 'resource.name', message: 'must not be empty' }]);
  });

  it.each([
    ['a number', 42],
    ['undefined', undefined],
    ['null', null],
    ['an empty string', ''],
    ['a URL object', new URL('file:///etc/service.yaml')],
  ])('throws TypeError for %s as path', async (_name, path) => {
    await expect(loadConfig(path as unknown as string)).rejects.toThrow(
      new TypeError('loadConfig(path): path must be a non-empty string'),
    );
  });
});

describe('parseYaml', () => {
  it('returns the plain value of the document', () => {
    expect(parseYaml('auth:\n  mode: jwt\nroles: [a, b]\n')).toEqual({ auth: { mode: 'jwt' }, roles: ['a', 'b'] });
  });

  it.each([
    ['a tab as indentation', 'auth:\n\tmode: jwt\n', 2, 'TAB_AS_INDENT'],
    ['an unclosed flow list', 'auth:\n  mode: api_key\n  api_keys: [\n', 4, 'BAD_INDENT'],
    ['an unclosed quote', 'auth:\n  mode: "api_key\n  x: 1\n', 4, 'MISSING_CHAR'],
    ['two documents', 'auth: {}\n---\nauth: {}\n', 2, 'MULTIPLE_DOCS'],
    ['a duplicate key on the first line', '{a: 1, a: 2}', 1, 'DUPLICATE_KEY'],
  ])('names the line of %s', (_name, text, line, code) => {
    expect(() => parseYaml(text, 'service.yaml')).toThrow(
      new ConfigError({ path: 'config', message: `service.yaml, line ${line}: not valid YAML (${code})` }),
    );
  });

  it('calls the source "config" when none is given', () => {
    expect(() => parseYaml('a: [')).toThrow('config: config, line 1: not valid YAML');
    expect(() => parseYaml('# just a comment\n')).toThrow('config: config is empty');
  });

  it('never repeats the document text in the message', () => {
    const secret = 'sk_live_do_not_print';
    try {
      parseYaml(`auth:\n  mode: ${secret}: x\n`);
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).not.toContain(secret);
    }
  });

  it('accepts a few aliases', () => {
    expect(parseYaml('p: &p [read]\nq: *p\n')).toEqual({ p: ['read'], q: ['read'] });
  });

  it('keeps __proto__ as a plain key, which the schema then refuses', () => {
    const value = parseYaml('__proto__: {polluted: true}\nauth: {}\n') as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['__proto__', 'auth']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(() => parseAuthConfig(value)).toThrow(new ConfigError({ path: '__proto__', message: 'unknown field' }));
  });
});
