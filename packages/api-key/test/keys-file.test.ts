import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConfigError, parseAuthConfig } from '@authlayer/core';
import { createCaptureLogger } from '@authlayer/testkit';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createApiKeyHandler } from '../src/api-key-handler.js';
import { readApiKeysFile } from '../src/config/keys-file.js';
import { issuesOf as sectionIssuesOf, settingsOf } from './settings-of.js';

// Contract, "Live changes without a restart": the file twins of API key material, and the
// keys_file of many hashed keys.
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'authlayer-keys-file-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

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
    const settings = settingsOf(
      api({
        keys_file: '/k.yaml',
        keys: [
          { name: 'a', key_file: '/a' },
          { name: 'b', hash_file: '/b' },
        ],
      }),
    );
    expect(settings.keysFile).toBe('/k.yaml');
    expect(settings.keys?.map(({ keyFile, hashFile }) => [keyFile, hashFile])).toEqual([
      ['/a', null],
      [null, '/b'],
    ]);
    expect(settingsOf(api({ keys_file: '/k.yaml' })).keys).toEqual([]);
    expect(settingsOf(api({ key_file: '/k' }))).toMatchObject({ keyFile: '/k', keys: null });
  });

  it.each([
    [
      'key_file with env_var',
      api({ key_file: '/k', env_var: 'K' }),
      'auth.api_keys.key_file',
      /^set key_file or env_var, not both$/,
    ],
    [
      'key_file with prefix',
      api({ key_file: '/k', prefix: 'prod' }),
      'auth.api_keys.key_file',
      /^set key_file or prefix, not both$/,
    ],
    ['keys_file with env_var', api({ keys_file: '/k', env_var: 'K' }), 'auth.api_keys.keys_file', /excludes/],
    ['keys_file with key_file', api({ keys_file: '/k', key_file: '/j' }), 'auth.api_keys.keys_file', /key_file/],
    [
      'an entry with key_file and hash_file',
      api({ keys: [{ name: 'a', key_file: '/a', hash_file: '/b' }] }),
      'auth.api_keys.keys[0]',
      /exactly one of env_var, hash_env, key_file and hash_file/,
    ],
    ['an empty path', api({ key_file: '' }), 'auth.api_keys.key_file', /must not be empty/],
  ])('refuses %s, naming the field', (_name, raw, path, message) => {
    const issue = sectionIssuesOf(raw).find((candidate) => candidate.path === path);
    expect(issue?.message).toMatch(message);
  });
});

describe('the files the section names', () => {
  const handlerOf = (apiKeys: Record<string, unknown>, env: Record<string, string>) =>
    createApiKeyHandler(parseAuthConfig({ auth: { mode: 'api_key', api_keys: apiKeys } }), {
      env,
      logger: createCaptureLogger(),
    });

  it("the handler's keyFiles lists every key file, as absolute paths (what reload.watch watches)", async () => {
    const keysFile = file('watched.yaml', `- name: k\n  sha256: ${HEX}\n`);
    const keyA = file('watched-a', 'watched-key-a-0123456789\n');
    const hashB = file('watched-b', `${createHash('sha256').update('watched-key-b').digest('hex')}\n`);
    const keys = [
      // A relative path is the process's working directory's, as the handler reads it.
      { name: 'a', key_file: relative(process.cwd(), keyA) },
      { name: 'b', hash_file: hashB },
      { name: 'c', env_var: 'C' },
    ];
    const handler = await handlerOf({ keys_file: keysFile, keys }, { C: 'watched-key-c-0123' });
    expect(handler.keyFiles).toEqual([keysFile, keyA, hashB]);
    const single = file('single', 'watched-single-key-01\n');
    expect((await handlerOf({ key_file: single }, {})).keyFiles).toEqual([single]);
    expect((await handlerOf({}, { SERVICE_API_KEY: 'watched-key-d-0123' })).keyFiles).toEqual([]);
  });
});
