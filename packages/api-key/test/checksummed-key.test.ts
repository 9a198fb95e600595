import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { createCaptureLogger } from '@authlayer/testkit';
import { ConfigError, parseAuthConfig } from '@authlayer/core';
import { checksumOf, createApiKeyHandler, isChecksummedKey, newChecksummedKey, scannerPattern } from '../src/index.js';

const PREFIXES = new Set(['sk_live']);

describe('checksummed keys', () => {
  it('round-trip: every generated key has the shape, the prefix and its checksum, and the scanner finds it', () => {
    const scanner = new RegExp(scannerPattern('sk_live'));
    for (let i = 0; i < 200; i += 1) {
      const key = newChecksummedKey('sk_live');
      expect(key).toMatch(/^sk_live_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}$/);
      expect(isChecksummedKey(key, PREFIXES)).toBe(true);
      expect(scanner.test(`token = "${key}"`)).toBe(true);
    }
  });

  it('is the CRC-32 (IEEE) of the prefix and the random part, in base62, 6 characters padded with 0', () => {
    // CRC-32 (IEEE) of 'sk_live_' and 32 × 'a' is 3 798 193 119 (zlib, Python's binascii.crc32).
    const body = `sk_live_${'a'.repeat(32)}`;
    const value = 3_798_193_119;
    let expected = '';
    for (let rest = value; expected.length < 6; rest = Math.floor(rest / 62)) {
      expected = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'[rest % 62] + expected;
    }
    expect(checksumOf(body)).toBe(expected);
    expect(checksumOf(body)).toHaveLength(6);
  });

  it('refuses one changed character, a wrong checksum, a wrong prefix and the old format', () => {
    const key = newChecksummedKey('sk_live');
    const flipped = key.slice(0, 10) + (key[10] === 'a' ? 'b' : 'a') + key.slice(11);
    const wrongChecksum = key.slice(0, -1) + (key.endsWith('0') ? '1' : '0');
    const otherPrefix = newChecksummedKey('sk_test');
    for (const bad of [flipped, wrongChecksum, otherPrefix, 'x'.repeat(43), '', `${key}x`]) {
      expect(isChecksummedKey(bad, PREFIXES)).toBe(false);
    }
  });

  it('refuses a prefix that is not a letter followed by letters, digits and _', () => {
    expect(() => newChecksummedKey('1abc')).toThrow(TypeError);
    expect(() => newChecksummedKey('sk-live')).toThrow(TypeError);
  });
});

describe('format: checksummed in the handler', () => {
  const config = (extra: object = {}) =>
    parseAuthConfig({
      auth: { api_keys: { format: 'checksummed', keys: [{ name: 'billing', env_var: 'BILLING_KEY' }], ...extra } },
    });
  const request = (key: string) => ({ headers: { 'x-api-key': key } });

  it('refuses a malformed key before any lookup, and looks a well-formed one up', async () => {
    const key = newChecksummedKey('sk_live');
    const lookups: string[] = [];
    const handler = await createApiKeyHandler(config(), {
      env: { BILLING_KEY: key },
      logger: createCaptureLogger(),
      observe: { keyLookup: (result) => lookups.push(result) },
    });
    expect((await handler.authenticate(request(key))).userId).toBe('billing');
    const flipped = key.slice(0, 12) + (key[12] === 'Q' ? 'R' : 'Q') + key.slice(13);
    for (const bad of [flipped, newChecksummedKey('sk_test'), 'an-old-format-key-0123456789']) {
      await expect(handler.authenticate(request(bad))).rejects.toMatchObject({ reason: 'credentials_invalid' });
    }
    // A well-formed key that is not configured is looked up, and misses.
    await expect(handler.authenticate(request(newChecksummedKey('sk_live')))).rejects.toMatchObject({
      reason: 'credentials_invalid',
    });
    expect(lookups).toEqual(['hit', 'miss']);
  });

  it('fails start-up for a configured key that is not checksummed, naming its variable, never the key', async () => {
    const run = createApiKeyHandler(config(), {
      env: { BILLING_KEY: 'plain-old-key-0123456789' },
      logger: createCaptureLogger(),
    });
    await expect(run).rejects.toBeInstanceOf(ConfigError);
    await expect(run).rejects.toThrow(
      /^auth\.api_keys\.keys\[0\]\.env_var: environment variable BILLING_KEY holds a key that is not checksummed/,
    );
    await expect(run).rejects.not.toThrow(/plain-old-key/);
  });

  it('starts with hash_env entries and no key_prefixes: any prefix of the right shape is looked up', async () => {
    const [live, test] = [newChecksummedKey('sk_live'), newChecksummedKey('pk_test')];
    const lookups: string[] = [];
    const handler = await createApiKeyHandler(
      parseAuthConfig({
        auth: { api_keys: { format: 'checksummed', keys: [{ name: 'b', hash_env: 'B_SHA' }] } },
      }),
      {
        env: { B_SHA: createHash('sha256').update(live).digest('hex') },
        logger: createCaptureLogger(),
        observe: { keyLookup: (result) => lookups.push(result) },
      },
    );
    expect((await handler.authenticate(request(live))).userId).toBe('b');
    // Another prefix of the right shape is looked up (and misses); garbage is refused before it.
    await expect(handler.authenticate(request(test))).rejects.toMatchObject({ reason: 'credentials_invalid' });
    // The last character changed (never to itself: the key is random): its checksum fails.
    const garbage = live.slice(0, -1) + (live.endsWith('0') ? '1' : '0');
    await expect(handler.authenticate(request(garbage))).rejects.toMatchObject({
      reason: 'credentials_invalid',
    });
    expect(lookups).toEqual(['hit', 'miss']);
  });

  it('key_prefixes narrows hashed entries to the prefixes listed, and holds configured keys to them', async () => {
    const live = newChecksummedKey('sk_live');
    const lookups: string[] = [];
    const handler = await createApiKeyHandler(
      parseAuthConfig({
        auth: {
          api_keys: { format: 'checksummed', key_prefixes: ['sk_live'], keys: [{ name: 'b', hash_env: 'B_SHA' }] },
        },
      }),
      {
        env: { B_SHA: createHash('sha256').update(live).digest('hex') },
        logger: createCaptureLogger(),
        observe: { keyLookup: (result) => lookups.push(result) },
      },
    );
    expect((await handler.authenticate(request(live))).userId).toBe('b');
    await expect(handler.authenticate(request(newChecksummedKey('pk_test')))).rejects.toMatchObject({
      reason: 'credentials_invalid',
    });
    expect(lookups).toEqual(['hit']);
    await expect(
      createApiKeyHandler(config({ key_prefixes: ['pk_live'] }), {
        env: { BILLING_KEY: newChecksummedKey('sk_live') },
        logger: createCaptureLogger(),
      }),
    ).rejects.toThrow(/has a prefix that key_prefixes does not list/);
  });
});

describe('rotation', () => {
  it('logs "api key superseded" for the older key of a client, at most once a minute, never the key', async () => {
    const [older, newer] = ['older-key-0123456789abcdef', 'newer-key-0123456789abcdef'];
    const logger = createCaptureLogger();
    let now = Date.UTC(2026, 10, 25, 12);
    const handler = await createApiKeyHandler(
      parseAuthConfig({
        auth: {
          api_keys: {
            keys: [
              { name: 'billing', env_var: 'OLD', created: '2026-10-01' },
              { name: 'billing', env_var: 'NEW', created: '2026-11-20' },
            ],
          },
        },
      }),
      { env: { OLD: older, NEW: newer }, logger, now: () => now },
    );
    const superseded = () => logger.text.filter((line) => line.includes('api key superseded'));
    await handler.authenticate({ headers: { 'x-api-key': newer } });
    expect(superseded()).toEqual([]);
    await handler.authenticate({ headers: { 'x-api-key': older } });
    now += 59_000;
    await handler.authenticate({ headers: { 'x-api-key': older } });
    expect(superseded()).toEqual([
      'warn: api key superseded: client "billing" used an older key while a newer one exists',
    ]);
    now += 1_000;
    await handler.authenticate({ headers: { 'x-api-key': older } });
    expect(superseded()).toHaveLength(2);
    expect(logger.text.join('\n')).not.toContain(older);
  });
});

describe('limitsOf', () => {
  it("says each client's own limits, and nothing for a client without any", async () => {
    const handler = await createApiKeyHandler(
      parseAuthConfig({
        auth: {
          api_keys: {
            keys: [
              { name: 'billing', env_var: 'BILLING', requests_per_minute: 1200, quota: { requests: 10, per: 'day' } },
              { name: 'plain', env_var: 'PLAIN' },
            ],
          },
        },
        rate_limit: { requests_per_minute: 60 },
      }),
      { env: { BILLING: 'billing-key-0123456789', PLAIN: 'plain-key-0123456789' }, logger: createCaptureLogger() },
    );
    const billing = await handler.authenticate({ headers: { 'x-api-key': 'billing-key-0123456789' } });
    const plain = await handler.authenticate({ headers: { 'x-api-key': 'plain-key-0123456789' } });
    expect(handler.limitsOf?.(billing)).toEqual({ requestsPerMinute: 1200, quota: { requests: 10, per: 'day' } });
    expect(handler.limitsOf?.(plain)).toBeUndefined();
  });
});
