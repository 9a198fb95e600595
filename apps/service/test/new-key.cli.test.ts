import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { USAGE } from '../src/settings.js';
import { runToExit, startService, writeConfig } from './cli.js';

// `main.js --new-key`: a fresh 32-byte base64url key and the SHA-256 that `hash_env` holds.
const PRINTED = /^key: ([A-Za-z0-9_-]{43})\nsha256: ([0-9a-f]{64})\n$/;

async function newKey() {
  const result = await runToExit(['--new-key']);
  expect(result.code).toBe(0);
  expect(result.stderr).toBe('');
  const match = PRINTED.exec(result.stdout);
  expect(match).not.toBeNull();
  return { key: match![1]!, sha256: match![2]! };
}

describe('--new-key', () => {
  it('prints 32 random bytes as base64url and their SHA-256 in hex, and exits 0', async () => {
    const { key, sha256 } = await newKey();
    expect(Buffer.from(key, 'base64url')).toHaveLength(32);
    expect(Buffer.from(key, 'base64url').toString('base64url')).toBe(key);
    expect(sha256).toBe(createHash('sha256').update(key).digest('hex'));
  });

  it('is listed by --help', () => {
    expect(USAGE).toContain('--new-key');
  });

  it('makes a new key every time', async () => {
    const [a, b] = await Promise.all([newKey(), newKey()]);
    expect(a.key).not.toBe(b.key);
    expect(a.sha256).not.toBe(b.sha256);
  });

  it('needs neither a config nor key material', async () => {
    const result = await runToExit(['--new-key', '--config', '/nonexistent/authlayer.yaml']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(PRINTED);
  });

  it('gives a pair that works: the service holds only the digest (hash_env) and takes the key, header or Bearer', async () => {
    const { key, sha256 } = await newKey();
    const yaml =
      'auth:\n  mode: api_key\n  api_keys:\n    keys:\n      - name: fresh\n        hash_env: FRESH_API_KEY_SHA256\n';
    const service = await startService(['--config', writeConfig(yaml)], { FRESH_API_KEY_SHA256: sha256 });
    const post = (headers: Record<string, string>) =>
      fetch(`${service.url}/invoke`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: '{"query":"q"}',
      });
    const header = await post({ 'X-API-Key': key });
    expect(header.status).toBe(200);
    expect(((await header.json()) as { auth: { userId: string } }).auth.userId).toBe('fresh');
    expect((await post({ Authorization: `Bearer ${key}` })).status).toBe(200);
    expect((await post({ 'X-API-Key': sha256 })).status).toBe(401);
    expect(await service.stop()).toBe(0);
    for (const secret of [key, sha256]) expect(service.lines.join('\n')).not.toContain(secret);
  });
});

describe('--new-key --prefix', () => {
  it('prints a checksummed key and its digest; with format: checksummed and key_prefixes the service takes it', async () => {
    const result = await runToExit(['--new-key', '--prefix', 'sk_live']);
    expect(result.code).toBe(0);
    const match = /^key: (sk_live_[0-9A-Za-z]{32}_[0-9A-Za-z]{6})\nsha256: ([0-9a-f]{64})\n$/.exec(result.stdout);
    expect(match).not.toBeNull();
    const [, key, sha256] = match as unknown as [string, string, string];
    expect(sha256).toBe(createHash('sha256').update(key).digest('hex'));
    const yaml = [
      'auth:',
      '  mode: api_key',
      '  api_keys:',
      '    format: checksummed',
      '    key_prefixes: [sk_live]',
      '    keys:',
      '      - name: billing',
      '        hash_env: BILLING_API_KEY_SHA256',
      '',
    ].join('\n');
    const service = await startService(['--config', writeConfig(yaml)], { BILLING_API_KEY_SHA256: sha256 });
    const post = (value: string) =>
      fetch(`${service.url}/invoke`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-API-Key': value },
        body: '{"query":"q"}',
      });
    expect((await post(key)).status).toBe(200);
    expect((await post(`${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`)).status).toBe(401);
    expect(await service.stop()).toBe(0);
  });

  it.each([
    [
      ['--new-key', '--prefix', '9live'],
      '--prefix must be a letter, then letters, digits and _ (at most 32 characters)',
    ],
    [['--prefix', 'sk_live'], '--prefix goes with --new-key'],
  ])('refuses %j with one line', async (args, line) => {
    const result = await runToExit(args);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`authlayer: ${line}\n`);
  });
});
