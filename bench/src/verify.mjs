// The verification step alone, per algorithm, next to its physical limit (node:crypto with a key
// parsed once). One core, no HTTP. `--json` prints one JSON line (for run.mjs); otherwise a table.
import { spawnSync } from 'node:child_process';
import { createPublicKey, createSecretKey } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { importSPKI, jwtVerify } from 'jose';
import jsonwebtoken from 'jsonwebtoken';
import { SKIPPED_LINE, authlayerJwtAvailable, importAuthlayerJwt } from './authlayer-jwt.mjs';
import { signatureChecker, webCryptoSignatureChecker } from './limit-verifier.mjs';
import { ALGORITHMS, AUDIENCE, ISSUER, loadMaterial } from './material.mjs';
import { readOptions } from './options.mjs';

const options = readOptions();

// Standalone runs pin themselves to the server core, as run.mjs pins them.
if (!options.json && options.pin && process.env.BENCH_VERIFY_PINNED === undefined) {
  const child = spawnSync(
    'taskset',
    ['-c', options.serverCpu, process.execPath, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    {
      stdio: 'inherit',
      env: { ...process.env, BENCH_VERIFY_PINNED: '1' },
    },
  );
  if (!child.error) process.exit(child.status ?? 1);
  console.error(`[verify] running without taskset: ${child.error.message}`);
}

const log = (line) => (options.json ? process.stderr : process.stdout).write(`[verify] ${line}\n`);
const now = () => performance.now();

const IN_FLIGHT = 8;

/**
 * Runs `op(i)` (sync or async) repeatedly for `ms`, with up to IN_FLIGHT async operations in
 * flight (as a server with several connections has), three times after a warm-up. Returns the
 * median sample's wall µs per operation and process CPU µs per operation (all threads: WebCrypto
 * and jose's async work run on libuv's pool, which shares the pinned core).
 */
async function time(op, ms) {
  const sample = async (duration) => {
    let n = 0;
    const cpu0 = process.cpuUsage();
    const start = now();
    let elapsed = 0;
    while (elapsed < duration) {
      const pending = [];
      for (let k = 0; k < 32; k += 1) {
        const result = op(n);
        n += 1;
        if (result instanceof Promise) {
          pending.push(result);
          if (pending.length === IN_FLIGHT) await Promise.all(pending.splice(0));
        }
      }
      await Promise.all(pending);
      elapsed = now() - start;
    }
    const cpu = process.cpuUsage(cpu0);
    return { wall: (elapsed * 1000) / n, cpu: (cpu.user + cpu.system) / n };
  };
  await sample(ms / 2);
  const results = [await sample(ms), await sample(ms), await sample(ms)].sort((a, b) => a.wall - b.wall);
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
  const webCryptoCheck = await webCryptoSignatureChecker(alg, hmac ? secret : pem);
  const contenders = [
    [
      'node:crypto, KeyObject parsed once: signature only (physical limit)',
      (i) => {
        const t = token(i);
        const dot = t.lastIndexOf('.');
        if (!check(t.slice(0, dot), Buffer.from(t.slice(dot + 1), 'base64url')))
          throw new Error('limit refused a valid token');
      },
    ],
    [
      "WebCrypto crypto.subtle.verify, key imported once: signature only (jose's primitive)",
      async (i) => {
        const t = token(i);
        const dot = t.lastIndexOf('.');
        const signature = Buffer.from(t.slice(dot + 1), 'base64url');
        if (!(await webCryptoCheck(Buffer.from(t.slice(0, dot)), signature)))
          throw new Error('WebCrypto refused a valid token');
      },
    ],
    ['jose 6 jwtVerify, KeyObject', (i) => jwtVerify(token(i), keyObject, claims)],
    [
      `jose 6 jwtVerify, ${hmac ? 'Uint8Array secret' : 'CryptoKey (importSPKI once)'}`,
      (i) => jwtVerify(token(i), cryptoKey, claims),
    ],
    [
      `jsonwebtoken 9 verify, ${hmac ? 'secret string' : 'PEM string (as express-jwt + jwks-rsa)'}`,
      (i) =>
        jsonwebtoken.verify(token(i), hmac ? secret : pem, { algorithms: [alg], issuer: ISSUER, audience: AUDIENCE }),
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
    const { wall, cpu } = await time(op, options.verifyMs);
    if (Number.isNaN(limit)) limit = cpu;
    rows.push({ alg, name, microsPerOp: wall, cpuMicrosPerOp: cpu, opsPerSecond: 1e6 / wall, vsLimit: limit / cpu });
    log(`${alg} ${name.padEnd(72)} ${wall.toFixed(2).padStart(8)} µs/op  ${cpu.toFixed(2).padStart(8)} CPU µs/op`);
  }
}
notes.push(
  `Each cell: median of 3 samples of ${options.verifyMs} ms after a warm-up, up to ${IN_FLIGHT} operations in flight; distinct tokens cycle through a pool of ${options.pool.toLocaleString('en-US')}.`,
  "µs/op is wall time per operation (ops/s = 1e6 / µs/op); CPU µs/op counts every thread of the process, libuv's pool included.",
  '"× node:crypto" is the limit\'s CPU µs / the verifier\'s CPU µs: 1.00 means as cheap as the bare signature check.',
);

if (options.json) {
  console.log(JSON.stringify({ rows, notes, jwtAvailable }));
} else {
  const { microTable } = await import('./report.mjs');
  console.log(`\n${microTable({ rows })}`);
  console.log(`\n${notes.map((n) => `- ${n}`).join('\n')}`);
}
