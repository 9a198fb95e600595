// The verification step alone, per algorithm, next to its physical limit (node:crypto with a key
// parsed once). One core, no HTTP. `--json` prints one JSON line (for run.mjs); otherwise a table.
import { spawnSync } from 'node:child_process';
import { createPublicKey, createSecretKey } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { importSPKI, jwtVerify } from 'jose';
import jsonwebtoken from 'jsonwebtoken';
import { SKIPPED_LINE, authlayerJwtAvailable, importAuthlayerJwt } from './authlayer-jwt.mjs';
import { signatureChecker } from './limit-verifier.mjs';
import { ALGORITHMS, AUDIENCE, ISSUER, loadMaterial } from './material.mjs';
import { readOptions } from './options.mjs';

const options = readOptions();

// Standalone runs pin themselves to the server core, as run.mjs pins them.
if (!options.json && options.pin && process.env.BENCH_VERIFY_PINNED === undefined) {
  const child = spawnSync('taskset', ['-c', options.serverCpu, process.execPath, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_VERIFY_PINNED: '1' },
  });
  if (!child.error) process.exit(child.status ?? 1);
  console.error(`[verify] running without taskset: ${child.error.message}`);
}

const log = (line) => (options.json ? process.stderr : process.stdout).write(`[verify] ${line}\n`);
const now = () => performance.now();

/** Runs `op(i)` (sync or async) repeatedly for `ms`, three times after a warm-up; median µs/op. */
async function time(op, ms) {
  const sample = async (duration) => {
    let n = 0;
    const start = now();
    let elapsed = 0;
    while (elapsed < duration) {
      for (let k = 0; k < 32; k += 1) {
        const result = op(n);
        if (result instanceof Promise) await result;
        n += 1;
      }
      elapsed = now() - start;
    }
    return (elapsed * 1000) / n;
  };
  await sample(ms / 2);
  const results = [await sample(ms), await sample(ms), await sample(ms)].sort((a, b) => a - b);
  return results[1];
}

const material = await loadMaterial(options.pool, log);
const jwtAvailable = await authlayerJwtAvailable();
const notes = [];
if (!jwtAvailable) {
  log(SKIPPED_LINE);
  notes.push(SKIPPED_LINE);
}
const silent = { info() {}, warn() {}, error() {} };
const rows = [];

for (const alg of ALGORITHMS) {
  const { pool, one } = material.tokens[alg];
  const token = (i) => pool[i % pool.length];
  const hmac = alg === 'HS256';
  const secret = material.keys.HS256.secret;
  const pem = hmac ? null : material.keys[alg].publicPem;
  const claims = { issuer: ISSUER, audience: AUDIENCE, algorithms: [alg] };
  const keyObject = hmac ? createSecretKey(Buffer.from(secret, 'utf8')) : createPublicKey(pem);
  const cryptoKey = hmac ? new TextEncoder().encode(secret) : await importSPKI(pem, alg);
  const check = signatureChecker(alg, hmac ? secret : pem);
  const contenders = [
    [
      'node:crypto, KeyObject parsed once: signature only (physical limit)',
      (i) => {
        const t = token(i);
        const dot = t.lastIndexOf('.');
        if (!check(t.slice(0, dot), Buffer.from(t.slice(dot + 1), 'base64url'))) throw new Error('limit refused a valid token');
      },
    ],
    ['jose 6 jwtVerify, KeyObject', (i) => jwtVerify(token(i), keyObject, claims)],
    [`jose 6 jwtVerify, ${hmac ? 'Uint8Array secret' : 'CryptoKey (importSPKI once)'}`, (i) => jwtVerify(token(i), cryptoKey, claims)],
    [
      `jsonwebtoken 9 verify, ${hmac ? 'secret string' : 'PEM string (as express-jwt + jwks-rsa)'}`,
      (i) => jsonwebtoken.verify(token(i), hmac ? secret : pem, { algorithms: [alg], issuer: ISSUER, audience: AUDIENCE }),
    ],
  ];
  if (jwtAvailable) {
    const { parseAuthConfig } = await import('@authlayer/core');
    const { createHandler } = await importAuthlayerJwt();
    const env = { BENCH_KEY: hmac ? secret : pem };
    const config = parseAuthConfig({ auth: { mode: 'jwt', jwt: { public_key_env: 'BENCH_KEY', ...claims } } });
    const distinct = await createHandler(config, { env, logger: silent, now: Date.now });
    const reused = await createHandler(config, { env, logger: silent, now: Date.now });
    const request = (t) => ({ headers: { authorization: `Bearer ${t}` } });
    const oneRequest = request(one);
    contenders.push(
      ['authlayer handler authenticate(), distinct tokens', (i) => distinct.authenticate(request(token(i)))],
      ['authlayer handler authenticate(), one token reused', () => reused.authenticate(oneRequest)],
    );
  }
  let limit = NaN;
  for (const [name, op] of contenders) {
    await op(0); // fails loudly if a verifier refuses a valid token
    const micros = await time(op, options.verifyMs);
    if (Number.isNaN(limit)) limit = micros;
    rows.push({ alg, name, microsPerOp: micros, opsPerSecond: 1e6 / micros, vsLimit: limit / micros });
    log(`${alg} ${name.padEnd(72)} ${micros.toFixed(2).padStart(8)} µs/op`);
  }
}
notes.push(
  `Each cell: median of 3 samples of ${options.verifyMs} ms after a warm-up; distinct tokens cycle through a pool of ${options.pool.toLocaleString('en-US')}.`,
  '"× node:crypto" is limit µs / verifier µs: 1.00 means as fast as the bare signature check.',
);

if (options.json) {
  console.log(JSON.stringify({ rows, notes, jwtAvailable }));
} else {
  console.log('\n| algorithm | verifier | µs/op | ops/s | × node:crypto |\n|---|---|--:|--:|--:|');
  for (const r of rows) console.log(`| ${r.alg} | ${r.name} | ${r.microsPerOp.toFixed(2)} | ${r.opsPerSecond.toFixed(0)} | ${r.vsLimit.toFixed(2)} |`);
  console.log(`\n${notes.map((n) => `- ${n}`).join('\n')}`);
}
