import { describe, expect, it } from '@jest/globals';
import { isAuthError, type JwtAlgorithm } from '@authlayer/core';
import { createCaptureLogger, createSigningKey, mintToken, type SigningKey } from '@authlayer/testkit';
import { createLocalJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { createJoseVerifier, type TokenVerifier, type VerifierSettings } from '../src/verify/jose-verify.js';
import { createKeySource } from '../src/keys/key-source.js';
import { bearerError } from '@authlayer/core';
import { createTokenVerifier, MAX_TOKEN_BYTES } from '../src/verify/verify-token.js';
import { jwtSettings, NOW } from './fixtures.js';
import { hostileClaims, hostileCorpus } from './hostile-corpus.js';
import {
  AUDIENCE,
  createRandom,
  createRawSigner,
  ISSUER,
  LEEWAY,
  mutatedCase,
  signedCase,
  type Case,
} from './token-corpus.js';

// jose is the reference for what is valid. The fast path (node:crypto, KeyObjects) must give
// the same answer as jose's jwtVerify with the same options and key, for every token: accepted
// with the same claims, or refused with the same reason. A token the fast path accepts and jose
// refuses is a security bug. Deterministic: every token comes from a seeded PRNG.

// The tests set no timeout of their own: jest.preset.js's safety net (for a hang) holds. 5000 RS256
// tokens take seconds alone, and took more than 120 s at load 24 on 2 cores with every package's
// suite running.
// Tokens per algorithm: many for the three the benchmark measures, fewer for the other six.
const COUNT: Readonly<Record<JwtAlgorithm, number>> = {
  RS256: 5000,
  ES256: 5000,
  HS256: 5000,
  RS384: 250,
  RS512: 250,
  ES384: 250,
  ES512: 100,
  HS384: 300,
  HS512: 300,
};
const SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
// The two configurations every token meets: issuer, audience and leeway set; then none of them.
const STRICT = { issuer: ISSUER, audience: AUDIENCE, leewaySeconds: LEEWAY };
const OPEN = { issuer: null, audience: null, leewaySeconds: 0 };
type Rules = typeof STRICT | typeof OPEN;

type Outcome = string;

async function outcomeOf(verify: (token: string) => Promise<unknown>, token: string): Promise<Outcome> {
  try {
    return `accepted ${JSON.stringify(await verify(token))}`;
  } catch (error) {
    return isAuthError(error) ? error.reason : `not an AuthError: ${String(error)}`;
  }
}

/** Same options and key on both sides; the clock is read from `clock.ms`. */
function contenders(key: JWTVerifyGetKey, alg: JwtAlgorithm, rules: Rules, clock: { ms: number }) {
  const settings: VerifierSettings = { jwt: { ...rules, algorithms: [alg] }, now: () => clock.ms };
  const jose = createJoseVerifier(key, settings);
  // The handler's own shape check comes before either; jose alone is `bare` below.
  const reference: TokenVerifier = async (token) =>
    token.length <= MAX_TOKEN_BYTES && SHAPE.test(token) ? jose(token) : Promise.reject(bearerError('token_malformed'));
  const bare = async (token: string) => {
    const options = { algorithms: [alg], clockTolerance: rules.leewaySeconds, currentDate: new Date(clock.ms) };
    return (
      await jwtVerify(token, key, {
        ...options,
        ...(rules.issuer === null ? {} : { issuer: ISSUER, audience: AUDIENCE }),
      })
    ).payload;
  };
  return { fast: createTokenVerifier(key, settings), reference, bare };
}

interface Report {
  readonly outcomes: Record<string, number>;
  readonly mismatches: { token: string; nowMs: number; fast: Outcome; jose: Outcome }[];
  /** Tokens bare jose accepts that the handler's shape check refuses (padding, spaces, +/). */
  readonly joseMoreLenient: string[];
  /** Tokens the fast path accepts and bare jose refuses: must stay empty. */
  readonly fastOnly: string[];
}

const newReport = (): Report => ({ outcomes: {}, mismatches: [], joseMoreLenient: [], fastOnly: [] });

/** Runs every case through both sides under each of `rulesList`, into `report`. */
async function compare(
  cases: readonly Case[],
  key: JWTVerifyGetKey,
  alg: JwtAlgorithm,
  rulesList: Rules[],
  report: Report,
): Promise<Report> {
  const clock = { ms: NOW * 1000 };
  for (const rules of rulesList) {
    const { fast, reference, bare } = contenders(key, alg, rules, clock);
    for (const { token, nowMs } of cases) {
      clock.ms = nowMs;
      const fastOutcome = await outcomeOf(fast, token);
      const joseOutcome = await outcomeOf(reference, token);
      const kind = fastOutcome.startsWith('accepted') ? 'accepted' : fastOutcome;
      report.outcomes[kind] = (report.outcomes[kind] ?? 0) + 1;
      if (fastOutcome !== joseOutcome) report.mismatches.push({ token, nowMs, fast: fastOutcome, jose: joseOutcome });
      const shaped = SHAPE.test(token);
      if (kind !== 'accepted' && shaped) continue;
      const bareAccepts = (await outcomeOf(bare, token)).startsWith('accepted');
      if (kind === 'accepted' && !bareAccepts) report.fastOnly.push(token);
      if (!shaped && bareAccepts) report.joseMoreLenient.push(token);
    }
  }
  return report;
}

/** The hostile corpus for `key` plus signed odd tokens; and mutations of those. */
async function casesFor(key: SigningKey, count: number, seed: number): Promise<{ signed: Case[]; mutated: Case[] }> {
  const attackerKey = await createSigningKey(key.alg);
  const context = {
    key,
    attackerKey,
    good: await mintToken(key, hostileClaims()),
    attackerOrigin: 'http://127.0.0.1:9',
  };
  const hostile = await Promise.all(
    hostileCorpus(context).map(async ({ make }) => ({ token: await make(), nowMs: NOW * 1000 })),
  );
  const random = createRandom(seed);
  const signRaw = createRawSigner(key);
  const signed = Array.from({ length: Math.ceil(count / 2) }, () => signedCase(random, key, signRaw));
  const mutated = Array.from({ length: Math.floor(count / 2) }, () => mutatedCase(random, signed));
  return { signed: [...hostile, { token: context.good, nowMs: NOW * 1000 }, ...signed], mutated };
}

const staticKey = async (key: SigningKey): Promise<JWTVerifyGetKey> => {
  const jwt = jwtSettings({ public_key_env: 'JWT_KEY', algorithms: [key.alg] });
  return (await createKeySource(jwt, { env: { JWT_KEY: key.envValue }, logger: createCaptureLogger() })).getKey;
};

describe('the fast path gives jose’s answer to every token (public_key_env)', () => {
  it.each(Object.entries(COUNT) as [JwtAlgorithm, number][])(
    '%s: %i signed, mutated and hostile tokens',
    async (alg, count) => {
      const key = await createSigningKey(alg);
      const { signed, mutated } = await casesFor(key, count, 0x5eed + count + alg.charCodeAt(0) + Number(alg.slice(2)));
      const resolver = await staticKey(key);
      // Mutated tokens mostly fail before the claims, so one configuration is enough for them.
      const report = await compare(signed, resolver, alg, [STRICT, OPEN], newReport());
      await compare(mutated, resolver, alg, [STRICT], report);
      expect(report.mismatches.slice(0, 5)).toEqual([]);
      expect(report.fastOnly).toEqual([]);
      // The corpus reaches every answer, so agreement is not agreement on trivia.
      const { outcomes } = report;
      expect(outcomes.accepted).toBeGreaterThan(count / 10);
      for (const reason of ['token_malformed', 'signature_invalid', 'token_expired', 'algorithm_not_allowed']) {
        expect(outcomes[reason]).toBeGreaterThan(0);
      }
      if (count >= 1000) {
        for (const reason of ['token_not_yet_valid', 'issuer_mismatch', 'audience_mismatch'])
          expect(outcomes[reason]).toBeGreaterThan(0);
        // jose alone accepts padded, spaced or +/ spellings; the handler refuses them before any decoding.
        expect(report.joseMoreLenient.length).toBeGreaterThan(0);
        expect(report.joseMoreLenient.every((token) => !SHAPE.test(token))).toBe(true);
      }
    },
  );
});

describe('the fast path gives jose’s answer through a key set (kid lookup, several candidates)', () => {
  it.each(['RS256', 'ES256'] as const)('%s: 500 tokens against a set of three keys, two without kid', async (alg) => {
    const key = await createSigningKey(alg);
    const others = await Promise.all([createSigningKey(alg, { kid: null }), createSigningKey(alg, { kid: null })]);
    const set = createLocalJWKSet({ keys: [key, ...others].map((k) => k.publicJwk) });
    const random = createRandom(42);
    const signers = [key, ...others].map((k) => ({ k, sign: createRawSigner(k) }));
    const signed = Array.from({ length: 250 }, () => {
      const { k, sign } = random.pick(signers);
      return signedCase(random, k, sign);
    });
    const cases = [...signed, ...Array.from({ length: 250 }, () => mutatedCase(random, signed))];
    const report = await compare(cases, set, alg, [STRICT], newReport());
    expect(report.mismatches.slice(0, 5)).toEqual([]);
    // (Bare jwtVerify does not try several candidate keys, so `fastOnly` is not a finding here.)
    expect(report.outcomes.accepted).toBeGreaterThan(30);
  });
});
