// The verification step alone, next to its physical limit. Not a test: run it by hand after a build.
//   npx pnpm@10.34.9 --filter @authlayer/testkit --filter @authlayer/jwt build
//   node packages/jwt/bench/micro-bench.mjs        (BENCH_ROUNDS=5, BENCH_MS=1000 per figure by default)
// For RS256, ES256 and HS256, µs per verification and verifications per second of:
//   (a) raw node:crypto: crypto.verify / createHmac with a KeyObject parsed once (the limit);
//   (b) jose 6 jwtVerify with a CryptoKey imported once (what the handler did before);
//   (c) the handler, 10 000 distinct tokens round-robin (more than the cache holds: every call verifies);
//   (d) the handler, one token again and again (cache hits).
// One call at a time, awaited (BENCH_IN_FLIGHT=8 keeps 8 outstanding); the median of the rounds
// is printed: wall-clock µs per call (and calls per second), and CPU µs per call (all threads:
// jose's WebCrypto verifies on libuv's pool, one call at a time pays a thread hand-off each).
// (c') is (c) with the cache turned off.
import { createHmac, createPublicKey, createSecretKey, sign, timingSafeEqual, verify, KeyObject } from 'node:crypto';
import { cpus } from 'node:os';
import { parseAuthConfig } from '@authlayer/core';
import { createCaptureLogger, createSigningKey } from '@authlayer/testkit';
import { importSPKI, jwtVerify } from 'jose';
import { createJwtHandler } from '../dist/index.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const MS = Number(process.env.BENCH_MS ?? 1000);
const POOL = Number(process.env.BENCH_POOL ?? 10_000);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 1);
const now = Math.floor(Date.now() / 1000);
const ISSUER = 'https://idp.example';

/** Signs `count` distinct tokens with node:crypto (much faster than SignJWT for 10 000 RSA tokens). */
function mintPool(key, count) {
  const hash = `sha${key.alg.slice(2)}`;
  const header = Buffer.from(JSON.stringify({ alg: key.alg, typ: 'JWT', kid: key.kid })).toString('base64url');
  const signer =
    key.signingKey instanceof Uint8Array
      ? (input) => createHmac(hash, key.signingKey).update(input).digest()
      : (
          (privateKey) => (input) =>
            sign(
              hash,
              Buffer.from(input),
              key.alg.startsWith('ES') ? { key: privateKey, dsaEncoding: 'ieee-p1363' } : privateKey,
            )
        )(KeyObject.from(key.signingKey));
  return Array.from({ length: count }, (_, i) => {
    const claims = {
      sub: `user-${i}`,
      iss: ISSUER,
      aud: 'api',
      iat: now,
      exp: now + 3600,
      roles: ['reader'],
      scope: 'invoke read',
    };
    const input = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    return `${input}.${signer(input).toString('base64url')}`;
  });
}

const median = (list) => [...list].sort((x, y) => x - y)[Math.floor(list.length / 2)];

/**
 * Median wall-clock and CPU µs per call of `run(i)` over ROUNDS rounds of MS ms each. CPU time
 * counts every thread of the process: WebCrypto (jose) verifies on libuv's pool, so its wall
 * time per awaited call includes a hand-over that its CPU time does not.
 */
async function measure(run) {
  for (let i = 0; i < 500; i += 1) await run(i);
  const wall = [];
  const cpu = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    let calls = 0;
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    const end = started + MS;
    const worker = async () => {
      while (performance.now() < end) {
        for (let j = 0; j < 50; j += 1) await run(calls++);
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    const used = process.cpuUsage(cpuStarted);
    wall.push(((performance.now() - started) * 1000) / calls);
    cpu.push((used.user + used.system) / calls);
  }
  return { wall: median(wall), cpu: median(cpu) };
}

/** (a): the signature check alone, with the signing input and signature already as bytes. */
function rawVerifier(key, tokens) {
  const hash = `sha${key.alg.slice(2)}`;
  const parts = tokens.map((t) => ({
    input: Buffer.from(t.slice(0, t.lastIndexOf('.'))),
    sig: Buffer.from(t.split('.')[2], 'base64url'),
  }));
  if (key.alg.startsWith('HS')) {
    const secret = createSecretKey(Buffer.from(key.envValue));
    return (i) => {
      const { input, sig } = parts[i % parts.length];
      return timingSafeEqual(createHmac(hash, secret).update(input).digest(), sig);
    };
  }
  const publicKey = createPublicKey(key.envValue);
  const options = key.alg.startsWith('ES') ? { key: publicKey, dsaEncoding: 'ieee-p1363' } : publicKey;
  return (i) => {
    const { input, sig } = parts[i % parts.length];
    return verify(hash, input, options, sig);
  };
}

async function rows(alg) {
  const key = await createSigningKey(alg);
  const tokens = mintPool(key, POOL);
  const config = parseAuthConfig({
    auth: { mode: 'jwt', jwt: { public_key_env: 'K', algorithms: [alg], issuer: ISSUER, audience: 'api' } },
  });
  const handler = await createJwtHandler(config, { env: { K: key.envValue }, logger: createCaptureLogger() });
  const uncached = await createJwtHandler(config, {
    env: { K: key.envValue },
    logger: createCaptureLogger(),
    tokenCache: { maxEntries: 0 },
  });
  const requests = tokens.map((t) => ({ headers: { authorization: `Bearer ${t}` } }));
  const joseKey = alg.startsWith('HS')
    ? await crypto.subtle.importKey(
        'raw',
        Buffer.from(key.envValue),
        { name: 'HMAC', hash: `SHA-${alg.slice(2)}` },
        false,
        ['verify'],
      )
    : await importSPKI(key.envValue, alg);
  const options = { algorithms: [alg], issuer: ISSUER, audience: 'api', requiredClaims: ['exp'], clockTolerance: 30 };
  const raw = rawVerifier(key, tokens);
  const figures = {
    '(a) raw node:crypto, KeyObject parsed once': await measure(async (i) => raw(i)),
    '(b) jose jwtVerify, key imported once': await measure((i) => jwtVerify(tokens[i % POOL], joseKey, options)),
    [`(c) handler, ${POOL} distinct tokens`]: await measure((i) => handler.authenticate(requests[i % POOL])),
    [`(c') the same, cache off`]: await measure((i) => uncached.authenticate(requests[i % POOL])),
    '(d) handler, one token again (cache hit)': await measure(() => handler.authenticate(requests[0])),
  };
  return Object.fromEntries(
    Object.entries(figures).map(([name, { wall, cpu }]) => [
      name,
      { 'µs/op': Number(wall.toFixed(2)), 'ops/s': Math.round(1e6 / wall), 'CPU µs/op': Number(cpu.toFixed(2)) },
    ]),
  );
}

console.log(
  `node ${process.version}, ${cpus().length} x ${cpus()[0]?.model}, ${IN_FLIGHT} in flight, ${ROUNDS} rounds x ${MS} ms, median`,
);
for (const alg of (process.env.BENCH_ALGS ?? 'RS256,ES256,HS256').split(',')) {
  console.log(alg);
  console.table(await rows(alg));
}
