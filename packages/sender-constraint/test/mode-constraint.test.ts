import { describe, expect, it } from '@jest/globals';
import type { ReloadCarry } from '@authlayer/core';
import { createCaptureLogger, createDpopKey } from '@authlayer/testkit';
import { createMemoryReplayCache, createModeSenderConstraint } from '../src/index.js';

// A mode's binding wired from its config and deps: the carried replay cache outlives a reload,
// the shared one is asked, and the config's resource identifier names the public origin.
const NOW = 1_800_000_000;
const TOKEN = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1In0.c2ln';
const BINDING = { dpop: 'allowed', dpopAlgorithms: ['ES256'], certificateBound: 'off' } as const;
const CONFIG = { resource: { identifier: 'https://api.example.com' }, tls: null } as never;
const now = () => NOW * 1000;

function carry(): ReloadCarry {
  const kept = new Map<string, object>();
  return {
    keep<T extends object>(key: string, make: () => T): T {
      if (!kept.has(key)) kept.set(key, make());
      return kept.get(key) as T;
    },
  } as ReloadCarry;
}

const request = (proof: string) => ({
  headers: { authorization: `DPoP ${TOKEN}`, dpop: proof },
  method: 'GET',
  originalUrl: '/invoke',
});

describe('createModeSenderConstraint', () => {
  it('binds nothing when the mode binds nothing', () => {
    const off = { ...BINDING, dpop: 'off' } as const;
    expect(createModeSenderConstraint('m', off, 30, CONFIG, { logger: createCaptureLogger() }, now)).toBeNull();
  });

  it('keeps the replay cache under its key across handlers, so a reload never takes a replay', async () => {
    const key = await createDpopKey();
    const proof = await key.proof({ method: 'GET', url: 'https://api.example.com/invoke', token: TOKEN, iat: NOW });
    const deps = { logger: createCaptureLogger(), carry: carry() };
    const before = createModeSenderConstraint('m.replay', BINDING, 30, CONFIG, deps, now)!;
    await expect(before.check(request(proof), 'dpop', TOKEN, { jkt: key.jkt })).resolves.toBeUndefined();
    const after = createModeSenderConstraint('m.replay', BINDING, 30, CONFIG, deps, now)!;
    await expect(after.check(request(proof), 'dpop', TOKEN, { jkt: key.jkt })).rejects.toMatchObject({
      reason: 'dpop_invalid',
    });
  });

  it('asks the shared replay cache when the deps give one', async () => {
    const key = await createDpopKey();
    const proof = await key.proof({ method: 'GET', url: 'https://api.example.com/invoke', token: TOKEN, iat: NOW });
    const shared = createMemoryReplayCache({ now });
    const logger = createCaptureLogger();
    const first = createModeSenderConstraint('m', BINDING, 30, CONFIG, { logger, replayCache: shared }, now)!;
    await expect(first.check(request(proof), 'dpop', TOKEN, { jkt: key.jkt })).resolves.toBeUndefined();
    // Another process: its own memory is new, the shared cache has seen the proof.
    const other = createModeSenderConstraint('m', BINDING, 30, CONFIG, { logger, replayCache: shared }, now)!;
    await expect(other.check(request(proof), 'dpop', TOKEN, { jkt: key.jkt })).rejects.toMatchObject({
      reason: 'dpop_invalid',
    });
  });

  it("checks the certificate from the config's proxy header, refusing one the token is not bound to", async () => {
    const bound = { dpop: 'off', dpopAlgorithms: ['ES256'], certificateBound: 'required' } as const;
    const config = { resource: null, tls: { clientCertHeader: 'x-client-cert' } } as never;
    const constraint = createModeSenderConstraint('m', bound, 30, config, { logger: createCaptureLogger() }, now)!;
    const cnf = { 'x5t#S256': 'not-this-certificate' };
    const proxied = { headers: { authorization: `Bearer ${TOKEN}`, 'x-client-cert': 'not a pem' } };
    // `check` may refuse at once (no proof to wait for): a promise either way.
    await expect(Promise.resolve().then(() => constraint.check(proxied, 'bearer', TOKEN, cnf))).rejects.toMatchObject({
      reason: 'certificate_mismatch',
    });
  });
});
