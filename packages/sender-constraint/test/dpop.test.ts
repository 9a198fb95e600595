import { describe, expect, it } from '@jest/globals';
import { bearerError, type AuthRequest, type ReplayCache } from '@authlayer/core';
import { createCaptureLogger, createDpopKey, signDpopProof, signRaw, type DpopKey } from '@authlayer/testkit';
import { importJWK, type CryptoKey } from 'jose';
import { createHash } from 'node:crypto';
import { createMemoryReplayCache, createSenderConstraint, type SenderConstraintDeps } from '../src/index.js';

// Every check of RFC 9449 §4.3 on its own, with a pinned clock: each wrong proof fails for its own
// reason (`onProofFailure`), and `iat` is accepted exactly within the leeway.
const NOW = 1_800_000_000;
const LEEWAY = 30;
const URL_ = 'https://api.example.com/invoke';
const TOKEN = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1In0.c2ln';

function constraintWith(deps: Partial<SenderConstraintDeps> = {}, dpop: 'allowed' | 'required' = 'allowed') {
  const failures: string[] = [];
  const logger = createCaptureLogger();
  const constraint = createSenderConstraint(
    {
      dpop,
      dpopAlgorithms: ['ES256', 'RS256'],
      certificateBound: 'off',
      leewaySeconds: LEEWAY,
      resourceIdentifier: 'https://api.example.com',
      clientCertHeader: null,
    },
    { logger, now: () => NOW * 1000, onProofFailure: (failure) => failures.push(failure), ...deps },
  )!;
  return { constraint, failures, logger };
}

const requestWith = (proof: string | string[] | undefined, extra: Partial<AuthRequest> = {}): AuthRequest => ({
  headers: { authorization: `DPoP ${TOKEN}`, ...(proof === undefined ? {} : { dpop: proof }) },
  method: 'GET',
  originalUrl: '/invoke?page=2',
  ...extra,
});

async function failureOf(proof: string | string[] | undefined, key: DpopKey, extra: Partial<AuthRequest> = {}) {
  const { constraint, failures } = constraintWith();
  await expect(constraint.check(requestWith(proof, extra), 'dpop', TOKEN, { jkt: key.jkt })).rejects.toMatchObject({
    reason: 'dpop_invalid',
    challenge: expect.stringContaining('error="invalid_dpop_proof"'),
  });
  return failures;
}

describe('a DPoP proof, check by check', () => {
  it('passes when every check holds (htu taken from resource.identifier, query left out)', async () => {
    const key = await createDpopKey();
    const { constraint } = constraintWith();
    const proof = await key.proof({ method: 'GET', url: URL_, token: TOKEN, iat: NOW });
    await expect(constraint.check(requestWith(proof), 'dpop', TOKEN, { jkt: key.jkt })).resolves.toBeUndefined();
  });

  it.each([
    ['htm', { method: 'POST' }],
    ['htu', { url: 'https://api.example.com/other' }],
    ['htu', { url: 'http://api.example.com/invoke' }],
    ['ath', { token: 'another' }],
    ['ath', { token: undefined }],
    ['typ', { header: { typ: 'at+jwt' } }],
    ['iat', { iat: NOW - LEEWAY - 1 }],
    ['iat', { iat: NOW + LEEWAY + 1 }],
    ['iat', { claims: { exp: NOW - LEEWAY - 1 } }],
    ['claims', { claims: { jti: undefined } }],
    ['claims', { claims: { jti: 'j'.repeat(257) } }],
    ['claims', { claims: { htm: undefined } }],
    ['iat', { claims: { iat: 'now' } }],
  ] as const)('fails %s for %j', async (failure, change) => {
    const key = await createDpopKey();
    const proof = await key.proof({ method: 'GET', url: URL_, token: TOKEN, iat: NOW, ...change });
    expect(await failureOf(proof, key)).toEqual([failure]);
  });

  it('accepts iat exactly at the leeway on both sides', async () => {
    const key = await createDpopKey();
    for (const iat of [NOW - LEEWAY, NOW + LEEWAY]) {
      const { constraint } = constraintWith();
      const proof = await key.proof({ method: 'GET', url: URL_, token: TOKEN, iat });
      await expect(constraint.check(requestWith(proof), 'dpop', TOKEN, { jkt: key.jkt })).resolves.toBeUndefined();
    }
  });

  it('fails alg for an algorithm not listed or a symmetric one, header for a private or missing jwk, signature for another jwk', async () => {
    const key = await createDpopKey();
    const es384 = await createDpopKey('ES384');
    const secret = new Uint8Array(32).fill(1);
    const base = { method: 'GET', url: URL_, token: TOKEN, iat: NOW };
    expect(await failureOf(await es384.proof(base), es384)).toEqual(['alg']);
    const oct = { kty: 'oct', k: Buffer.from(secret).toString('base64url') };
    expect(await failureOf(await signDpopProof(secret, 'HS256', oct, base), key)).toEqual(['alg']);
    const none = `${b64({ typ: 'dpop+jwt', alg: 'none', jwk: key.publicJwk })}.${b64({ jti: 'a', htm: 'GET', htu: URL_, iat: NOW })}.`;
    expect(await failureOf(none, key)).toEqual(['malformed']);
    expect(await failureOf(await key.proof({ ...base, header: { jwk: key.privateJwk } }), key)).toEqual(['header']);
    expect(await failureOf(await key.proof({ ...base, header: { jwk: undefined } }), key)).toEqual(['header']);
    const other = await createDpopKey();
    expect(await failureOf(await key.proof({ ...base, header: { jwk: other.publicJwk } }), key)).toEqual(['signature']);
    expect(await failureOf('a.b.c', key)).toEqual(['header']);
    const privateKey = (await importJWK(key.privateJwk, 'ES256')) as CryptoKey;
    const notClaims = await signRaw(privateKey, { alg: 'ES256', typ: 'dpop+jwt', jwk: key.publicJwk }, [1]);
    expect(await failureOf(notClaims, key)).toEqual(['malformed']);
    expect(await failureOf('x'.repeat(9000), key)).toEqual(['malformed']);
  });

  it('fails count for none or two DPoP headers, request for a request without method or URL', async () => {
    const key = await createDpopKey();
    const proof = await key.proof({ method: 'GET', url: URL_, token: TOKEN, iat: NOW });
    expect(await failureOf(undefined, key)).toEqual(['count']);
    expect(await failureOf([proof, proof], key)).toEqual(['count']);
    expect(await failureOf(proof, key, { method: undefined })).toEqual(['request']);
    expect(await failureOf(proof, key, { originalUrl: undefined })).toEqual(['request']);
    expect(await failureOf(proof, key, { originalUrl: '*' })).toEqual(['request']);
  });

  // Express routes the path as the request line gives it (`/a/../invoke` reaches `/a/*p`), so the
  // proof must name that path: dot segments are never resolved, and a path holding one is refused.
  it.each([
    '/a/../invoke',
    '/./invoke',
    '/a/%2e%2e/invoke',
    '/a/%2E./invoke',
    '/a/.%2e/invoke',
    '/%2e/invoke',
    '/a/..',
    '/invoke/.',
    '/a\\..\\invoke',
  ])('fails request for a path holding a dot segment (%s), whatever its proof names', async (path) => {
    const key = await createDpopKey();
    for (const url of [URL_, `https://api.example.com${path}`]) {
      const proof = await key.proof({ method: 'GET', url, token: TOKEN, iat: NOW });
      expect(await failureOf(proof, key, { originalUrl: path })).toEqual(['request']);
    }
  });

  it('fails htu for a proof whose htu holds a dot segment, even when it resolves to the request path', async () => {
    const key = await createDpopKey();
    for (const url of [
      'https://api.example.com/a/../invoke',
      'https://api.example.com/./invoke',
      'https://api.example.com/a/%2E%2E/invoke',
    ]) {
      // As written: testkit's own URL handling would resolve the dot segments.
      const proof = await key.proof({ method: 'GET', url: URL_, token: TOKEN, iat: NOW, claims: { htu: url } });
      expect(await failureOf(proof, key)).toEqual(['htu']);
    }
  });

  it('still takes dots that are not whole segments (/v1.2/..x/invoke.json)', async () => {
    const key = await createDpopKey();
    const { constraint } = constraintWith();
    const url = 'https://api.example.com/v1.2/..x/invoke.json';
    const proof = await key.proof({ method: 'GET', url, token: TOKEN, iat: NOW });
    const request = requestWith(proof, { originalUrl: '/v1.2/..x/invoke.json?q=..' });
    await expect(constraint.check(request, 'dpop', TOKEN, { jkt: key.jkt })).resolves.toBeUndefined();
  });

  it('refuses a proof of another key than cnf.jkt as invalid_token, and a replayed jti', async () => {
    const key = await createDpopKey();
    const { constraint, failures } = constraintWith();
    const proof = await key.proof({ method: 'GET', url: URL_, token: TOKEN, iat: NOW });
    await expect(constraint.check(requestWith(proof), 'dpop', TOKEN, { jkt: 'another' })).rejects.toMatchObject({
      reason: 'dpop_invalid',
      challenge: expect.stringContaining('error="invalid_token"'),
    });
    await constraint.check(requestWith(proof), 'dpop', TOKEN, { jkt: key.jkt });
    await expect(constraint.check(requestWith(proof), 'dpop', TOKEN, { jkt: key.jkt })).rejects.toMatchObject({
      reason: 'dpop_invalid',
    });
    expect(failures).toEqual(['replay']);
  });

  it('asks the shared cache after its own; while it fails, its own memory decides (one warning, one line when back)', async () => {
    let broken: unknown = new Error('down');
    const shared = new Set<string>();
    const replayCache: ReplayCache = {
      firstSeen: (key) => {
        if (broken !== null) throw broken;
        if (shared.has(key)) return Promise.resolve(false);
        shared.add(key);
        return Promise.resolve(true);
      },
    };
    const { constraint, logger, failures } = constraintWith({ replayCache });
    const key = await createDpopKey();
    const proof = async () => key.proof({ method: 'GET', url: URL_, token: TOKEN, iat: NOW });
    const check = (sent: string) => constraint.check(requestWith(sent), 'dpop', TOKEN, { jkt: key.jkt });
    const during = await proof();
    await expect(check(during)).resolves.toBeUndefined();
    await expect(check(during)).rejects.toMatchObject({ reason: 'dpop_invalid' });
    broken = null;
    // Seen by another replica (in the shared cache only): refused here too.
    const elsewhere = await proof();
    await replayCache.firstSeen(digestOf(key.jkt, elsewhere), 1000);
    await expect(check(elsewhere)).rejects.toMatchObject({ reason: 'dpop_invalid' });
    await expect(check(await proof())).resolves.toBeUndefined();
    broken = 'a string';
    await expect(check(await proof())).resolves.toBeUndefined();
    await expect(check(await proof())).resolves.toBeUndefined();
    expect(failures).toEqual(['replay', 'replay']);
    expect(logger.lines.map((line) => `${line.level}: ${line.message}`)).toEqual([
      'warn: DPoP shared replay cache failed (Error); each process checks its own proofs until it answers',
      'info: DPoP replay cache answers again; proofs are checked across replicas',
      'warn: DPoP shared replay cache failed (string); each process checks its own proofs until it answers',
    ]);
  });

  it('refuses new proofs while its own cache is full of proofs in their window (one warning)', async () => {
    const { constraint, logger } = constraintWith({
      local: createMemoryReplayCache({ maxEntries: 1, now: () => NOW * 1000 }),
    });
    const key = await createDpopKey();
    const check = async () =>
      constraint.check(
        requestWith(await key.proof({ method: 'GET', url: URL_, token: TOKEN, iat: NOW })),
        'dpop',
        TOKEN,
        { jkt: key.jkt },
      );
    await expect(check()).resolves.toBeUndefined();
    await expect(check()).rejects.toMatchObject({ reason: 'dpop_invalid' });
    await expect(check()).rejects.toMatchObject({ reason: 'dpop_invalid' });
    expect(logger.lines.map((line) => line.message)).toEqual([
      'DPoP replay cache is full; new proofs are refused until entries expire',
    ]);
  });
});

/** The key the constraint files a proof under: SHA-256 of `<jkt>.<jti>`. */
function digestOf(jkt: string, proof: string): string {
  const { jti } = JSON.parse(Buffer.from(proof.split('.')[1] as string, 'base64url').toString()) as { jti: string };
  return createHash('sha256').update(`${jkt}.${jti}`).digest('base64url');
}

describe('how a token is presented', () => {
  it('refuses a bound token as Bearer, any Bearer token with required, an unbound token as DPoP', () => {
    const { constraint } = constraintWith();
    const request = requestWith(undefined);
    expect(() => constraint.check(request, 'bearer', TOKEN, { jkt: 'k' })).toThrow(
      expect.objectContaining({ reason: 'dpop_invalid' }),
    );
    expect(constraint.check(request, 'bearer', TOKEN, undefined)).toBeUndefined();
    expect(() => constraint.check(request, 'dpop', TOKEN, { 'x5t#S256': 'x' })).toThrow(
      expect.objectContaining({ reason: 'dpop_invalid' }),
    );
    const required = constraintWith({}, 'required').constraint;
    expect(() => required.check(request, 'bearer', TOKEN, null)).toThrow(
      expect.objectContaining({
        challenge: expect.stringMatching(/^DPoP realm="authlayer", algs="ES256 RS256", error="invalid_token"/),
      }),
    );
  });

  it('rechallenges the mode refusals, keeps its own, and offers only DPoP when required', async () => {
    const { constraint } = constraintWith({}, 'required');
    const own = (() => {
      try {
        // Synchronous: a Bearer token under `required` is refused before any proof is looked at.
        void constraint.check({ headers: {} }, 'bearer', TOKEN, null);
      } catch (error) {
        return error;
      }
    })();
    expect(constraint.rechallenge(own, 'bearer')).toBe(own);
    expect(constraint.rechallenge(bearerError('token_expired'), 'dpop')).toMatchObject({
      reason: 'token_expired',
      challenge:
        'DPoP realm="authlayer", algs="ES256 RS256", error="invalid_token", error_description="the token has expired"',
    });
    const bearer = { name: 'BearerAuth', type: 'http', scheme: 'bearer', description: 'JWT' } as const;
    expect(constraint.securitySchemes(bearer).map((scheme) => scheme.name)).toEqual(['DPoPAuth']);
  });

  it('reads the DPoP scheme only when dpop is on', () => {
    const { constraint } = constraintWith();
    expect(constraint.readDpopToken({ headers: { authorization: `DPoP ${TOKEN}` } })).toEqual({
      kind: 'token',
      token: TOKEN,
    });
    expect(constraint.readDpopToken({ headers: { authorization: 'DPoP a b' } })).toEqual({ kind: 'malformed' });
    expect(constraint.readDpopToken({ headers: { authorization: `Bearer ${TOKEN}` } })).toBeUndefined();
    const certificateOnly = createSenderConstraint(
      {
        dpop: 'off',
        dpopAlgorithms: ['ES256'],
        certificateBound: 'allowed',
        leewaySeconds: 0,
        resourceIdentifier: null,
        clientCertHeader: null,
      },
      { logger: createCaptureLogger(), now: Date.now },
    )!;
    expect(certificateOnly.readDpopToken({ headers: { authorization: `DPoP ${TOKEN}` } })).toBeUndefined();
    expect(certificateOnly.rechallenge(new Error('bug'), null)).toEqual(new Error('bug'));
  });
});

function b64(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
