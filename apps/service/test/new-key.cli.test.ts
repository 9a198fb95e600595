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
