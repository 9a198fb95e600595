// Measures @authlayer/jwt on this machine. Not a test: run it by hand after a build.
//   npx pnpm@10.34.9 --filter @authlayer/testkit --filter @authlayer/jwt build
//   node packages/jwt/bench/verify-bench.mjs            (BENCH_SECONDS=2 by default)
// Prints verifications per second through the handler, the JWKS fetches a flood of unknown kids
// causes, and the same figures for jwks-rsa, the alternative key-set library. The handler answers
// a repeated token from its cache of verified tokens; micro-bench.mjs measures fresh tokens, the
// cache and the physical limit separately.
import { randomUUID, createPublicKey } from 'node:crypto';
import { cpus } from 'node:os';
import { parseAuthConfig } from '@authlayer/core';
import { createCaptureLogger, createSigningKey, mintToken, startJwksServer } from '@authlayer/testkit';
import { jwtVerify } from 'jose';
import jwksRsa from 'jwks-rsa';
import { createJwtHandler } from '../dist/index.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const IN_FLIGHT = 8;
const now = Math.floor(Date.now() / 1000);
const claims = { sub: 'bench', iss: 'https://idp.example', aud: 'api', iat: now, exp: now + 3600 };
const jwtSection = (extra) => ({ issuer: 'https://idp.example', audience: 'api', ...extra });
const config = (jwt) => parseAuthConfig({ auth: { mode: 'jwt', jwt: jwtSection(jwt) } });
const deps = (env = {}, jwks) => ({ env, logger: createCaptureLogger(), ...(jwks ? { jwks } : {}) });
const request = (token) => ({ headers: { authorization: `Bearer ${token}` } });

/** Calls `verify` with IN_FLIGHT calls outstanding for SECONDS; resolves with calls per second. */
async function rate(verify) {
  for (let i = 0; i < 200; i += 1) await verify();
  let done = 0;
  const end = performance.now() + SECONDS * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      await verify();
      done += 1;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return Math.round(done / ((performance.now() - started) / 1000));
}

async function staticRates() {
  const rows = {};
  for (const alg of ['RS256', 'ES256', 'HS256']) {
    const key = await createSigningKey(alg);
    const handler = await createJwtHandler(
      config({ public_key_env: 'K', algorithms: [alg] }),
      deps({ K: key.envValue }),
    );
    const req = request(await mintToken(key, claims));
    rows[alg] = await rate(() => handler.authenticate(req));
  }
  return rows;
}

/** A key resolver over jwks-rsa, as one would write it for jose (KeyObjects memoised per PEM). */
function jwksRsaResolver(client) {
  const keys = new Map();
  return async (header) => {
    const pem = (await client.getSigningKey(header.kid)).getPublicKey();
    if (!keys.has(pem)) keys.set(pem, createPublicKey(pem));
    return keys.get(pem);
  };
}

/** Sends `count` tokens with random kids at once; waits at most 10 s for them to settle. */
async function flood(count, authenticate, makeToken) {
  const tokens = await Promise.all(Array.from({ length: count }, () => makeToken(randomUUID())));
  let refused = 0;
  let settled = 0;
  const started = performance.now();
  const all = Promise.allSettled(
    tokens.map((token) =>
      authenticate(token)
        .catch(() => void (refused += 1))
        .finally(() => void (settled += 1)),
    ),
  );
  let timer;
  await Promise.race([all, new Promise((resolve) => (timer = setTimeout(resolve, 10_000)))]);
  clearTimeout(timer);
  return { refused, neverSettled: count - settled, ms: Math.round(performance.now() - started) };
}

async function keySetComparison(key) {
  const out = {};
  const token = await mintToken(key, claims);
  const signWithKid = (kid) => mintToken(key, claims, { kid });
  const options = { algorithms: ['RS256'], issuer: 'https://idp.example', audience: 'api' };
  for (const count of [1000, 10000]) {
    const server = await startJwksServer([key.publicJwk]);
    const handler = await createJwtHandler(config({ jwks_url: server.url }), deps());
    await handler.authenticate(request(token));
    const result = await flood(count, (t) => handler.authenticate(request(t)), signWithKid);
    out[`jose remote set (authlayer), ${count} kids`] = { fetches: server.hits, ...result };
    await server.close();
    // The same flood arriving just after the cool-down ran out (200 ms here instead of 30 s).
    const later = await startJwksServer([key.publicJwk]);
    const cooled = await createJwtHandler(config({ jwks_url: later.url }), deps({}, { cooldownMs: 200 }));
    await cooled.authenticate(request(token));
    await new Promise((resolve) => setTimeout(resolve, 250));
    const afterCooldown = await flood(count, (t) => cooled.authenticate(request(t)), signWithKid);
    out[`jose remote set (authlayer), ${count} kids after the cool-down`] = { fetches: later.hits, ...afterCooldown };
    await later.close();
    for (const rateLimit of [false, true]) {
      const rsaServer = await startJwksServer([key.publicJwk]);
      const client = jwksRsa({
        jwksUri: rsaServer.url,
        cache: true,
        rateLimit,
        jwksRequestsPerMinute: 10,
        timeout: 5000,
      });
      const resolve = jwksRsaResolver(client);
      await jwtVerify(token, resolve, options);
      const r = await flood(count, (t) => jwtVerify(t, resolve, options), signWithKid);
      out[`jwks-rsa rateLimit=${rateLimit}, ${count} kids`] = { fetches: rsaServer.hits, ...r };
      await rsaServer.close();
    }
  }
  const server = await startJwksServer([key.publicJwk]);
  const handler = await createJwtHandler(config({ jwks_url: server.url }), deps());
  const client = jwksRsa({ jwksUri: server.url, cache: true, rateLimit: true });
  const resolve = jwksRsaResolver(client);
  // Interleaved twice each, so load from elsewhere on the machine hits both alike.
  const viaJose = () => rate(() => handler.authenticate(request(token)));
  const viaJwksRsa = () => rate(() => jwtVerify(token, resolve, options));
  const figures = [await viaJose(), await viaJwksRsa(), await viaJose(), await viaJwksRsa()];
  out['RS256 verifications/s through a remote key set (two runs each)'] = {
    'jose remote set (authlayer handler)': [figures[0], figures[2]],
    'jwks-rsa resolver + bare jose jwtVerify (no claims mapping)': [figures[1], figures[3]],
  };
  await server.close();
  return out;
}

console.log(
  `node ${process.version}, ${cpus().length} x ${cpus()[0]?.model}, ${IN_FLIGHT} in flight, ${SECONDS}s per figure`,
);
console.log('verifications/s through the handler (public_key_env):', await staticRates());
console.log('remote key sets:', await keySetComparison(await createSigningKey('RS256')));
