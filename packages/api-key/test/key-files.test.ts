import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConfigError, parseAuthConfig, type AuthHandler } from '@authlayer/core';
import { createCaptureLogger } from '@authlayer/testkit';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiKeyHandler } from '../src/api-key-handler.js';
import { newChecksummedKey } from '../src/checksummed-key.js';

// The file twins of API key material (contract, "Live changes without a restart").
const KEY_A = 'file-key-a-0123456789';
const KEY_B = 'file-key-b-0123456789';
const KEY_C = 'file-key-c-0123456789';
const hex = (key: string) => createHash('sha256').update(key).digest('hex');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'authlayer-keyfiles-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}
const handlerOf = (apiKeys: Record<string, unknown>, env: Record<string, string> = {}) =>
  createApiKeyHandler(parseAuthConfig({ auth: { mode: 'api_key', api_keys: apiKeys }, roles: [] }), {
    env,
    logger: createCaptureLogger(),
  });
const userOf = (handler: AuthHandler, key: string) =>
  handler.authenticate({ headers: { 'x-api-key': key } }).then(
    (context) => context.userId,
    (error: { reason: string }) => error.reason,
  );
async function failureOf(apiKeys: Record<string, unknown>, env: Record<string, string> = {}): Promise<ConfigError> {
  const error = await handlerOf(apiKeys, env).then(
    () => new Error('accepted'),
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(ConfigError);
  for (const secret of [KEY_A, KEY_B, KEY_C, hex(KEY_A), hex(KEY_B)])
    expect((error as Error).message).not.toContain(secret);
  return error as ConfigError;
}

describe('API keys read from files', () => {
  it('key_file: the spec single key, one trailing newline dropped; the summary names the file', async () => {
    const path = file('key', `${KEY_A}\n`);
    const handler = await handlerOf({ key_file: path });
    expect(await userOf(handler, KEY_A)).toBe(path);
    expect(await userOf(handler, `${KEY_A}\n`)).toBe('credentials_invalid');
    expect(handler.summary?.()).toBe(`file ${path}`);
    expect(handler.describe?.()).toMatchObject({ key_material: { [path]: 'set' } });
  });

  it('keys[].key_file and keys[].hash_file beside keys_file: every entry answers with its client', async () => {
    const keysFile = file(
      'keys.yaml',
      `- name: carol\n  sha256: "${hex(KEY_C)}"\n  roles: [reader]\n  tenant_id: t1\n- name: alice\n  sha256: "${hex('alice-second-key-01')}"\n`,
    );
    const handler = await handlerOf({
      keys: [
        { name: 'alice', key_file: file('a', KEY_A), roles: ['admin'] },
        { name: 'bob', hash_file: file('b.sha256', `${hex(KEY_B)}\n`) },
      ],
      keys_file: keysFile,
    });
    expect(await userOf(handler, KEY_A)).toBe('alice');
    expect(await userOf(handler, KEY_B)).toBe('bob');
    expect(await userOf(handler, KEY_C)).toBe('carol');
    // The file's alice entry takes alice's roles from keys.
    const second = await handler.authenticate({ headers: { 'x-api-key': 'alice-second-key-01' } });
    expect(second).toMatchObject({ userId: 'alice', roles: ['admin'] });
    expect(await handler.authenticate({ headers: { 'x-api-key': KEY_C } })).toMatchObject({
      roles: ['reader'],
      tenantId: 't1',
    });
    expect(handler.summary?.()).toBe('auth.api_keys.keys and auth.api_keys.keys_file (4 keys of 3 clients)');
    const described = JSON.stringify(handler.describe?.());
    expect(described).toContain('"keys_file":');
    for (const secret of [KEY_A, KEY_B, hex(KEY_B), hex(KEY_C)]) expect(described).not.toContain(secret);
  });

  it('keys_file alone with an empty list configures no key: every key is refused', async () => {
    const handler = await handlerOf({ keys_file: file('empty.yaml', '[]') });
    expect(await userOf(handler, KEY_A)).toBe('credentials_invalid');
    expect(handler.summary?.()).toBe('auth.api_keys.keys_file (0 keys of 0 clients)');
  });

  it.each([
    ['a missing key_file', () => ({ key_file: join(dir, 'absent') }), 'auth.api_keys.key_file', /does not exist$/],
    ['an empty key_file', () => ({ key_file: file('empty', '\n') }), 'auth.api_keys.key_file', /is empty$/],
    [
      'a key_file with white space around the key',
      () => ({ key_file: file('spaced', ` ${KEY_A}`) }),
      'auth.api_keys.key_file',
      /^file \/.+ starts or ends with white space$/,
    ],
    [
      'a hash_file that is no digest',
      () => ({ keys: [{ name: 'a', hash_file: file('bad.sha256', KEY_A) }] }),
      'auth.api_keys.keys[0].hash_file',
      /must hold 64 hex digits/,
    ],
    [
      'a missing keys_file',
      () => ({ keys_file: join(dir, 'absent.yaml') }),
      'auth.api_keys.keys_file',
      /does not exist$/,
    ],
    [
      'one key in keys and in keys_file',
      () => ({
        keys: [{ name: 'a', key_file: file('a2', KEY_A) }],
        keys_file: file('dup.yaml', `- name: b\n  sha256: "${hex(KEY_A)}"\n`),
      }),
      'auth.api_keys.keys_file[0]',
      /holds the same key as auth\.api_keys\.keys\[0\]/,
    ],
  ])('refuses %s, naming the field and the path, never the content', async (_name, apiKeys, path, message) => {
    const error = await failureOf(apiKeys());
    expect(error.issues[0]).toMatchObject({ path });
    expect(error.issues[0]?.message).toMatch(message);
  });

  it('format: checksummed checks a key_file key like an env_var key', async () => {
    const good = newChecksummedKey('sk_test');
    const handler = await handlerOf({ key_file: file('checked', good), format: 'checksummed' });
    expect(await userOf(handler, good)).not.toBe('credentials_invalid');
    const error = await failureOf({ key_file: file('unchecked', KEY_A), format: 'checksummed' });
    expect(error.issues[0]?.message).toMatch(/^file \/.+ holds a key that is not checksummed/);
  });

  // How long it takes is the bench's (`pnpm --filter @authlayer/bench reload`), never a test's.
  it('loads a keys_file of 10 000 entries, and finds the last one', async () => {
    const keys = Array.from({ length: 10_000 }, (_, index) => `client-key-${index}-0123456789`);
    const path = file(
      '10k.yaml',
      keys.map((key, index) => `- name: client-${index}\n  sha256: "${hex(key)}"\n  roles: [user]\n`).join(''),
    );
    const handler = await handlerOf({ keys_file: path });
    expect(await userOf(handler, keys[9_999]!)).toBe('client-9999');
    expect(await userOf(handler, keys[0]!)).toBe('client-0');
  });
});
